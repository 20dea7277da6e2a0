"""Tags of every resource (Neutron's ``standard-attr-tag``): one table,
keyed by resource type, id and tag."""

from typing import Any

import sqlalchemy as sa

from neutron_lite.db import models


def of(session: Any, kind: str, ids: list[str]) -> dict[str, list[str]]:
    """The tags of each of ``ids`` (sorted), in one query."""
    found: dict[str, list[str]] = {i: [] for i in ids}
    if not ids:
        return found
    rows = session.execute(
        sa.select(models.Tag.resource_id, models.Tag.tag)
        .where(
            models.Tag.resource_type == kind,
            models.Tag.resource_id.in_(ids),
        )
        .order_by(models.Tag.tag)
    )
    for resource_id, tag in rows:
        found[resource_id].append(tag)
    return found


def replace(
    session: Any, kind: str, resource_id: str, tags: list[str]
) -> None:
    session.execute(
        sa.delete(models.Tag).where(
            models.Tag.resource_type == kind,
            models.Tag.resource_id == resource_id,
        )
    )
    for tag in sorted(set(tags)):
        session.add(
            models.Tag(resource_type=kind, resource_id=resource_id, tag=tag)
        )


def add(session: Any, kind: str, resource_id: str, tag: str) -> None:
    exists = session.execute(
        sa.select(models.Tag.tag).where(
            models.Tag.resource_type == kind,
            models.Tag.resource_id == resource_id,
            models.Tag.tag == tag,
        )
    ).first()
    if exists is None:
        session.add(
            models.Tag(resource_type=kind, resource_id=resource_id, tag=tag)
        )


def remove(session: Any, kind: str, resource_id: str, tag: str) -> bool:
    """Whether the tag was there."""
    result = session.execute(
        sa.delete(models.Tag).where(
            models.Tag.resource_type == kind,
            models.Tag.resource_id == resource_id,
            models.Tag.tag == tag,
        )
    )
    return bool(result.rowcount)


def remove_all(session: Any, kind: str, resource_id: str) -> None:
    replace(session, kind, resource_id, [])
