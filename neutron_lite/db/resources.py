"""What the three resource modules share: visibility, revision-checked
updates, rows as dicts, and the reads and updates of a :class:`Table`."""

from collections.abc import Callable
from collections.abc import Mapping
import dataclasses
from typing import Any

import sqlalchemy as sa

from lite_common import db as lite_db
from lite_common.context import RequestContext
from neutron_lite import exception
from neutron_lite.db import api as db_api
from neutron_lite.db import query


def row(obj: Any) -> dict[str, Any]:
    return lite_db.as_dict(obj)


def bump(
    session: Any,
    model: Any,
    resource_id: str,
    values: dict[str, Any],
    expected: int | None,
    not_found: exception.NeutronLiteException,
) -> None:
    """One conditional UPDATE: ``values``, the revision counted up and
    ``updated_at`` set; at ``expected`` revision only when given.

    :raises NotFound: no such row (``not_found``).
    :raises RevisionNumberConstraintFailed: another revision.
    """
    where = [model.id == resource_id]
    if expected is not None:
        where.append(model.revision_number == expected)
    result = session.execute(
        sa.update(model)
        .where(*where)
        .values(
            **values,
            revision_number=model.revision_number + 1,
            updated_at=lite_db.utcnow(),
        )
    )
    if result.rowcount:
        return
    if expected is None:
        # Gone meanwhile (a concurrent delete: MariaDB's snapshot may
        # still show the row to a plain read).
        raise not_found
    current = session.execute(
        sa.select(model.revision_number)
        .where(model.id == resource_id)
        .with_for_update()
    ).scalar()
    if current is None:
        raise not_found
    raise exception.RevisionNumberConstraintFailed(
        expected=expected, current=current
    )


def check_revision(current: int, expected: int | None) -> None:
    if expected is not None and current != expected:
        raise exception.RevisionNumberConstraintFailed(
            expected=expected, current=current
        )


def owned_by(context: RequestContext, column: Any) -> Any:
    return column == (context.project_id or '')


@dataclasses.dataclass(frozen=True)
class Table:
    """What the generic reads and updates need of a resource's table."""

    model: Any
    kind: str
    #: API attribute -> column (filters, sorting).
    columns: Mapping[str, Any]
    #: The rows a context sees (an SQL condition).
    visible: Callable[[RequestContext], Any]
    not_found: Callable[[str], exception.NeutronLiteException]
    #: Adds what is not a column (tags, addresses ...) to rows.
    children: Callable[[Any, list[dict[str, Any]]], None]


def one(
    session: Any, context: RequestContext, table: Table, item_id: str
) -> Any:
    """The row, if ``context`` sees it.

    :raises NotFound: (the table's).
    """
    model = table.model
    found = session.execute(
        sa.select(model).where(model.id == item_id, table.visible(context))
    ).scalar()
    if found is None:
        raise table.not_found(item_id)
    return found


@db_api.retried
def get(context: RequestContext, table: Table, item_id: str) -> dict[str, Any]:
    with db_api.context_manager.reader.using(context) as session:
        result = row(one(session, context, table, item_id))
        table.children(session, [result])
    return result


@db_api.retried
def list_rows(
    context: RequestContext,
    table: Table,
    request: query.ListRequest,
    where: Any = None,
) -> list[dict[str, Any]]:
    """The rows ``context`` sees, as ``request`` asks (and ``where``)."""
    model = table.model
    with db_api.context_manager.reader.using(context) as session:
        select = sa.select(model).where(table.visible(context))
        if where is not None:
            select = select.where(where)
        select = query.apply(
            select, model, table.kind, table.columns, request, session
        )
        rows = [row(found) for found in session.execute(select).scalars()]
        table.children(session, rows)
    return rows


@db_api.retried
def update(
    context: RequestContext,
    table: Table,
    item_id: str,
    values: dict[str, Any],
    expected: int | None = None,
) -> dict[str, Any]:
    with db_api.context_manager.writer.using(context) as session:
        one(session, context, table, item_id)
        bump(
            session,
            table.model,
            item_id,
            values,
            expected,
            table.not_found(item_id),
        )
    return get(context, table, item_id)
