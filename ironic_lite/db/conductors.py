"""Access to the conductors table: registration and heartbeats.

A conductor is *alive* (in the hash ring: it gets requests and owns
nodes) while it is online and its last heartbeat is younger than
``[conductor]heartbeat_timeout``. It is *dead* (its node locks may be
cleared, :func:`nodes.nodes_for_takeover`) once its heartbeat is older
than that, online or not. Between the two, a conductor that is stopping
heartbeats as offline: it leaves the ring at once, so that others own
its nodes, but keeps the locks of the steps it still runs until they
end.
"""

import datetime
from typing import Any

from oslo_db import exception as db_exc
import sqlalchemy as sa

from ironic_lite import exception
from ironic_lite.db.api import as_dict
from ironic_lite.db.api import check_sort
from ironic_lite.db.api import context_manager
from ironic_lite.db.api import retry_on_disconnect
from ironic_lite.db.models import Conductor
from lite_common import db as lite_db


def _register_once(context: Any, hostname: str, hardware_types: list[str],
                   conductor_group: str,
                   hardware_interfaces: dict[str, Any]) -> dict[str, Any]:
    now = lite_db.utcnow()
    with context_manager.writer.using(context) as session:
        row = session.scalars(sa.select(Conductor).where(
            Conductor.hostname == hostname)).first()
        if row is None:
            row = Conductor(hostname=hostname)
            session.add(row)
        row.online = True
        row.hardware_types = list(hardware_types)
        row.conductor_group = conductor_group.lower()
        row.hardware_interfaces = hardware_interfaces
        row.heartbeat_at = now
        session.flush()
        return as_dict(row)


def register(context: Any, hostname: str, hardware_types: list[str],
             conductor_group: str = '',
             hardware_interfaces: dict[str, Any] | None = None
             ) -> dict[str, Any]:
    """Record ``hostname`` as an online conductor (idempotent) of
    ``conductor_group`` (stored in lower case, as upstream), with the
    interfaces it loads per hardware type
    (:func:`ironic_lite.drivers.hardware.interfaces_by_hardware_type`).

    A conductor registering again (a restart) is set online with its
    current hardware types, interfaces, group and a fresh heartbeat.
    """
    interfaces = dict(hardware_interfaces or {})
    try:
        return _register_once(context, hostname, hardware_types,
                              conductor_group, interfaces)
    except db_exc.DBDuplicateEntry:
        # Two registrations of one host raced on the insert: the row
        # exists now, so this one updates it.
        return _register_once(context, hostname, hardware_types,
                              conductor_group, interfaces)


def _set(context: Any, hostname: str, **values: Any) -> None:
    with context_manager.writer.using(context) as session:
        result = session.execute(
            sa.update(Conductor).where(Conductor.hostname == hostname)
            .values(**values))
        if result.rowcount != 1:
            raise exception.ConductorNotFound(conductor=hostname)


@retry_on_disconnect
def heartbeat(context: Any, hostname: str,
              online: bool = True) -> datetime.datetime:
    """Record a heartbeat, and whether the conductor is online (False:
    it is stopping, see the module docstring).

    :raises ConductorNotFound: ``hostname`` never registered.
    """
    now = lite_db.utcnow()
    _set(context, hostname, heartbeat_at=now, online=online)
    return now


def unregister(context: Any, hostname: str) -> None:
    """Mark ``hostname`` offline (clean shutdown).

    :raises ConductorNotFound:
    """
    _set(context, hostname, online=False)


def get(context: Any, hostname: str) -> dict[str, Any]:
    """:raises ConductorNotFound:"""
    with context_manager.reader.using(context) as session:
        row = session.execute(sa.select(Conductor.__table__).where(
            Conductor.hostname == hostname)).mappings().first()
        if row is None:
            raise exception.ConductorNotFound(conductor=hostname)
        return dict(row)


def _alive_clause(timeout_seconds: float) -> Any:
    cutoff = lite_db.utcnow() - datetime.timedelta(seconds=timeout_seconds)
    return sa.and_(Conductor.online == sa.true(),
                   Conductor.heartbeat_at >= cutoff)


