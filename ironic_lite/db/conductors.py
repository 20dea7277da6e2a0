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
from oslo_log import log as logging
import sqlalchemy as sa

from ironic_lite import exception
from ironic_lite.common.conductor_identity import ConductorIdentity
from ironic_lite.common.conductor_identity import this_process
from ironic_lite.db.api import check_sort
from ironic_lite.db.api import context_manager
from ironic_lite.db.api import retry_on_disconnect
from ironic_lite.db.models import Conductor
from lite_common import db as lite_db
from lite_common import process_key
from lite_common.context import RequestContext

LOG = logging.getLogger(__name__)


def _own_key() -> str | None:
    key = process_key.this_process()
    return None if key is None else str(key)


def _cutoff(timeout_seconds: float) -> datetime.datetime:
    return lite_db.utcnow() - datetime.timedelta(seconds=timeout_seconds)


def _holder(session: Any, hostname: str) -> Any:
    """(incarnation, process, heartbeat_at) of ``hostname``'s row, or
    None."""
    return session.execute(
        sa.select(
            Conductor.incarnation,
            Conductor.process,
            Conductor.process_key,
            Conductor.heartbeat_at,
        ).where(Conductor.hostname == hostname)
    ).first()


def _in_use(
    hostname: str, row: Any, timeout_seconds: float
) -> exception.ConductorHostInUse:
    age = (lite_db.utcnow() - row.heartbeat_at).total_seconds()
    return exception.ConductorHostInUse(
        host=hostname,
        process=row.process or 'unknown process',
        incarnation=row.incarnation,
        age=f'{max(age, 0.0):.1f}',
        timeout=f'{timeout_seconds:g}',
    )


def _take_name(
    context: RequestContext,
    identity: ConductorIdentity,
    values: dict[str, Any],
    timeout_seconds: float,
) -> bool:
    """One conditional UPDATE: the row of the host name becomes
    ``identity``'s unless a live process holds it; False when there is
    no row yet.

    :raises ConductorHostInUse:
    """
    free = sa.or_(
        Conductor.incarnation.is_(None),
        Conductor.incarnation == identity.incarnation,
        Conductor.heartbeat_at < _cutoff(timeout_seconds),
    )
    with context_manager.writer.using(context) as session:
        result = session.execute(
            sa.update(Conductor)
            .where(Conductor.hostname == identity.host, free)
            .values(**values)
            .execution_options(synchronize_session=False)
        )
        if result.rowcount == 1:
            return True
        row = _holder(session, identity.host)
        if row is not None and process_key.proven_dead(row.process_key):
            # It ran on this machine and runs no more (a crash, then a
            # restart): no need to wait for its heartbeat to age. The
            # row must still be its own (another may have won it).
            result = session.execute(
                sa.update(Conductor)
                .where(
                    Conductor.hostname == identity.host,
                    Conductor.incarnation == row.incarnation,
                    Conductor.process_key == row.process_key,
                )
                .values(**values)
                .execution_options(synchronize_session=False)
            )
            if result.rowcount == 1:
                LOG.warning(
                    'Conductor %(host)s: the process that held the '
                    'name (%(process)s, incarnation %(old)s) is '
                    'dead (no such process runs on this machine); '
                    'taking its name over',
                    {
                        'host': identity.host,
                        'process': row.process,
                        'old': row.incarnation,
                    },
                )
                return True
            row = _holder(session, identity.host)
    if row is None:
        return False
    raise _in_use(identity.host, row, timeout_seconds)


