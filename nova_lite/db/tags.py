"""Server tags: read in batches (one query for a page of servers),
written under the instance's row lock so that the 50-tag limit holds
against concurrent adds, and turned into list filters (all of, any of,
none of...) as subqueries, never per-row queries."""

from collections.abc import Iterable
from typing import Any

import sqlalchemy as sa

from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.db import models
from nova_lite.db.api import context_manager
from nova_lite.db.api import retried

TAG = models.Tag
INST = models.Instance
MAX_TAGS = 50


@retried
def for_servers(
    context: RequestContext, uuids: Iterable[str]
) -> dict[str, list[str]]:
    """uuid -> its tags, sorted, in one query."""
    wanted = list(uuids)
    found: dict[str, list[str]] = {uuid: [] for uuid in wanted}
    if not wanted:
        return found
    with context_manager.reader.using(context) as session:
        for uuid, tag in session.execute(
            sa.select(TAG.resource_id, TAG.tag)
            .where(TAG.resource_id.in_(wanted))
            .order_by(TAG.tag)
        ):
            found[uuid].append(tag)
    return found


def _lock_live(session: Any, uuid: str) -> None:
    found = session.execute(
        sa.select(INST.id)
        .where(INST.uuid == uuid, INST.deleted == 0)
        .with_for_update()
    ).first()
    if found is None:
        raise exception.InstanceNotFound(instance_id=uuid)


@retried
def add(context: RequestContext, uuid: str, tag: str) -> bool:
    """Tag the server; False if it had the tag.

    :raises InstanceNotFound, TooManyTags:
    """
    with context_manager.writer.using(context) as session:
        _lock_live(session, uuid)
        tags = set(
            session.scalars(sa.select(TAG.tag).where(TAG.resource_id == uuid))
        )
        if tag in tags:
            return False
        if len(tags) >= MAX_TAGS:
            raise exception.TooManyTags(limit=MAX_TAGS)
        session.execute(sa.insert(TAG).values(resource_id=uuid, tag=tag))
        return True


@retried
def replace(context: RequestContext, uuid: str, tags: list[str]) -> list[str]:
    """The server's tags become ``tags`` (deduplicated); returns them."""
    unique = sorted(set(tags))
    if len(unique) > MAX_TAGS:
        raise exception.TooManyTags(limit=MAX_TAGS)
    with context_manager.writer.using(context) as session:
        _lock_live(session, uuid)
        session.execute(sa.delete(TAG).where(TAG.resource_id == uuid))
        if unique:
            session.execute(
                sa.insert(TAG),
                [{'resource_id': uuid, 'tag': tag} for tag in unique],
            )
    return unique


@retried
def delete(context: RequestContext, uuid: str, tag: str | None = None) -> None:
    """Remove one tag (or all).

    :raises InstanceTagNotFound: the server has no such tag.
    """
    with context_manager.writer.using(context) as session:
        _lock_live(session, uuid)
        query = sa.delete(TAG).where(TAG.resource_id == uuid)
        if tag is not None:
            query = query.where(TAG.tag == tag)
        if session.execute(query).rowcount == 0 and tag is not None:
            raise exception.InstanceTagNotFound(server_id=uuid, tag=tag)


def _having_all(tags: list[str]) -> Any:
    return (
        sa.select(TAG.resource_id)
        .where(TAG.tag.in_(tags))
        .group_by(TAG.resource_id)
        .having(sa.func.count(sa.distinct(TAG.tag)) == len(set(tags)))
    )


def _having_any(tags: list[str]) -> Any:
    return sa.select(TAG.resource_id).where(TAG.tag.in_(tags))


def filter_clauses(filters: dict[str, Any]) -> list[Any]:
    """The WHERE clauses of the tag filters of a server list."""
    clauses = []
    if filters.get('tags'):
        clauses.append(INST.uuid.in_(_having_all(filters['tags'])))
    if filters.get('tags-any'):
        clauses.append(INST.uuid.in_(_having_any(filters['tags-any'])))
    if filters.get('not-tags'):
        clauses.append(INST.uuid.not_in(_having_all(filters['not-tags'])))
    if filters.get('not-tags-any'):
        clauses.append(INST.uuid.not_in(_having_any(filters['not-tags-any'])))
    return clauses