@retry_on_disconnect
def list_alive(context: Any, timeout_seconds: float,
               with_interfaces: bool = False) -> list[dict[str, Any]]:
    """Alive conductors: ``{'hostname', 'hardware_types',
    'conductor_group', 'heartbeat_at'}`` (and ``hardware_interfaces``
    when asked), by name."""
    columns = [Conductor.hostname, Conductor.hardware_types,
               Conductor.conductor_group, Conductor.heartbeat_at]
    if with_interfaces:
        columns.append(Conductor.hardware_interfaces)
    query = (sa.select(*columns)
             .where(_alive_clause(timeout_seconds))
             .order_by(Conductor.hostname))
    with context_manager.reader.using(context) as session:
        return [dict(row) for row in session.execute(query).mappings()]


#: However short the heartbeat interval, a conductor is not down before
#: its last heartbeat is this many seconds old: a process stalled for a
#: moment (a loaded machine, a garbage collection) is not taken for
#: killed.
MIN_DOWN_SECONDS = 5.0


@retry_on_disconnect
def down_hosts(alive: list[dict[str, Any]], interval: float,
               missed: int = 2,
               as_of: datetime.datetime | None = None) -> set[str]:
    """Hosts of ``alive`` (as :func:`list_alive` returns them) that
    missed ``missed`` heartbeats of ``interval`` seconds (and at least
    :data:`MIN_DOWN_SECONDS`): killed, paused or cut off, though not
    dead yet. ``as_of``: when ``alive`` was read (default now); a list
    kept a while is judged as it was read, not as if its heartbeats
    were still the latest."""
    limit = (as_of or lite_db.utcnow()) - datetime.timedelta(
        seconds=max(interval * missed, MIN_DOWN_SECONDS))
    return {row['hostname'] for row in alive
            if row.get('heartbeat_at') is not None
            and row['heartbeat_at'] < limit}


@retry_on_disconnect
def list_dead(context: Any, timeout_seconds: float) -> list[str]:
    """Hostnames of conductors silent for longer than
    ``timeout_seconds``, whose locks may be cleared."""
    cutoff = lite_db.utcnow() - datetime.timedelta(seconds=timeout_seconds)
    query = (sa.select(Conductor.hostname)
             .where(Conductor.heartbeat_at < cutoff)
             .order_by(Conductor.hostname))
    with context_manager.reader.using(context) as session:
        return list(session.scalars(query))


#: Columns a conductor list may be sorted by: upstream's, but for
#: updated_at (NULL until the first update; paging by a nullable
#: column is not worth it for a handful of conductors).
SORT_KEYS = ('id', 'hostname', 'conductor_group', 'created_at')


@retry_on_disconnect
def conductor_list(context: Any, limit: int | None = None,
                   marker: str | None = None, sort_key: str = 'id',
                   sort_dir: str = 'asc') -> list[dict[str, Any]]:
    """Every registered conductor, alive or not, one page in one query;
    ``marker`` is the hostname of the last one of the previous page.

    :raises InvalidParameterValue: a sort key or direction not allowed.
    :raises ConductorNotFound: an unknown marker.
    """
    check_sort(sort_key, sort_dir, SORT_KEYS)
    column = getattr(Conductor, sort_key)
    keys = [column, Conductor.id]
    if sort_dir == 'desc':
        keys = [key.desc() for key in keys]
    query = sa.select(Conductor.__table__).order_by(*keys)
    with context_manager.reader.using(context) as session:
        if marker is not None:
            mark = session.execute(sa.select(column, Conductor.id).where(
                Conductor.hostname == marker)).first()
            if mark is None:
                raise exception.ConductorNotFound(conductor=marker)
            value, mark_id = mark
            if sort_dir == 'desc':
                query = query.where(sa.or_(
                    column < value,
                    sa.and_(column == value, Conductor.id < mark_id)))
            else:
                query = query.where(sa.or_(
                    column > value,
                    sa.and_(column == value, Conductor.id > mark_id)))
        if limit is not None:
            query = query.limit(limit)
        return [dict(row) for row in session.execute(query).mappings()]
