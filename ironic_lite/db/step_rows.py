"""The step rows of a resource made of steps (deploy templates,
runbooks): read for a whole page in one query, replaced in one
transaction with the resource."""

from typing import Any

import sqlalchemy as sa


def attach(
    session: Any,
    step_model: Any,
    parent_key: str,
    fields: tuple[str, ...],
    rows: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """``rows`` each with its ``steps`` (dicts of ``fields``, in the
    order they were written): one query for all of them."""
    ids = [row['id'] for row in rows]
    steps: dict[int, list[dict[str, Any]]] = {i: [] for i in ids}
    if ids:
        column = getattr(step_model, parent_key)
        for step in session.execute(
            sa.select(step_model.__table__)
            .where(column.in_(ids))
            .order_by(step_model.id)
        ).mappings():
            steps[step[parent_key]].append({key: step[key] for key in fields})
    return [{**row, 'steps': steps[row['id']]} for row in rows]


def replace(
    session: Any,
    step_model: Any,
    parent_key: str,
    fields: tuple[str, ...],
    parent_id: int,
    steps: list[dict[str, Any]],
) -> None:
    """Make ``steps`` the steps of the resource ``parent_id``."""
    session.execute(
        sa.delete(step_model).where(
            getattr(step_model, parent_key) == parent_id
        )
    )
    for step in steps:
        session.add(
            step_model(
                **{parent_key: parent_id}, **{key: step[key] for key in fields}
            )
        )
    session.flush()
