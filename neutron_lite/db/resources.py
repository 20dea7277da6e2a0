"""What the three resource modules share: visibility, revision-checked
updates, rows as dicts."""

from typing import Any

import sqlalchemy as sa

from lite_common import db as lite_db
from lite_common.context import RequestContext
from neutron_lite import exception


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
