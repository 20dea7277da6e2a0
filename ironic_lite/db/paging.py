"""One page of any table in (sort column, id) order, marker paging.

The marker is the uuid of the last row of the previous page; ties are
broken by id so that each row is seen once. NULLs sort after every
value ascending and before every value descending, on every backend.
"""

from typing import Any

import sqlalchemy as sa

from ironic_lite import exception


def check_sort(
    model: Any, sort_key: str, sort_dir: str, refused: tuple[str, ...] = ()
) -> Any:
    """The column of ``sort_key``.

    :raises InvalidParameterValue: not a column, a refused (JSON)
        column, or a direction other than asc and desc.
    """
    columns = model.__table__.columns
    if sort_key not in columns or sort_key in refused:
        raise exception.InvalidParameterValue(
            err=f'The sort_key value {sort_key} is an invalid field for '
            'sorting'
        )
    if sort_dir not in ('asc', 'desc'):
        raise exception.InvalidParameterValue(
            err=f'Invalid sort direction: {sort_dir}. Acceptable values '
            "are 'asc' or 'desc'"
        )
    return columns[sort_key]


def _after(column: Any, id_column: Any, mark: Any, descending: bool) -> Any:
    value, mark_id = mark
    if value is not None:
        value = sa.literal(value, column.type)
    if descending:
        if value is None:
            return sa.or_(
                column.is_not(None),
                sa.and_(column.is_(None), id_column < mark_id),
            )
        return sa.or_(
            column < value, sa.and_(column == value, id_column < mark_id)
        )
    if value is None:
        return sa.and_(column.is_(None), id_column > mark_id)
    return sa.or_(
        column > value,
        column.is_(None),
        sa.and_(column == value, id_column > mark_id),
    )


def _order(column: Any, id_column: Any, descending: bool) -> list[Any]:
    keys = [column, id_column]
    if column.nullable:
        keys.insert(0, sa.case((column.is_(None), 1), else_=0))
    return [key.desc() if descending else key.asc() for key in keys]


def page(
    session: Any,
    model: Any,
    query: Any,
    column: Any,
    descending: bool,
    limit: int | None,
    marker: str | None,
    not_found: Any,
) -> list[dict[str, Any]]:
    """Run ``query`` (a select of ``model``'s rows) for one page.

    :raises: ``not_found(marker)`` when the marker row does not exist.
    """
    table = model.__table__
    if marker is not None:
        mark = session.execute(
            sa.select(column, table.c.id).where(table.c.uuid == marker)
        ).first()
        if mark is None:
            raise not_found(marker)
        query = query.where(_after(column, table.c.id, mark, descending))
    query = query.order_by(*_order(column, table.c.id, descending))
    if limit is not None:
        query = query.limit(limit)
    return [dict(row) for row in session.execute(query).mappings()]
