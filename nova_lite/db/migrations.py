"""Access to the migrations table."""

from typing import Any

import sqlalchemy as sa

from lite_common import db as lite_db
from lite_common import db_retry
from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.common import states
from nova_lite.db import models
from nova_lite.db.api import as_dict
from nova_lite.db.api import context_manager
from nova_lite.db.api import retried

MIG = models.Migration


@retried
def migration_create(
    context: RequestContext, values: dict[str, Any]
) -> dict[str, Any]:
    with context_manager.writer.using(context) as session:
        row = MIG(**values)
        session.add(row)
        session.flush()
        return as_dict(row)


@retried
def migration_get(context: RequestContext, **filters: Any) -> dict[str, Any]:
    with context_manager.reader.using(context) as session:
        row = session.scalars(
            sa.select(MIG).where(MIG.deleted == 0).filter_by(**filters)
        ).first()
        if row is None:
            raise exception.MigrationNotFound(migration_id=str(filters))
        return as_dict(row)


@retried
def migration_update(
    context: RequestContext, migration_id: int, values: dict[str, Any]
) -> dict[str, Any]:
    with context_manager.writer.using(context) as session:
        row = session.get(MIG, migration_id)
        if row is None:
            raise exception.MigrationNotFound(migration_id=migration_id)
        for key, value in values.items():
            setattr(row, key, value)
        session.flush()
        return as_dict(row)


@retried
def migration_get_all(
    context: RequestContext,
    filters: dict[str, Any],
    limit: int | None = None,
    marker: str | None = None,
) -> list[dict[str, Any]]:
    """Migrations newest first, paged by marker uuid.

    Filters: host (source or destination), status (one or a list),
    migration_type, instance_uuid, source_compute, project_id, user_id,
    instance_uuids and migration_types (lists); changes_since and
    changes_before bound updated_at.
    """
    with context_manager.reader.using(context) as session:
        query = sa.select(MIG.__table__).where(MIG.deleted == 0)
        if filters.get('host'):
            query = query.where(
                sa.or_(
                    MIG.source_compute == filters['host'],
                    MIG.dest_compute == filters['host'],
                )
            )
        status = filters.get('status')
        if status:
            statuses = status if isinstance(status, list) else [status]
            query = query.where(MIG.status.in_(statuses))
        for key in (
            'migration_type',
            'instance_uuid',
            'source_compute',
            'project_id',
            'user_id',
        ):
            if filters.get(key):
                query = query.where(getattr(MIG, key) == filters[key])
        if filters.get('instance_uuids'):
            query = query.where(
                MIG.instance_uuid.in_(filters['instance_uuids'])
            )
        if filters.get('migration_types'):
            query = query.where(
                MIG.migration_type.in_(filters['migration_types'])
            )
        if filters.get('hidden') is not None:
            query = query.where(MIG.hidden == filters['hidden'])
        if filters.get('changes_since') is not None:
            query = query.where(MIG.updated_at >= filters['changes_since'])
        if filters.get('changes_before') is not None:
            query = query.where(MIG.updated_at <= filters['changes_before'])
        if marker is not None:
            mark = session.execute(
                sa.select(MIG.created_at, MIG.id).where(MIG.uuid == marker)
            ).first()
            if mark is None:
                raise exception.MigrationNotFound(migration_id=marker)
            query = query.where(
                sa.or_(
                    MIG.created_at < mark.created_at,
                    sa.and_(
                        MIG.created_at == mark.created_at, MIG.id < mark.id
                    ),
                )
            )
        query = query.order_by(MIG.created_at.desc(), MIG.id.desc())
        if limit is not None:
            query = query.limit(limit)
        return [dict(row) for row in session.execute(query).mappings()]


# An evacuation away from a host leaves a copy there until its agent
# cleans up: while the record is accepted or pre-migrating the copy is
# kept (the move may still fail), once it is done the copy is destroyed
# and the record completed. Until then the host is no scheduling
# candidate and its service cannot be deleted.
UNCLEANED_EVACUATION_STATUSES = ('accepted', 'pre-migrating', 'done')


def _rows(session: Any, query: Any) -> list[dict[str, Any]]:
    result = session.connection().execute(query)
    keys = list(result.keys())
    return [dict(zip(keys, row, strict=True)) for row in result.all()]


def _uncleaned_evacuations() -> Any:
    return sa.and_(
        MIG.deleted == 0,
        MIG.migration_type == 'evacuation',
        MIG.status.in_(UNCLEANED_EVACUATION_STATUSES),
    )


