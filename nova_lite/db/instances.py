"""Access to the instances table."""

from typing import Any

import sqlalchemy as sa

from lite_common import db as lite_db
from nova_lite import exception
from nova_lite.db import compute_nodes
from nova_lite.db import models
from nova_lite.db.api import as_dict
from nova_lite.db.api import context_manager

INST = models.Instance
# Column attribute for each key whose attribute name differs.
_ATTR = {'metadata': 'metadata_'}


def _attr_values(values: dict[str, Any]) -> dict[str, Any]:
    return {_ATTR.get(k, k): v for k, v in values.items()}


def instance_create(context: Any, values: dict[str, Any]) -> dict[str, Any]:
    with context_manager.writer.using(context) as session:
        row = INST(**_attr_values(values))
        session.add(row)
        session.flush()
        return as_dict(row)


def instance_get_by_uuid(context: Any, uuid: str,
                         read_deleted: bool = False) -> dict[str, Any]:
    with context_manager.reader.using(context) as session:
        query = sa.select(INST).where(INST.uuid == uuid)
        if not read_deleted:
            query = query.where(INST.deleted == 0)
        row = session.scalars(query).first()
        if row is None:
            raise exception.InstanceNotFound(instance_id=uuid)
        return as_dict(row)


def _filtered(query: Any, filters: dict[str, Any]) -> Any:
    """Apply list filters; each key is a documented filter name."""
    if not filters.get('deleted'):
        query = query.where(INST.deleted == 0)
    for key in ('project_id', 'user_id', 'host', 'node', 'compute_id',
                'image_ref', 'key_name', 'availability_zone'):
        if filters.get(key) is not None:
            query = query.where(getattr(INST, key) == filters[key])
    if filters.get('uuid'):
        query = query.where(INST.uuid.in_(filters['uuid']))
    if filters.get('vm_state'):
        query = query.where(INST.vm_state.in_(filters['vm_state']))
    if filters.get('task_state'):
        query = query.where(INST.task_state.in_(filters['task_state']))
    if filters.get('name'):
        query = query.where(INST.display_name.contains(
            filters['name'], autoescape=True))
    if filters.get('changes_since'):
        query = query.where(INST.updated_at >= filters['changes_since'])
    return query


def instance_get_all(context: Any, filters: dict[str, Any],
                     limit: int | None = None,
                     marker: str | None = None) -> list[dict[str, Any]]:
    """Instances newest first (created_at, id), paged by marker uuid."""
    with context_manager.reader.using(context) as session:
        query = _filtered(sa.select(INST.__table__), filters)
        if marker is not None:
            mark = session.execute(
                sa.select(INST.created_at, INST.id).where(
                    INST.uuid == marker)).first()
            if mark is None:
                raise exception.InstanceNotFound(instance_id=marker)
            query = query.where(sa.or_(
                INST.created_at < mark.created_at,
                sa.and_(INST.created_at == mark.created_at,
                        INST.id < mark.id)))
        query = query.order_by(INST.created_at.desc(), INST.id.desc())
        if limit is not None:
            query = query.limit(limit)
        # A Core query on the session's connection: no ORM loading.
        result = session.connection().execute(query)
        keys = list(result.keys())
        return [dict(zip(keys, row, strict=True)) for row in result.all()]


def instance_ids_by_compute_id(
        context: Any, compute_ids: list[int]) -> dict[int, list[Any]]:
    """compute node id -> [(instance id, uuid)] of its live instances,
    oldest first, in one query."""
    found: dict[int, list[Any]] = {}
    if not compute_ids:
        return found
    with context_manager.reader.using(context) as session:
        rows = session.execute(
            sa.select(INST.compute_id, INST.id, INST.uuid)
            .where(INST.compute_id.in_(compute_ids), INST.deleted == 0)
            .order_by(INST.id))
        for compute_id, inst_id, uuid in rows:
            found.setdefault(compute_id, []).append((inst_id, uuid))
    return found


@compute_nodes.retry_on_deadlock
def instance_update(context: Any, uuid: str, values: dict[str, Any],
                    expected_task_state: Any = ...) -> dict[str, Any]:
    """Update one instance; with ``expected_task_state`` it is a
    compare-and-swap on task_state (a list allows several)."""
    with context_manager.writer.using(context) as session:
        row = session.scalars(
            sa.select(INST).where(INST.uuid == uuid, INST.deleted == 0)
        ).first()
        if row is None:
            raise exception.InstanceNotFound(instance_id=uuid)
        if expected_task_state is not ...:
            expected = (expected_task_state
                        if isinstance(expected_task_state, (list, tuple))
                        else [expected_task_state])
            if row.task_state not in expected:
                raise exception.UnexpectedTaskState(
                    instance_uuid=uuid, expected=expected,
                    actual=row.task_state)
        previous_node = row.compute_id
        for key, value in _attr_values(values).items():
            setattr(row, key, value)
        session.flush()
        if 'compute_id' in values or 'deleted' in values:
            # Both the node left and the node joined get fresh usage.
            ids = {previous_node, row.compute_id} - {None}
            if ids:
                session.execute(compute_nodes.usage_refresh_statement(ids))
        return as_dict(row)


@compute_nodes.retry_on_deadlock
def instance_destroy(context: Any, uuid: str) -> dict[str, Any]:
    """Soft-delete an instance and give its resources back to its node."""
    now = lite_db.utcnow()
    with context_manager.writer.using(context) as session:
        row = session.scalars(
            sa.select(INST).where(INST.uuid == uuid, INST.deleted == 0)
        ).first()
        if row is None:
            raise exception.InstanceNotFound(instance_id=uuid)
        row.deleted = row.id
        row.deleted_at = now
        row.terminated_at = now
        row.vm_state = 'deleted'
        row.task_state = None
        session.flush()
        if row.compute_id is not None:
            session.execute(
                compute_nodes.usage_refresh_statement([row.compute_id]))
        return as_dict(row)