@retry_on_disconnect
def register(
    context: RequestContext,
    identity: ConductorIdentity,
    hardware_types: list[str],
    conductor_group: str = '',
    hardware_interfaces: dict[str, Any] | None = None,
    heartbeat_timeout: float = 60.0,
) -> dict[str, Any]:
    """Take the host name ``identity.host`` for the process ``identity``
    and record it online, of ``conductor_group`` (stored in lower case,
    as upstream), with its hardware types and the interfaces it loads
    per hardware type
    (:func:`ironic_lite.drivers.hardware.interfaces_by_hardware_type`)
    and a fresh heartbeat.

    The name is free when no process holds it (never registered, or
    released by a clean stop or an operator), when ``identity`` holds it
    already (registering again) or when its holder's last heartbeat is
    older than ``heartbeat_timeout``: the holder is dead, and from now
    on every write it tries under a node lock is refused (see
    :mod:`ironic_lite.common.conductor_identity`).

    :raises ConductorHostInUse: a live process holds the name.
    """
    values = {
        'online': True,
        'hardware_types': list(hardware_types),
        'conductor_group': conductor_group.lower(),
        'hardware_interfaces': dict(hardware_interfaces or {}),
        'heartbeat_at': lite_db.utcnow(),
        'incarnation': identity.incarnation,
        'process': this_process(),
        'process_key': _own_key(),
    }
    for _attempt in range(2):
        if _take_name(context, identity, values, heartbeat_timeout):
            return get(context, identity.host)
        try:
            with context_manager.writer.using(context) as session:
                session.add(Conductor(hostname=identity.host, **values))
            return get(context, identity.host)
        except db_exc.DBDuplicateEntry:
            # Another process inserted the row meanwhile: compete for
            # it like for an existing one.
            continue
    raise _in_use(
        identity.host, _read_holder(context, identity.host), heartbeat_timeout
    )


def _read_holder(context: RequestContext, hostname: str) -> Any:
    with context_manager.reader.using(context) as session:
        return _holder(session, hostname)


def _set_own(
    context: RequestContext, identity: ConductorIdentity, **values: Any
) -> None:
    """Update the row of ``identity.host`` while ``identity`` holds it.

    :raises ConductorNotFound: no such row.
    :raises ConductorReplaced: another process holds the name now (or
        nobody: an operator released it).
    """
    with context_manager.writer.using(context) as session:
        result = session.execute(
            sa.update(Conductor)
            .where(
                Conductor.hostname == identity.host,
                Conductor.incarnation == identity.incarnation,
            )
            .values(**values)
            .execution_options(synchronize_session=False)
        )
        if result.rowcount == 1:
            return
        if _holder(session, identity.host) is None:
            raise exception.ConductorNotFound(conductor=identity.host)
        error = replaced(session, identity)
    raise error or exception.ConductorNotFound(conductor=identity.host)


def replaced(
    session: Any, identity: ConductorIdentity
) -> exception.ConductorReplaced | None:
    """The error for a process that no longer holds its host name
    (another took it over, or an operator released it), else None."""
    row = _holder(session, identity.host)
    if row is not None and row.incarnation == identity.incarnation:
        return None
    holder = (
        f'{row.process}, incarnation {row.incarnation}'
        if row is not None and row.incarnation
        else 'none: the name was released'
    )
    return exception.ConductorReplaced(
        host=identity.host, incarnation=identity.incarnation, holder=holder
    )


@retry_on_disconnect
def heartbeat(
    context: RequestContext, identity: ConductorIdentity, online: bool = True
) -> datetime.datetime:
    """Record a heartbeat of the process ``identity``, and whether it is
    online (False: it is stopping, see the module docstring).

    :raises ConductorNotFound: the row is gone (register again).
    :raises ConductorReplaced: the process no longer holds its name.
    """
    now = lite_db.utcnow()
    _set_own(context, identity, heartbeat_at=now, online=online)
    return now


@retry_on_disconnect
def unregister(context: RequestContext, identity: ConductorIdentity) -> None:
    """Mark the conductor offline and let its host name go (a clean
    stop: a new process may take the name at once).

    :raises ConductorNotFound:
    :raises ConductorReplaced: (nothing was changed)
    """
    try:
        _set_own(
            context,
            identity,
            online=False,
            incarnation=None,
            process=None,
            process_key=None,
        )
    except exception.ConductorReplaced:
        # Nobody holds the name: this process let it go already (a
        # first attempt whose commit went unseen) or an operator did.
        if get(context, identity.host)['incarnation'] is not None:
            raise


@retry_on_disconnect
def release(context: RequestContext, hostname: str) -> dict[str, Any]:
    """Let the host name go whoever holds it (an operator who knows its
    process is dead); returns the row as it was. A process of that name
    still running is fenced from now on and stops.

    :raises ConductorNotFound:
    """
    before = get(context, hostname)
    with context_manager.writer.using(context) as session:
        session.execute(
            sa.update(Conductor)
            .where(Conductor.hostname == hostname)
            .values(
                online=False, incarnation=None, process=None, process_key=None
            )
            .execution_options(synchronize_session=False)
        )
    return before