@retried
def evacuations_from(
    context: RequestContext, host: str
) -> list[dict[str, Any]]:
    """Evacuations away from ``host`` whose copy there its agent has not
    cleaned up (accepted, pre-migrating or done), in one query, whether
    or not their instance has been deleted since."""
    with context_manager.reader.using(context) as session:
        return _rows(
            session,
            sa.select(MIG.__table__)
            .where(_uncleaned_evacuations(), MIG.source_compute == host)
            .order_by(MIG.id),
        )


def uncleaned_evacuation_hosts() -> Any:
    """Subquery: the hosts that evacuations left copies on (for the
    scheduler, which does not choose them)."""
    # (NOT IN a list holding NULL would match no host at all.)
    return sa.select(MIG.source_compute).where(
        _uncleaned_evacuations(), MIG.source_compute.is_not(None)
    )


@retried
def uncleaned_evacuations_count(
    context: RequestContext, host: str
) -> dict[str, int]:
    """status -> how many evacuations from ``host`` are uncleaned."""
    with context_manager.reader.using(context) as session:
        rows = session.execute(
            sa.select(MIG.status, sa.func.count())
            .where(_uncleaned_evacuations(), MIG.source_compute == host)
            .group_by(MIG.status)
        )
        return {status: int(count) for status, count in rows}


@retried
def evacuations_to(
    context: RequestContext, host: str, node_ids: list[int]
) -> list[dict[str, Any]]:
    """Evacuations to this host left unfinished: claimed by one of its
    nodes (pre-migrating), or accepted with this host chosen as the
    destination but not claimed yet."""
    with context_manager.reader.using(context) as session:
        return _rows(
            session,
            sa.select(MIG.__table__)
            .where(
                MIG.deleted == 0,
                MIG.migration_type == 'evacuation',
                sa.or_(
                    sa.and_(
                        MIG.status == 'pre-migrating',
                        MIG.dest_compute_id.in_(node_ids),
                    ),
                    sa.and_(
                        MIG.status == 'accepted',
                        MIG.dest_compute == host,
                        MIG.dest_node.is_not(None),
                    ),
                ),
            )
            .order_by(MIG.id),
        )


@retried
def cold_moves_in_flight(
    context: RequestContext, host: str, node_ids: list[int]
) -> list[dict[str, Any]]:
    """Cold migrations and resizes in flight from ``host`` or claimed by
    one of its nodes, oldest first, in one query."""
    with context_manager.reader.using(context) as session:
        return _rows(
            session,
            sa.select(MIG.__table__)
            .where(
                MIG.deleted == 0,
                MIG.migration_type.in_(('migration', 'resize')),
                MIG.status.in_(states.COLD_MOVES_IN_FLIGHT),
                sa.or_(
                    MIG.source_compute == host,
                    MIG.dest_compute_id.in_(node_ids),
                ),
            )
            .order_by(MIG.id),
        )


@retried
def stalled_before_destination(
    context: RequestContext, older_than: Any, limit: int
) -> list[dict[str, Any]]:
    """Moves last changed before ``older_than`` that no destination has
    claimed: evacuations ``accepted`` with no destination chosen, cold
    moves ``pre-migrating`` with no destination claimed. Oldest first."""
    changed = sa.func.coalesce(MIG.updated_at, MIG.created_at)
    with context_manager.reader.using(context) as session:
        return _rows(
            session,
            sa.select(MIG.__table__)
            .where(
                MIG.deleted == 0,
                changed < older_than,
                MIG.dest_compute_id.is_(None),
                sa.or_(
                    sa.and_(
                        MIG.migration_type == 'evacuation',
                        MIG.status == 'accepted',
                        MIG.dest_node.is_(None),
                    ),
                    sa.and_(
                        MIG.migration_type.in_(('migration', 'resize')),
                        MIG.status == 'pre-migrating',
                    ),
                ),
            )
            .order_by(changed, MIG.id)
            .limit(limit),
        )


@retried
def mark_completed(context: RequestContext, migration_ids: list[int]) -> int:
    """``done`` -> ``completed`` (the source cleaned up), in one
    statement; records in any other status are left as they are."""
    if not migration_ids:
        return 0
    with context_manager.writer.using(context) as session:
        result = session.execute(
            sa.update(MIG)
            .where(MIG.id.in_(migration_ids), MIG.status == 'done')
            .values(status='completed', updated_at=lite_db.utcnow())
            .execution_options(synchronize_session=False)
        )
        return int(result.rowcount)


