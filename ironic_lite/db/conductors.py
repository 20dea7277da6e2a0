"""Access to the conductors table: registration and heartbeats.

A conductor is alive while it is online and its last heartbeat is
younger than ``[conductor]heartbeat_timeout``; the others are dead and
their node locks may be taken over (:func:`nodes.nodes_for_takeover`).
"""

import datetime
from typing import Any

from oslo_db import exception as db_exc
import sqlalchemy as sa

from ironic_lite import exception
from ironic_lite.db.api import as_dict
from ironic_lite.db.api import context_manager
from ironic_lite.db.models import Conductor
from lite_common import db as lite_db


def _register_once(context: Any, hostname: str,
                   hardware_types: list[str]) -> dict[str, Any]:
    now = lite_db.utcnow()
    with context_manager.writer.using(context) as session:
        row = session.scalars(sa.select(Conductor).where(
            Conductor.hostname == hostname)).first()
        if row is None:
            row = Conductor(hostname=hostname)
            session.add(row)
        row.online = True
        row.hardware_types = list(hardware_types)
        row.heartbeat_at = now
        session.flush()
        return as_dict(row)


def register(context: Any, hostname: str,
             hardware_types: list[str]) -> dict[str, Any]:
    """Record ``hostname`` as an online conductor (idempotent).

    A conductor registering again (a restart) is set online with its
    current hardware types and a fresh heartbeat.
    """
    try:
        return _register_once(context, hostname, hardware_types)
    except db_exc.DBDuplicateEntry:
        # Two registrations of one host raced on the insert: the row
        # exists now, so this one updates it.
        return _register_once(context, hostname, hardware_types)


def _set(context: Any, hostname: str, **values: Any) -> None:
    with context_manager.writer.using(context) as session:
        result = session.execute(
            sa.update(Conductor).where(Conductor.hostname == hostname)
            .values(**values))
        if result.rowcount != 1:
            raise exception.ConductorNotFound(conductor=hostname)


def heartbeat(context: Any, hostname: str) -> datetime.datetime:
    """Record a heartbeat (and that the conductor is online).

    :raises ConductorNotFound: ``hostname`` never registered.
    """
    now = lite_db.utcnow()
    _set(context, hostname, heartbeat_at=now, online=True)
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


def list_alive(context: Any,
               timeout_seconds: float) -> list[dict[str, Any]]:
    """Alive conductors: ``{'hostname', 'hardware_types'}``, by name."""
    query = (sa.select(Conductor.hostname, Conductor.hardware_types)
             .where(_alive_clause(timeout_seconds))
             .order_by(Conductor.hostname))
    with context_manager.reader.using(context) as session:
        return [dict(row) for row in session.execute(query).mappings()]


def list_dead(context: Any, timeout_seconds: float) -> list[str]:
    """Hostnames of conductors offline or silent for too long."""
    query = (sa.select(Conductor.hostname)
             .where(sa.not_(_alive_clause(timeout_seconds)))
             .order_by(Conductor.hostname))
    with context_manager.reader.using(context) as session:
        return list(session.scalars(query))