@retry_on_disconnect
def get(context: RequestContext, hostname: str) -> dict[str, Any]:
    """:raises ConductorNotFound:"""
    with context_manager.reader.using(context) as session:
        row = (
            session.execute(
                sa.select(Conductor.__table__).where(
                    Conductor.hostname == hostname
                )
            )
            .mappings()
            .first()
        )
        if row is None:
            raise exception.ConductorNotFound(conductor=hostname)
        return dict(row)


def _alive_clause(timeout_seconds: float) -> Any:
    return sa.and_(
        Conductor.online == sa.true(),
        Conductor.heartbeat_at >= _cutoff(timeout_seconds),
    )


@retry_on_disconnect
def list_alive(
    context: RequestContext,
    timeout_seconds: float,
    with_interfaces: bool = False,
) -> list[dict[str, Any]]:
    """Alive conductors: ``{'hostname', 'hardware_types',
    'conductor_group', 'heartbeat_at'}`` (and ``hardware_interfaces``
    when asked), by name."""
    columns = [
        Conductor.hostname,
        Conductor.hardware_types,
        Conductor.conductor_group,
        Conductor.heartbeat_at,
    ]
    if with_interfaces:
        columns.append(Conductor.hardware_interfaces)
    query = (
        sa.select(*columns)
        .where(_alive_clause(timeout_seconds))
        .order_by(Conductor.hostname)
    )
    with context_manager.reader.using(context) as session:
        return [dict(row) for row in session.execute(query).mappings()]


#: However short the heartbeat interval, a conductor is not down before
#: its last heartbeat is this many seconds old: a process stalled for a
#: moment (a loaded machine, a garbage collection) is not taken for
#: killed.
MIN_DOWN_SECONDS = 5.0


@retry_on_disconnect
def down_hosts(
    alive: list[dict[str, Any]],
    interval: float,
    missed: int = 2,
    as_of: datetime.datetime | None = None,
) -> set[str]:
    """Hosts of ``alive`` (as :func:`list_alive` returns them) that
    missed ``missed`` heartbeats of ``interval`` seconds (and at least
    :data:`MIN_DOWN_SECONDS`): killed, paused or cut off, though not
    dead yet. ``as_of``: when ``alive`` was read (default now); a list
    kept a while is judged as it was read, not as if its heartbeats
    were still the latest."""
    limit = (as_of or lite_db.utcnow()) - datetime.timedelta(
        seconds=max(interval * missed, MIN_DOWN_SECONDS)
    )
    return {
        row['hostname']
        for row in alive
        if row.get('heartbeat_at') is not None and row['heartbeat_at'] < limit
    }


@retry_on_disconnect
def list_dead(
    context: RequestContext, timeout_seconds: float
) -> list[tuple[str, str | None]]:
    """``(hostname, incarnation)`` of the conductors silent for longer
    than ``timeout_seconds``, by name: the locks of that incarnation
    may be cleared (:func:`ironic_lite.db.node_locks.clear_dead`)."""
    query = (
        sa.select(Conductor.hostname, Conductor.incarnation)
        .where(Conductor.heartbeat_at < _cutoff(timeout_seconds))
        .order_by(Conductor.hostname)
    )
    with context_manager.reader.using(context) as session:
        return [
            (row.hostname, row.incarnation) for row in session.execute(query)
        ]


#: Columns a conductor list may be sorted by: upstream's, but for
#: updated_at (NULL until the first update; paging by a nullable
#: column is not worth it for a handful of conductors).
SORT_KEYS = ('id', 'hostname', 'conductor_group', 'created_at')


@retry_on_disconnect
def conductor_list(
    context: RequestContext,
    limit: int | None = None,
    marker: str | None = None,
    sort_key: str = 'id',
    sort_dir: str = 'asc',
) -> list[dict[str, Any]]:
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
            mark = session.execute(
                sa.select(column, Conductor.id).where(
                    Conductor.hostname == marker
                )
            ).first()
            if mark is None:
                raise exception.ConductorNotFound(conductor=marker)
            value, mark_id = mark
            if sort_dir == 'desc':
                query = query.where(
                    sa.or_(
                        column < value,
                        sa.and_(column == value, Conductor.id < mark_id),
                    )
                )
            else:
                query = query.where(
                    sa.or_(
                        column > value,
                        sa.and_(column == value, Conductor.id > mark_id),
                    )
                )
        if limit is not None:
            query = query.limit(limit)
        return [dict(row) for row in session.execute(query).mappings()]