def _shows(session: Any, migration_id: int, **values: Any) -> bool:
    """After a compare-and-swap that matched no row: whether it runs
    again after an attempt whose commit went unseen
    (:func:`lite_common.db_retry.rechecking`) and the record holds that
    attempt's ``values`` (the swap succeeded then)."""
    if not db_retry.rechecking():
        return False
    row = session.get(MIG, migration_id)
    return row is not None and all(
        getattr(row, key) == value for key, value in values.items()
    )


@retried(idempotent=True)  # returns the status it finds
def finish_on_destination(context: RequestContext, migration_id: int) -> str:
    """``pre-migrating`` -> ``done`` once the destination holds the
    instance; a record the source already marked ``completed`` keeps that
    status. Returns the status the record has afterwards."""
    with context_manager.writer.using(context) as session:
        session.execute(
            sa.update(MIG)
            .where(MIG.id == migration_id, MIG.status == 'pre-migrating')
            .values(status='done', updated_at=lite_db.utcnow())
            .execution_options(synchronize_session=False)
        )
        row = session.get(MIG, migration_id)
        if row is None:
            raise exception.MigrationNotFound(migration_id=migration_id)
        return str(row.status)


@retried(rechecks=True)
def set_destination(
    context: RequestContext,
    migration_id: int,
    host: str,
    node: str,
    statuses: tuple[str, ...],
) -> bool:
    """The conductor's choice of destination, once: only while the
    record is in ``statuses`` and no destination node is set yet (two
    conductors driving one move cannot both choose)."""
    with context_manager.writer.using(context) as session:
        result = session.execute(
            sa.update(MIG)
            .where(
                MIG.id == migration_id,
                MIG.deleted == 0,
                MIG.status.in_(statuses),
                MIG.dest_node.is_(None),
                MIG.dest_compute_id.is_(None),
                sa.or_(MIG.dest_compute.is_(None), MIG.dest_compute == host),
            )
            .values(
                dest_compute=host,
                dest_node=node,
                dest_host=host,
                updated_at=lite_db.utcnow(),
            )
            .execution_options(synchronize_session=False)
        )
        return int(result.rowcount) == 1 or _shows(
            session, migration_id, dest_compute=host, dest_node=node
        )


@retried
def release_destination(
    context: RequestContext,
    migration_id: int,
    host: str,
    node: str,
    max_attempts: int,
) -> bool:
    """Undo the conductor's choice of ``host``/``node`` after that
    destination refused at its claim, so that another is chosen: only
    while the record is ``pre-migrating`` with that destination chosen
    and not claimed, the destination was the scheduler's choice
    (``refused_hosts`` is a list, not NULL) and fewer than
    ``max_attempts`` hosts will have refused. ``host`` joins
    ``refused_hosts``. False otherwise (the move is then abandoned)."""
    with context_manager.writer.using(context) as session:
        refused = session.scalar(
            sa.select(MIG.refused_hosts).where(
                MIG.id == migration_id, MIG.deleted == 0
            )
        )
        if refused is None or len(refused) + 1 >= max_attempts:
            return False
        result = session.execute(
            sa.update(MIG)
            .where(
                MIG.id == migration_id,
                MIG.deleted == 0,
                MIG.status == 'pre-migrating',
                MIG.dest_compute == host,
                MIG.dest_node == node,
                # (only this destination writes the list while it
                # is chosen: the list read above is current)
                MIG.dest_compute_id.is_(None),
            )
            .values(
                dest_compute=None,
                dest_node=None,
                dest_host=None,
                refused_hosts=[*refused, host],
                updated_at=lite_db.utcnow(),
            )
            .execution_options(synchronize_session=False)
        )
        return int(result.rowcount) == 1


@retried(rechecks=True)
def migration_transition(
    context: RequestContext,
    migration_id: int,
    from_statuses: tuple[str, ...],
    status: str,
    values: dict[str, Any] | None = None,
) -> bool:
    """Compare-and-swap of the status: ``status`` (and ``values``) only
    while the record is in one of ``from_statuses``; False otherwise.
    Two operators confirming and reverting at once: one wins."""
    with context_manager.writer.using(context) as session:
        result = session.execute(
            sa.update(MIG)
            .where(
                MIG.id == migration_id,
                MIG.deleted == 0,
                MIG.status.in_(from_statuses),
            )
            .values(
                dict(values or {}, status=status, updated_at=lite_db.utcnow())
            )
            .execution_options(synchronize_session=False)
        )
        return int(result.rowcount) == 1 or _shows(
            session, migration_id, status=status
        )
