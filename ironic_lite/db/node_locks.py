"""The node lock: the ``reservation`` column of the nodes table.

A lock names a conductor host (``reservation``, what the API shows),
and it counts only for the process that holds that host name: the
incarnation the conductors table records for it (see
:mod:`ironic_lite.common.conductor_identity`). Every statement that
acts under a lock checks both in one conditional UPDATE
(:func:`holds_lock`), so two conductors racing for a node cannot both
win on any backend, and a process that was replaced under its name
writes nothing more, even before its old locks are cleared.

:func:`clear_dead` releases the locks of conductors found dead,
:func:`clear_own` those a conductor holds without a task (at start-up:
those of the process it replaced).
"""

from typing import Any
from typing import NamedTuple

import sqlalchemy as sa

from ironic_lite import exception
from ironic_lite.common.conductor_identity import ConductorIdentity
from ironic_lite.db import conductors as db_conductors
from ironic_lite.db.api import context_manager
from ironic_lite.db.api import retry_on_disconnect
from ironic_lite.db.models import Conductor
from ironic_lite.db.models import Node
from lite_common.context import RequestContext


class LockState(NamedTuple):
    """A node's lock as a running step checks it."""

    #: The host holding the lock (None: unlocked).
    holder: str | None
    #: The incarnation holding that host name now (None: nobody).
    incarnation: str | None
    driver_internal_info: dict[str, Any]

    def held_by(self, identity: ConductorIdentity) -> bool:
        return (
            self.holder == identity.host
            and self.incarnation == identity.incarnation
        )


def ident_clause(node_id: int | str) -> Any:
    """WHERE clause of a node named by id or uuid."""
    if isinstance(node_id, int):
        return Node.id == node_id
    return Node.uuid == node_id


def owns_name(identity: ConductorIdentity) -> Any:
    """WHERE clause: the process ``identity`` holds its host name."""
    return sa.exists().where(
        Conductor.hostname == identity.host,
        Conductor.incarnation == identity.incarnation,
    )


def holds_lock(identity: ConductorIdentity) -> Any:
    """WHERE clause of the nodes whose lock ``identity`` holds."""
    return sa.and_(Node.reservation == identity.host, owns_name(identity))


def lock_state_in(session: Any, node_id: int | str) -> tuple[str, LockState]:
    """(uuid, lock state) of a node; NodeNotFound when it is gone."""
    row = session.execute(
        sa.select(
            Node.uuid,
            Node.reservation,
            Conductor.incarnation,
            Node.driver_internal_info,
        )
        .select_from(Node)
        .outerjoin(Conductor, Conductor.hostname == Node.reservation)
        .where(ident_clause(node_id))
    ).first()
    if row is None:
        raise exception.NodeNotFound(node=node_id)
    return row.uuid, LockState(
        row.reservation, row.incarnation, row.driver_internal_info or {}
    )


def not_locked(
    uuid: str, identity: ConductorIdentity, state: LockState
) -> Exception:
    """Why ``identity`` does not hold the lock it expected to hold."""
    if state.holder == identity.host:
        # Our host name, but not our process: we were replaced.
        return exception.NodeNotLocked(
            node=uuid,
            host=str(identity),
            holder=f'{state.holder} (incarnation {state.incarnation})',
        )
    return exception.NodeNotLocked(
        node=uuid, host=str(identity), holder=state.holder
    )


@retry_on_disconnect
def lock_state(context: RequestContext, node_id: int | str) -> LockState:
    """The lock of a node and its ``driver_internal_info``: what a
    running step checks between units of work (one light query).

    :raises NodeNotFound:
    """
    with context_manager.reader.using(context) as session:
        return lock_state_in(session, node_id)[1]


