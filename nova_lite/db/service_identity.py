"""Which nova-lite-compute process holds a compute host name.

A compute agent is named by ``[DEFAULT]host``: its RPC server, its
service record and its compute node use that name. A name is not a
process, though: a restart racing a hung process, a second unit started
by mistake, a frozen (SIGSTOPped) process that wakes up, or a copied
state directory can run two agents under one name, and both would work
on the same instances and disks. So each agent start gets an
*incarnation*, a fresh random id, recorded in its service row
(``services.incarnation``): the row has one holder at a time.

- An agent takes the name at start (:func:`claim`) only while no live
  process holds it: nobody (never claimed, stopped cleanly, released by
  an operator), itself, or a holder whose last heartbeat is older than
  ``service_down_time`` (dead), or a holder the agent proved dead
  (``dead_incarnation``: it ran on this machine and runs no more,
  see :mod:`lite_common.process_key`).
- Heartbeats are a conditional UPDATE on (id, incarnation): a process
  that no longer holds the name learns it at its next heartbeat
  (:class:`~nova_lite.exception.ComputeReplaced`) and stops.
- Before destroying anything the agent checks that it still holds the
  name (:func:`check_held`, one query).

Every function runs on the conductor (or nova-lite-manage): agents have
no database access.
"""

import datetime
from typing import Any

import sqlalchemy as sa

from lite_common import db as lite_db
from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.db import models
from nova_lite.db.api import as_dict
from nova_lite.db.api import context_manager
from nova_lite.db.api import retried

_S = models.Service


def _cutoff(down_time: float) -> datetime.datetime:
    return lite_db.utcnow() - datetime.timedelta(seconds=down_time)


def _row(session: Any, service_id: int) -> Any:
    return session.execute(
        sa.select(
            _S.host,
            _S.incarnation,
            _S.process,
            _S.process_key,
            _S.last_seen_up,
        ).where(_S.id == service_id, _S.deleted == 0)
    ).first()


def _in_use(row: Any, down_time: float) -> exception.ComputeHostInUse:
    seen = row.last_seen_up
    age = (lite_db.utcnow() - seen).total_seconds() if seen else 0.0
    return exception.ComputeHostInUse(
        host=row.host,
        process=row.process or 'unknown process',
        process_key=row.process_key,
        incarnation=row.incarnation,
        age=f'{max(age, 0.0):.1f}',
        timeout=f'{down_time:g}',
    )


@retried
def claim(
    context: RequestContext,
    service_id: int,
    incarnation: str,
    process: str,
    down_time: float,
    dead_incarnation: str | None = None,
    process_key: str | None = None,
) -> dict[str, Any]:
    """Make ``incarnation`` (running as ``process``, whose
    :mod:`lite_common.process_key` is ``process_key``) the holder of the
    service row, with a fresh heartbeat, in one conditional UPDATE;
    returns the row.

    :raises ComputeHostInUse: a live process holds the name.
    :raises ServiceNotFound:
    """
    free = [
        _S.incarnation.is_(None),
        _S.incarnation == incarnation,
        _S.last_seen_up.is_(None),
        _S.last_seen_up < _cutoff(down_time),
    ]
    if dead_incarnation:
        free.append(_S.incarnation == dead_incarnation)
    with context_manager.writer.using(context) as session:
        result = session.execute(
            sa.update(_S)
            .where(_S.id == service_id, _S.deleted == 0, sa.or_(*free))
            .values(
                incarnation=incarnation,
                process=process,
                process_key=process_key,
                last_seen_up=lite_db.utcnow(),
            )
            .execution_options(synchronize_session=False)
        )
        row = _row(session, service_id)
        if row is None:
            raise exception.ServiceNotFound(service=service_id)
        if result.rowcount != 1:
            raise _in_use(row, down_time)
        return as_dict(session.get(_S, service_id))


def _replaced(
    row: Any, host: str, incarnation: str
) -> exception.ComputeReplaced:
    if row.incarnation:
        holder = f'{row.process}, incarnation {row.incarnation}'
    else:
        holder = 'none: the name was released'
    return exception.ComputeReplaced(
        host=host, incarnation=incarnation, holder=holder
    )


@retried(idempotent=True)  # a second heartbeat is harmless
def heartbeat(
    context: RequestContext, service_id: int, host: str, incarnation: str
) -> datetime.datetime:
    """A heartbeat of the holder ``incarnation`` (one UPDATE).

    :raises ComputeReplaced: another process holds the name now, or
        nobody does (released; the record deleted).
    """
    now = lite_db.utcnow()
    with context_manager.writer.using(context) as session:
        result = session.execute(
            sa.update(_S)
            .where(
                _S.id == service_id,
                _S.deleted == 0,
                _S.incarnation == incarnation,
            )
            .values(last_seen_up=now, report_count=_S.report_count + 1)
            .execution_options(synchronize_session=False)
        )
        if result.rowcount == 1:
            return now
        row = _row(session, service_id)
    if row is None:
        raise exception.ServiceNotFound(service=service_id)
    raise _replaced(row, host, incarnation)


@retried
def check_held(
    context: RequestContext, service_id: int, host: str, incarnation: str
) -> None:
    """Nothing when ``incarnation`` holds the service row (one query).

    :raises ComputeReplaced: it does not.
    :raises ServiceNotFound: the record was deleted (nothing is
        destroyed for an agent whose record is gone either).
    """
    with context_manager.reader.using(context) as session:
        row = _row(session, service_id)
    if row is None:
        raise exception.ServiceNotFound(service=service_id)
    if row.incarnation != incarnation:
        raise _replaced(row, host, incarnation)


@retried
def let_go(context: RequestContext, service_id: int, incarnation: str) -> bool:
    """A clean stop: the holder ``incarnation`` lets the name go, so
    that a new agent may take it at once; False when it held it no
    more."""
    with context_manager.writer.using(context) as session:
        result = session.execute(
            sa.update(_S)
            .where(_S.id == service_id, _S.incarnation == incarnation)
            .values(incarnation=None, process=None, process_key=None)
            .execution_options(synchronize_session=False)
        )
    return bool(result.rowcount == 1)


@retried
def release(context: RequestContext, host: str, binary: str) -> dict[str, Any]:
    """Let the host name go whoever holds it (an operator who knows its
    process is dead); returns the row as it was. A process of that name
    still running is fenced from now on: it destroys nothing and stops
    at its next heartbeat.

    :raises ServiceNotFound:
    """
    where = (_S.host == host, _S.binary == binary, _S.deleted == 0)
    with context_manager.writer.using(context) as session:
        row = session.scalars(sa.select(_S).where(*where)).first()
        if row is None:
            raise exception.ServiceNotFound(service=f'{binary} on {host}')
        before = as_dict(row)
        session.execute(
            sa.update(_S)
            .where(*where)
            .values(incarnation=None, process=None, process_key=None)
            .execution_options(synchronize_session=False)
        )
    return before
