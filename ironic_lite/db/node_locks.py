"""The node lock: the ``reservation`` column of the nodes table.

:func:`reserve` and :func:`release` are conditional single-statement
UPDATEs, so two conductors racing for a node cannot both win on any
backend. :func:`clear_reservations` releases the locks of conductors
found dead (or locks a live conductor lost).
"""

from typing import Any

import sqlalchemy as sa

from ironic_lite import exception
from ironic_lite.db.api import context_manager
from ironic_lite.db.api import retry_on_disconnect
from ironic_lite.db.models import Node


def ident_clause(node_id: int | str) -> Any:
    """WHERE clause of a node named by id or uuid."""
    if isinstance(node_id, int):
        return Node.id == node_id
    return Node.uuid == node_id


def _lock_holder(session: Any, node_id: int | str) -> tuple[str, Any]:
    """(uuid, reservation) of a node; NodeNotFound when it is gone."""
    row = session.execute(sa.select(Node.uuid, Node.reservation).where(
        ident_clause(node_id))).first()
    if row is None:
        raise exception.NodeNotFound(node=node_id)
    return row.uuid, row.reservation


@retry_on_disconnect
def reserve(context: Any, hostname: str, node_id: int | str,
            adopt: bool = False) -> dict[str, Any]:
    """Take the lock of a node (id or uuid) for ``hostname``.

    Not re-entrant: a second reserve by the same host fails too, unless
    ``adopt``: the caller knows that no task of ``hostname`` holds the
    node (the conductor's in-process claim), so a reservation of
    ``hostname`` found in the database is a stale one of its own (a
    release that failed, a commit whose answer the connection lost) and
    is taken as is.

    :raises NodeLocked: another reservation holds it (names the holder).
    :raises NodeNotFound:
    """
    with context_manager.writer.using(context) as session:
        # A second try only when the holder let go between the UPDATE
        # and the SELECT that names it.
        for _attempt in range(2):
            result = session.execute(
                sa.update(Node)
                .where(ident_clause(node_id), Node.reservation.is_(None))
                .values(reservation=hostname)
                .execution_options(synchronize_session=False))
            uuid, holder = _lock_holder(session, node_id)
            if result.rowcount == 1 or holder is not None:
                break
        if result.rowcount != 1 and not (adopt and holder == hostname):
            raise exception.NodeLocked(node=uuid, host=holder)
        row = session.execute(sa.select(Node.__table__).where(
            Node.uuid == uuid)).mappings().one()
        return dict(row)


@retry_on_disconnect
def release(context: Any, hostname: str, node_id: int | str) -> None:
    """Give back the lock of a node (id or uuid) held by ``hostname``.

    :raises NodeNotLocked: the node is unlocked or held by another host.
    :raises NodeNotFound:
    """
    with context_manager.writer.using(context) as session:
        result = session.execute(
            sa.update(Node)
            .where(ident_clause(node_id), Node.reservation == hostname)
            .values(reservation=None)
            .execution_options(synchronize_session=False))
        if result.rowcount != 1:
            uuid, holder = _lock_holder(session, node_id)
            raise exception.NodeNotLocked(node=uuid, host=hostname,
                                          holder=holder)


@retry_on_disconnect
def clear_reservations(context: Any, hosts: list[str],
                       node_ids: list[int] | None = None
                       ) -> list[tuple[int, str]]:
    """Clear the locks held by ``hosts`` (only on ``node_ids`` when
    given), in one transaction; returns ``(id, uuid)`` of those nodes,
    by id."""
    if not hosts or node_ids == []:
        return []
    query = sa.select(Node.id, Node.uuid).where(Node.reservation.in_(hosts))
    if node_ids is not None:
        query = query.where(Node.id.in_(node_ids))
    with context_manager.writer.using(context) as session:
        rows = [(row.id, row.uuid) for row in session.execute(
            query.order_by(Node.id).with_for_update())]
        if rows:
            session.execute(
                sa.update(Node)
                .where(Node.id.in_([node_id for node_id, _uuid in rows]),
                       Node.reservation.in_(hosts))
                .values(reservation=None)
                .execution_options(synchronize_session=False))
        return rows


def release_all(context: Any, hostname: str) -> list[int]:
    """Release every lock ``hostname`` holds; returns the node ids."""
    return [node_id for node_id, _uuid in
            clear_reservations(context, [hostname])]


def nodes_for_takeover(context: Any, dead_hosts: list[str]) -> list[int]:
    """Clear the locks held by dead conductors; returns the node ids.

    Another conductor can then reserve and take these nodes over.
    """
    return [node_id for node_id, _uuid in
            clear_reservations(context, list(dead_hosts))]


@retry_on_disconnect
def reserved_by(context: Any, hostname: str) -> list[tuple[int, str]]:
    """``(id, uuid)`` of the nodes ``hostname`` holds the lock of, by id
    (one light query)."""
    with context_manager.reader.using(context) as session:
        return [(row.id, row.uuid) for row in session.execute(
            sa.select(Node.id, Node.uuid)
            .where(Node.reservation == hostname).order_by(Node.id))]
