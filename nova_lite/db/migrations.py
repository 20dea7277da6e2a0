"""Access to the migrations table."""

from typing import Any

import sqlalchemy as sa

from lite_common import db as lite_db
from nova_lite import exception
from nova_lite.db import models
from nova_lite.db.api import as_dict
from nova_lite.db.api import context_manager

MIG = models.Migration


def migration_create(context: Any, values: dict[str, Any]) -> dict[str, Any]:
    with context_manager.writer.using(context) as session:
        row = MIG(**values)
        session.add(row)
        session.flush()
        return as_dict(row)


def migration_get(context: Any, **filters: Any) -> dict[str, Any]:
    with context_manager.reader.using(context) as session:
        row = session.scalars(
            sa.select(MIG).where(MIG.deleted == 0).filter_by(**filters)
        ).first()
        if row is None:
            raise exception.MigrationNotFound(migration_id=str(filters))
        return as_dict(row)


def migration_update(context: Any, migration_id: int,
                     values: dict[str, Any]) -> dict[str, Any]:
    with context_manager.writer.using(context) as session:
        row = session.get(MIG, migration_id)
        if row is None:
            raise exception.MigrationNotFound(migration_id=migration_id)
        for key, value in values.items():
            setattr(row, key, value)
        session.flush()
        return as_dict(row)


def migration_get_all(context: Any, filters: dict[str, Any],
                      limit: int | None = None,
                      marker: str | None = None) -> list[dict[str, Any]]:
    """Migrations newest first, paged by marker uuid.

    Filters: host (source or destination), status (one or a list),
    migration_type, instance_uuid, source_compute, project_id, user_id,
    instance_uuids and migration_types (lists).
    """
    with context_manager.reader.using(context) as session:
        query = sa.select(MIG.__table__).where(MIG.deleted == 0)
        if filters.get('host'):
            query = query.where(sa.or_(MIG.source_compute == filters['host'],
                                       MIG.dest_compute == filters['host']))
        status = filters.get('status')
        if status:
            statuses = status if isinstance(status, list) else [status]
            query = query.where(MIG.status.in_(statuses))
        for key in ('migration_type', 'instance_uuid', 'source_compute',
                    'project_id', 'user_id'):
            if filters.get(key):
                query = query.where(getattr(MIG, key) == filters[key])
        if filters.get('instance_uuids'):
            query = query.where(MIG.instance_uuid.in_(
                filters['instance_uuids']))
        if filters.get('migration_types'):
            query = query.where(MIG.migration_type.in_(
                filters['migration_types']))
        if filters.get('hidden') is not None:
            query = query.where(MIG.hidden == filters['hidden'])
        if marker is not None:
            mark = session.execute(
                sa.select(MIG.created_at, MIG.id).where(MIG.uuid == marker)
            ).first()
            if mark is None:
                raise exception.MigrationNotFound(migration_id=marker)
            query = query.where(sa.or_(
                MIG.created_at < mark.created_at,
                sa.and_(MIG.created_at == mark.created_at,
                        MIG.id < mark.id)))
        query = query.order_by(MIG.created_at.desc(), MIG.id.desc())
        if limit is not None:
            query = query.limit(limit)
        return [dict(row) for row in session.execute(query).mappings()]


EVACUATION_RECOVERY_STATUSES = ('accepted', 'pre-migrating', 'done')


def evacuations_from(context: Any, host: str) -> list[dict[str, Any]]:
    """Evacuations away from ``host`` that its agent must clean up, in
    one query: accepted, pre-migrating or done, whether or not their
    instance has been deleted since."""
    with context_manager.reader.using(context) as session:
        query = (sa.select(MIG.__table__)
                 .where(MIG.deleted == 0, MIG.source_compute == host,
                        MIG.migration_type == 'evacuation',
                        MIG.status.in_(EVACUATION_RECOVERY_STATUSES))
                 .order_by(MIG.id))
        result = session.connection().execute(query)
        keys = list(result.keys())
        return [dict(zip(keys, row, strict=True)) for row in result.all()]


def mark_completed(context: Any, migration_ids: list[int]) -> int:
    """Set ``completed`` on the given migrations in one statement."""
    if not migration_ids:
        return 0
    with context_manager.writer.using(context) as session:
        result = session.execute(
            sa.update(MIG).where(MIG.id.in_(migration_ids))
            .values(status='completed', updated_at=lite_db.utcnow())
            .execution_options(synchronize_session=False))
        return int(result.rowcount)


def finish_on_destination(context: Any, migration_id: int) -> str:
    """``pre-migrating`` -> ``done`` once the destination holds the
    instance; a record the source already marked ``completed`` keeps that
    status. Returns the status the record has afterwards."""
    with context_manager.writer.using(context) as session:
        session.execute(
            sa.update(MIG).where(MIG.id == migration_id,
                                 MIG.status == 'pre-migrating')
            .values(status='done', updated_at=lite_db.utcnow())
            .execution_options(synchronize_session=False))
        row = session.get(MIG, migration_id)
        if row is None:
            raise exception.MigrationNotFound(migration_id=migration_id)
        return str(row.status)


def done_evacuations_count(context: Any, host: str) -> int:
    """Evacuations from ``host`` that its agent has not cleaned up."""
    with context_manager.reader.using(context) as session:
        return int(session.execute(
            sa.select(sa.func.count()).select_from(MIG)
            .where(MIG.deleted == 0, MIG.source_compute == host,
                   MIG.migration_type == 'evacuation',
                   MIG.status == 'done')).scalar() or 0)


def migration_transition(context: Any, migration_id: int,
                         from_statuses: tuple[str, ...], status: str,
                         values: dict[str, Any] | None = None) -> bool:
    """Compare-and-swap of the status: ``status`` (and ``values``) only
    while the record is in one of ``from_statuses``; False otherwise.
    Two operators confirming and reverting at once: one wins."""
    with context_manager.writer.using(context) as session:
        result = session.execute(
            sa.update(MIG)
            .where(MIG.id == migration_id, MIG.deleted == 0,
                   MIG.status.in_(from_statuses))
            .values(dict(values or {}, status=status,
                         updated_at=lite_db.utcnow()))
            .execution_options(synchronize_session=False))
        return int(result.rowcount) == 1