@retry_on_disconnect
def reserve(
    context: RequestContext,
    identity: ConductorIdentity,
    node_id: int | str,
    adopt: bool = False,
) -> dict[str, Any]:
    """Take the lock of a node (id or uuid) for the process ``identity``.

    Not re-entrant: a second reserve by the same host fails too, unless
    ``adopt``: the caller knows that no task of ``identity`` holds the
    node (the conductor's in-process claim), so a reservation of its
    host found in the database is a stale one of its own (a release
    that failed, a commit whose answer the connection lost, or the lock
    of the process it replaced) and is taken as is.

    :raises NodeLocked: another reservation holds it (names the holder).
    :raises ConductorReplaced: ``identity`` no longer holds its host
        name: it may take no lock.
    :raises NodeNotFound:
    """
    with context_manager.writer.using(context) as session:
        # A second try only when the holder let go between the UPDATE
        # and the SELECT that names it.
        for _attempt in range(2):
            result = session.execute(
                sa.update(Node)
                .where(
                    ident_clause(node_id),
                    Node.reservation.is_(None),
                    owns_name(identity),
                )
                .values(reservation=identity.host)
                .execution_options(synchronize_session=False)
            )
            uuid, state = lock_state_in(session, node_id)
            if result.rowcount == 1 or state.holder is not None:
                break
        if result.rowcount != 1:
            replaced = db_conductors.replaced(session, identity)
            if replaced is not None:
                raise replaced
            if not (adopt and state.held_by(identity)):
                raise exception.NodeLocked(node=uuid, host=state.holder)
        row = (
            session.execute(sa.select(Node.__table__).where(Node.uuid == uuid))
            .mappings()
            .one()
        )
        return dict(row)


@retry_on_disconnect
def release(
    context: RequestContext, identity: ConductorIdentity, node_id: int | str
) -> None:
    """Give back the lock of a node (id or uuid) held by ``identity``.

    :raises NodeNotLocked: the node is unlocked, held by another host,
        or ``identity`` was replaced under its host name.
    :raises NodeNotFound:
    """
    with context_manager.writer.using(context) as session:
        result = session.execute(
            sa.update(Node)
            .where(ident_clause(node_id), holds_lock(identity))
            .values(reservation=None)
            .execution_options(synchronize_session=False)
        )
        if result.rowcount != 1:
            uuid, state = lock_state_in(session, node_id)
            raise not_locked(uuid, identity, state)


def _clear(
    context: RequestContext, condition: Any, node_ids: list[int] | None
) -> list[tuple[int, str]]:
    """Clear the locks of the nodes matching ``condition`` (only of
    ``node_ids`` when given) in one transaction; ``(id, uuid)`` of
    those nodes, by id."""
    if node_ids == []:
        return []
    query = sa.select(Node.id, Node.uuid).where(condition)
    if node_ids is not None:
        query = query.where(Node.id.in_(node_ids))
    with context_manager.writer.using(context) as session:
        rows = [
            (row.id, row.uuid)
            for row in session.execute(
                query.order_by(Node.id).with_for_update()
            )
        ]
        if rows:
            session.execute(
                sa.update(Node)
                .where(
                    Node.id.in_([node_id for node_id, _uuid in rows]),
                    condition,
                )
                .values(reservation=None)
                .execution_options(synchronize_session=False)
            )
        return rows


@retry_on_disconnect
def clear_own(
    context: RequestContext,
    identity: ConductorIdentity,
    node_ids: list[int] | None = None,
) -> list[tuple[int, str]]:
    """Clear the locks of ``identity``'s host (only on ``node_ids`` when
    given) while ``identity`` holds the name; returns ``(id, uuid)`` of
    those nodes, by id."""
    return _clear(context, holds_lock(identity), node_ids)


@retry_on_disconnect
def clear_dead(
    context: RequestContext, dead: list[tuple[str, str | None]]
) -> list[tuple[int, str]]:
    """Clear the locks of dead conductors, given as ``(host,
    incarnation)`` (:func:`ironic_lite.db.conductors.list_dead`): only
    while that incarnation (or nobody, None) still holds the host name,
    never the locks of a process that took the name over meanwhile.
    Returns ``(id, uuid)`` of the nodes, by id."""
    if not dead:
        return []
    condition = sa.or_(
        *(
            sa.and_(
                Node.reservation == host,
                sa.exists().where(
                    Conductor.hostname == host,
                    Conductor.incarnation.is_not_distinct_from(incarnation),
                ),
            )
            for host, incarnation in dead
        )
    )
    return _clear(context, condition, None)


@retry_on_disconnect
def reserved_by(
    context: RequestContext, identity: ConductorIdentity
) -> list[tuple[int, str]]:
    """``(id, uuid)`` of the nodes ``identity`` holds the lock of, by id
    (one light query)."""
    with context_manager.reader.using(context) as session:
        return [
            (row.id, row.uuid)
            for row in session.execute(
                sa.select(Node.id, Node.uuid)
                .where(holds_lock(identity))
                .order_by(Node.id)
            )
        ]
