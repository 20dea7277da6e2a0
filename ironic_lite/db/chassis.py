"""Access to the chassis table (API 1.1): groups of nodes.

The API writes chassis directly (no conductor owns a chassis, as
upstream); a chassis that still has nodes is not deleted.
"""

from collections.abc import Iterable
from typing import Any

from oslo_db import exception as db_exc
import sqlalchemy as sa

from ironic_lite import exception
from ironic_lite.db.api import check_sort
from ironic_lite.db.api import context_manager
from ironic_lite.db.api import retried
from ironic_lite.db.api import retry_on_disconnect
from ironic_lite.db.models import Chassis
from ironic_lite.db.models import Node
from lite_common.context import RequestContext

#: The columns a chassis list may be sorted by (not extra, as upstream).
SORT_KEYS = ('id', 'uuid', 'description', 'created_at')


def _row(session: Any, uuid: str) -> dict[str, Any]:
    row = (
        session.execute(
            sa.select(Chassis.__table__).where(Chassis.uuid == uuid)
        )
        .mappings()
        .first()
    )
    if row is None:
        raise exception.ChassisNotFound(chassis=uuid)
    return dict(row)


@retry_on_disconnect
def chassis_get(context: RequestContext, uuid: str) -> dict[str, Any]:
    """:raises ChassisNotFound:"""
    with context_manager.reader.using(context) as session:
        return _row(session, uuid)


@retried
def chassis_create(
    context: RequestContext, values: dict[str, Any]
) -> dict[str, Any]:
    """:raises ChassisAlreadyExists: its uuid is taken."""
    try:
        with context_manager.writer.using(context) as session:
            session.execute(sa.insert(Chassis).values(**values))
    except db_exc.DBDuplicateEntry:
        raise exception.ChassisAlreadyExists(uuid=values['uuid'])
    return chassis_get(context, values['uuid'])


@retry_on_disconnect
def chassis_update(
    context: RequestContext, uuid: str, values: dict[str, Any]
) -> dict[str, Any]:
    with context_manager.writer.using(context) as session:
        result = session.execute(
            sa.update(Chassis).where(Chassis.uuid == uuid).values(**values)
        )
        if result.rowcount != 1:
            raise exception.ChassisNotFound(chassis=uuid)
        return _row(session, uuid)


@retry_on_disconnect
def chassis_destroy(context: RequestContext, uuid: str) -> None:
    """:raises ChassisNotFound:
    :raises ChassisNotEmpty: nodes are still in the chassis."""
    try:
        with context_manager.writer.using(context) as session:
            chassis_id = _row(session, uuid)['id']
            has_nodes = session.execute(
                sa.select(Node.id)
                .where(Node.chassis_id == chassis_id)
                .limit(1)
            ).first()
            if has_nodes is not None:
                raise exception.ChassisNotEmpty(chassis=uuid)
            session.execute(sa.delete(Chassis).where(Chassis.id == chassis_id))
    except db_exc.DBReferenceError:
        # A node joined the chassis since the check: its foreign key
        # refused the delete.
        raise exception.ChassisNotEmpty(chassis=uuid)


@retry_on_disconnect
def chassis_list(
    context: RequestContext,
    limit: int | None = None,
    marker: str | None = None,
    sort_key: str = 'id',
    sort_dir: str = 'asc',
) -> list[dict[str, Any]]:
    """One page of chassis in one query; ``marker`` is the uuid of the
    last one of the previous page.

    :raises InvalidParameterValue: a sort key or direction not allowed.
    :raises ChassisNotFound: an unknown marker.
    """
    check_sort(sort_key, sort_dir, SORT_KEYS)
    column = getattr(Chassis, sort_key)
    descending = sort_dir == 'desc'
    keys = [sa.case((column.is_(None), 1), else_=0), column, Chassis.id]
    query = sa.select(Chassis.__table__).order_by(
        *[key.desc() if descending else key.asc() for key in keys]
    )
    with context_manager.reader.using(context) as session:
        if marker is not None:
            value, mark_id = _mark(session, column, marker)
            query = query.where(_after(column, value, mark_id, descending))
        if limit is not None:
            query = query.limit(limit)
        return [dict(row) for row in session.execute(query).mappings()]


def _mark(session: Any, column: Any, marker: str) -> tuple[Any, int]:
    mark = session.execute(
        sa.select(column, Chassis.id).where(Chassis.uuid == marker)
    ).first()
    if mark is None:
        raise exception.ChassisNotFound(chassis=marker)
    return mark[0], mark[1]


def _after(column: Any, value: Any, mark_id: int, descending: bool) -> Any:
    """Rows after the marker in (NULLs last, column, id) order."""
    if value is None:
        tail = sa.and_(
            column.is_(None),
            Chassis.id < mark_id if descending else Chassis.id > mark_id,
        )
        return sa.or_(column.is_not(None), tail) if descending else tail
    beyond = column < value if descending else column > value
    same = sa.and_(
        column == value,
        Chassis.id < mark_id if descending else Chassis.id > mark_id,
    )
    return (
        sa.or_(beyond, same)
        if descending
        else sa.or_(beyond, same, column.is_(None))
    )


@retry_on_disconnect
def uuids_of(
    context: RequestContext, chassis_ids: Iterable[int | None]
) -> dict[int, str]:
    """chassis id -> uuid for ``chassis_ids`` (None skipped); one
    query."""
    wanted = sorted({i for i in chassis_ids if i is not None})
    if not wanted:
        return {}
    with context_manager.reader.using(context) as session:
        return dict(
            session.execute(
                sa.select(Chassis.id, Chassis.uuid).where(
                    Chassis.id.in_(wanted)
                )
            ).all()
        )
