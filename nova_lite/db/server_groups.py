"""Access to server groups (upstream's instance groups) and their
members.

A member row is written when its server is created and soft-deleted
with the server (:func:`forget_instance_statement`, run by
``instances.instance_destroy`` in its transaction). Groups are read
with their members in two queries whatever their number.
"""

from typing import Any

from oslo_utils import uuidutils
import sqlalchemy as sa

from lite_common import db as lite_db
from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.db import models
from nova_lite.db import quotas
from nova_lite.db.api import as_dict
from nova_lite.db.api import context_manager
from nova_lite.db.api import retried

GROUP = models.InstanceGroup
MEMBER = models.InstanceGroupMember
INST = models.Instance


def _load(session: Any, rows: list[Any]) -> list[dict[str, Any]]:
    """Groups as dicts with ``members``: the uuids of live servers."""
    members: dict[int, list[str]] = {row.id: [] for row in rows}
    if members:
        for group_id, uuid in session.execute(
            sa.select(MEMBER.group_id, MEMBER.instance_uuid)
            .join(INST, INST.uuid == MEMBER.instance_uuid)
            .where(
                MEMBER.group_id.in_(list(members)),
                MEMBER.deleted == 0,
                INST.deleted == 0,
            )
            .order_by(MEMBER.id)
        ):
            members[group_id].append(uuid)
    return [dict(as_dict(row), members=members[row.id]) for row in rows]


@retried
def create(context: RequestContext, values: dict[str, Any]) -> dict[str, Any]:
    """A new group of ``values['project_id']``, within the project's
    ``server_groups`` quota (checked under its quota lock row, as key
    pairs are). :raises ServerGroupLimitExceeded:"""
    project_id = values['project_id']
    quotas.ensure_lock_row(context, project_id)
    with context_manager.writer.using(context) as session:
        quotas.lock(session, project_id)
        limit = quotas.limits(session, project_id)['server_groups']
        count = session.execute(
            sa.select(sa.func.count())
            .select_from(GROUP)
            .where(GROUP.project_id == project_id, GROUP.deleted == 0)
        ).scalar_one()
        if limit != quotas.UNLIMITED and count >= limit:
            raise exception.ServerGroupLimitExceeded()
        row = GROUP(uuid=uuidutils.generate_uuid(), **values)
        session.add(row)
        session.flush()
        return _load(session, [row])[0]


def _live(uuid: str) -> Any:
    return sa.and_(GROUP.uuid == uuid, GROUP.deleted == 0)


@retried
def get(context: RequestContext, uuid: str) -> dict[str, Any]:
    """:raises InstanceGroupNotFound:"""
    with context_manager.reader.using(context) as session:
        row = session.scalars(sa.select(GROUP).where(_live(uuid))).first()
        if row is None:
            raise exception.InstanceGroupNotFound(group_uuid=uuid)
        return _load(session, [row])[0]


@retried
def get_all(
    context: RequestContext,
    project_id: str | None,
    limit: int | None,
    offset: int,
) -> list[dict[str, Any]]:
    """The groups of ``project_id`` (None: of every project), oldest
    first."""
    with context_manager.reader.using(context) as session:
        query = sa.select(GROUP).where(GROUP.deleted == 0)
        if project_id is not None:
            query = query.where(GROUP.project_id == project_id)
        query = query.order_by(GROUP.id).offset(offset)
        if limit is not None:
            query = query.limit(limit)
        return _load(session, list(session.scalars(query)))


@retried
def destroy(context: RequestContext, uuid: str) -> None:
    """Soft-delete the group and its member rows.

    :raises InstanceGroupNotFound:
    """
    now = lite_db.utcnow()
    with context_manager.writer.using(context) as session:
        row = session.scalars(sa.select(GROUP).where(_live(uuid))).first()
        if row is None:
            raise exception.InstanceGroupNotFound(group_uuid=uuid)
        session.execute(
            sa.update(MEMBER)
            .where(MEMBER.group_id == row.id, MEMBER.deleted == 0)
            .values(deleted=MEMBER.id, deleted_at=now)
            .execution_options(synchronize_session=False)
        )
        row.deleted = row.id
        row.deleted_at = now


@retried
def add_members(
    context: RequestContext, group_id: int, instance_uuids: list[str]
) -> None:
    with context_manager.writer.using(context) as session:
        session.add_all(
            MEMBER(group_id=group_id, instance_uuid=uuid)
            for uuid in instance_uuids
        )


@retried
def group_of_instance(
    context: RequestContext, instance_uuid: str
) -> dict[str, Any] | None:
    """The live group ``instance_uuid`` is a member of, or None."""
    with context_manager.reader.using(context) as session:
        row = session.scalars(
            sa.select(GROUP)
            .join(MEMBER, MEMBER.group_id == GROUP.id)
            .where(
                MEMBER.instance_uuid == instance_uuid,
                MEMBER.deleted == 0,
                GROUP.deleted == 0,
            )
        ).first()
        return None if row is None else as_dict(row)


def forget_instance_statement(instance_uuid: str) -> Any:
    """UPDATE that soft-deletes the instance's member rows."""
    return (
        sa.update(MEMBER)
        .where(MEMBER.instance_uuid == instance_uuid, MEMBER.deleted == 0)
        .values(deleted=MEMBER.id, deleted_at=lite_db.utcnow())
        .execution_options(synchronize_session=False)
    )
