"""Access to the instances table."""

import datetime
from typing import Any

from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import utils as sqla_utils
import sqlalchemy as sa

from lite_common import db as lite_db
from lite_common import db_retry
from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.common import states
from nova_lite.db import compute_nodes
from nova_lite.db import flavors
from nova_lite.db import instance_search
from nova_lite.db import models
from nova_lite.db import server_groups
from nova_lite.db import tags
from nova_lite.db.api import as_dict
from nova_lite.db.api import context_manager
from nova_lite.db.api import retried

INST = models.Instance
# Column attribute for each key whose attribute name differs.
_ATTR = {'metadata': 'metadata_'}
# Columns that place an instance; they change together (checked here,
# on the conductor, in the transaction that writes them).
PLACEMENT = frozenset(('host', 'node', 'compute_id'))
SOFT_DELETED = 'soft-delete'


def _attr_values(values: dict[str, Any]) -> dict[str, Any]:
    return {_ATTR.get(k, k): v for k, v in values.items()}


@retried
def instance_create(
    context: RequestContext, values: dict[str, Any]
) -> dict[str, Any]:
    with context_manager.writer.using(context) as session:
        row = INST(**_attr_values(flavors.with_type_id(session, values)))
        session.add(row)
        session.flush()
        if PLACEMENT.intersection(values):
            check_placement(session, row.uuid)
        return as_dict(row)


@retried
def instance_get_by_uuid(
    context: RequestContext, uuid: str, read_deleted: bool = False
) -> dict[str, Any]:
    with context_manager.reader.using(context) as session:
        query = sa.select(INST).where(INST.uuid == uuid)
        if not read_deleted:
            query = query.where(INST.deleted == 0)
        row = session.scalars(query).first()
        if row is None:
            raise exception.InstanceNotFound(instance_id=uuid)
        return as_dict(row)


def _deleted_filtered(query: Any, filters: dict[str, Any]) -> Any:
    """``deleted``: live and deleted alike; ``deleted_only``: deleted
    and soft-deleted ones (an admin's ``?deleted=true``);
    ``hide_soft_deleted``: live ones but SOFT_DELETED (a server list by
    default, as upstream); neither: live ones."""
    if filters.get('deleted_only'):
        return query.where(
            sa.or_(INST.deleted != 0, INST.vm_state == SOFT_DELETED)
        )
    if filters.get('deleted'):
        return query
    query = query.where(INST.deleted == 0)
    if filters.get('hide_soft_deleted'):
        query = query.where(INST.vm_state != SOFT_DELETED)
    return query


def _filtered(query: Any, filters: dict[str, Any]) -> Any:
    """Apply list filters; each key is a documented filter name."""
    query = _deleted_filtered(query, filters)
    for key in (
        'project_id',
        'user_id',
        'host',
        'node',
        'compute_id',
        'image_ref',
        'key_name',
        'availability_zone',
        'instance_type_id',
        'locked',
    ):
        value = filters.get(key)
        if isinstance(value, (list, tuple)):
            # (compute_id: the instances of an agent's nodes, one query)
            query = query.where(getattr(INST, key).in_(value))
        elif value is not None:
            query = query.where(getattr(INST, key) == value)
    if filters.get('uuid'):
        query = query.where(INST.uuid.in_(filters['uuid']))
    if filters.get('vm_state'):
        query = query.where(INST.vm_state.in_(filters['vm_state']))
    if filters.get('task_state'):
        query = query.where(INST.task_state.in_(filters['task_state']))
    if filters.get('name'):
        # A regular expression, searched (REGEXP on MariaDB, ~ on
        # PostgreSQL, Python's re on SQLite), as upstream.
        query = query.where(INST.display_name.regexp_match(filters['name']))
    if filters.get('hostname'):
        query = query.where(INST.hostname.regexp_match(filters['hostname']))
    if filters.get('changes_since'):
        query = query.where(INST.updated_at >= filters['changes_since'])
    if filters.get('changes_before'):
        query = query.where(INST.updated_at <= filters['changes_before'])
    for clause in tags.filter_clauses(filters):
        query = query.where(clause)
    for clause in instance_search.clauses(filters):
        query = query.where(clause)
    return query


#: The order of a list without sort keys, and the keys every order
#: ends with (upstream's ``process_sort_params``): newest first.
DEFAULT_SORT = (('created_at', 'desc'), ('id', 'desc'))


def sort_order(keys: list[str], dirs: list[str]) -> list[tuple[str, str]]:
    """(key, dir) pairs as upstream orders a list: a missing direction is
    the first one given (else ``desc``), and ``created_at`` and ``id``
    end every order. Raises Invalid for a direction other than asc or
    desc, or more directions than keys."""
    if any(d not in ('asc', 'desc') for d in dirs):
        raise exception.Invalid(
            'Invalid input received: Unknown sort direction, must be '
            "'desc' or 'asc'"
        )
    if len(dirs) > len(keys):
        raise exception.Invalid(
            'Invalid input received: Sort direction size exceeds sort key size'
        )
    default = dirs[0] if dirs else 'desc'
    order = [
        (k, dirs[i] if i < len(dirs) else default)
        for i, k in enumerate(keys or ['created_at'])
    ]
    for key, _ in DEFAULT_SORT:
        if key not in dict(order):
            order.append((key, default))
    return order


@retried
def instance_get_all(
    context: RequestContext,
    filters: dict[str, Any],
    limit: int | None = None,
    marker: str | None = None,
    sort: list[tuple[str, str]] | None = None,
) -> list[dict[str, Any]]:
    """Instances in ``sort`` order (column, asc/desc; newest first by
    default), paged by marker uuid."""
    sort = sort or list(DEFAULT_SORT)
    with context_manager.reader.using(context) as session:
        query = _filtered(sa.select(INST.__table__), filters)
        mark = None
        if marker is not None:
            mark = session.execute(
                sa.select(*(getattr(INST, k) for k, _ in sort)).where(
                    INST.uuid == marker
                )
            ).first()
            if mark is None:
                raise exception.InstanceNotFound(instance_id=marker)
        query = sqla_utils.paginate_query(
            query,
            INST,
            limit,
            [k for k, _ in sort],
            marker=mark,
            sort_dirs=[d for _, d in sort],
        )
        # A Core query on the session's connection: no ORM loading.
        result = session.connection().execute(query)
        keys = list(result.keys())
        return [dict(zip(keys, row, strict=True)) for row in result.all()]


@retried
def instance_ids_by_compute_id(
    context: RequestContext, compute_ids: list[int]
) -> dict[int, list[Any]]:
    """compute node id -> [(instance id, uuid)] of its live instances,
    oldest first, in one query."""
    found: dict[int, list[Any]] = {}
    if not compute_ids:
        return found
    with context_manager.reader.using(context) as session:
        rows = session.execute(
            sa.select(INST.compute_id, INST.id, INST.uuid)
            .where(INST.compute_id.in_(compute_ids), INST.deleted == 0)
            .order_by(INST.id)
        )
        for compute_id, inst_id, uuid in rows:
            found.setdefault(compute_id, []).append((inst_id, uuid))
    return found


@retried
def count_on_hosts(context: RequestContext, hosts: list[str]) -> int:
    """How many live instances are on ``hosts``, in one query."""
    if not hosts:
        return 0
    with context_manager.reader.using(context) as session:
        return int(
            session.execute(
                sa.select(sa.func.count())
                .select_from(INST)
                .where(INST.host.in_(hosts), INST.deleted == 0)
            ).scalar_one()
        )


def _as_list(expected: Any) -> list[Any]:
    return (
        list(expected) if isinstance(expected, (list, tuple)) else [expected]
    )


def task_state_in(expected: Any) -> Any:
    """SQL condition: task_state is one of ``expected`` (None included)."""
    states = _as_list(expected)
    known = [s for s in states if s is not None]
    clauses = [INST.task_state.in_(known)] if known else []
    if None in states:
        clauses.append(INST.task_state.is_(None))
    return sa.or_(*clauses) if clauses else sa.false()


#: The tasks in which a shelved_offloaded instance may be placed: its
#: unshelve claimed a node and the node's agent spawns it.
UNSHELVE_TASKS = ('unshelving', 'spawning')


def check_placement(session: Any, uuid: str) -> None:
    """The instance's (host, node, compute_id) name one live compute node
    of that host, or node and compute_id are both unset; a
    shelved_offloaded instance has all three unset (but while its
    unshelve places it). Raises ObjectActionError otherwise (the
    transaction then rolls back)."""
    row = session.execute(
        sa.select(
            INST.host,
            INST.node,
            INST.compute_id,
            INST.vm_state,
            INST.task_state,
        ).where(INST.uuid == uuid, INST.deleted == 0)
    ).one()
    placed = (row.host, row.node, row.compute_id) != (None, None, None)
    if (
        row.vm_state == 'shelved_offloaded'
        and placed
        and row.task_state not in UNSHELVE_TASKS
    ):
        raise exception.ObjectActionError(
            action='save',
            reason=f'instance {uuid}: a shelved_offloaded instance is on '
            f'no host (host, node and compute_id NULL) until its unshelve '
            f'places it; got host {row.host!r}, node {row.node!r}, '
            f'compute_id {row.compute_id}',
        )
    if row.node is None and row.compute_id is None:
        return
    cn = models.ComputeNode
    node = None
    if row.compute_id is not None:
        node = session.execute(
            sa.select(cn.host, cn.hypervisor_hostname).where(
                cn.id == row.compute_id, cn.deleted == 0
            )
        ).first()
    if node is None or (node.host, node.hypervisor_hostname) != (
        row.host,
        row.node,
    ):
        named = (
            'no live compute node'
            if node is None
            else f'compute node {node.host}/{node.hypervisor_hostname}'
        )
        raise exception.ObjectActionError(
            action='save',
            reason=f'instance {uuid}: host {row.host!r}, node {row.node!r} '
            f'and compute_id {row.compute_id} must name one compute node '
            f'of that host (compute_id names {named})',
        )


def _own_change(
    session: Any, uuid: str, values: dict[str, Any]
) -> dict[str, Any] | None:
    """The instance, when this update runs again after an attempt whose
    commit went unseen (:func:`lite_common.db_retry.rechecking`) and
    the row already holds ``values``: that attempt's change was stored,
    the compare-and-swap succeeded then. None otherwise."""
    if not db_retry.rechecking():
        return None
    row = session.scalars(
        sa.select(INST).where(INST.uuid == uuid, INST.deleted == 0)
    ).first()
    if row is None or not all(
        _same(getattr(row, attr), value)
        for attr, value in _attr_values(values).items()
    ):
        return None
    return as_dict(row)


def _same(stored: Any, wanted: Any) -> bool:
    """``stored`` (read back) is ``wanted`` (written); a timestamp may
    have lost its microseconds on the way (MariaDB DATETIME)."""
    if isinstance(stored, datetime.datetime) and isinstance(
        wanted, datetime.datetime
    ):
        return stored.replace(microsecond=0) == wanted.replace(microsecond=0)
    return bool(stored == wanted)


def _raise_unchanged(session: Any, uuid: str, expected: Any) -> None:
    """After a conditional UPDATE that changed nothing: why."""
    actual = session.execute(
        sa.select(INST.task_state).where(INST.uuid == uuid, INST.deleted == 0)
    ).first()
    if actual is None:
        raise exception.InstanceNotFound(instance_id=uuid)
    raise exception.UnexpectedTaskState(
        instance_uuid=uuid,
        expected=_as_list(expected),
        actual=actual.task_state,
    )


@retried
def stalled_builds(
    context: RequestContext, older_than: Any, limit: int
) -> list[str]:
    """uuids of instances still waiting to be scheduled (building,
    task ``scheduling``, on no host) whose record last changed before
    ``older_than``; oldest first."""
    changed = sa.func.coalesce(INST.updated_at, INST.created_at)
    with context_manager.reader.using(context) as session:
        return list(
            session.scalars(
                sa.select(INST.uuid)
                .where(
                    INST.deleted == 0,
                    INST.host.is_(None),
                    INST.vm_state == 'building',
                    INST.task_state == 'scheduling',
                    changed < older_than,
                )
                .order_by(changed, INST.id)
                .limit(limit)
            )
        )


@retried
def stalled_unshelves(
    context: RequestContext, older_than: Any, limit: int
) -> list[str]:
    """uuids of instances whose unshelve waits for the conductor (task
    ``unshelving``: shelved, or offloaded and on no host) whose record
    last changed before ``older_than``; oldest first. (One placed on a
    host is that agent's to spawn.)"""
    changed = sa.func.coalesce(INST.updated_at, INST.created_at)
    with context_manager.reader.using(context) as session:
        return list(
            session.scalars(
                sa.select(INST.uuid)
                .where(
                    INST.deleted == 0,
                    INST.task_state == 'unshelving',
                    sa.or_(INST.vm_state == 'shelved', INST.host.is_(None)),
                    changed < older_than,
                )
                .order_by(changed, INST.id)
                .limit(limit)
            )
        )


# uuids per IN list when checking what a hypervisor holds.
_UUID_BATCH = 1000


@retried
def instance_presence(
    context: RequestContext, uuids: list[str]
) -> dict[str, str]:
    """uuid -> RECORD_LIVE (a live record) or RECORD_DELETED (only deleted
    records, see :mod:`nova_lite.common.states`);
    uuids with no record at all are absent. A few queries, whatever the
    count."""
    found: dict[str, str] = {}
    with context_manager.reader.using(context) as session:
        for start in range(0, len(uuids), _UUID_BATCH):
            batch = uuids[start : start + _UUID_BATCH]
            rows = session.execute(
                sa.select(INST.uuid, sa.func.min(INST.deleted))
                .where(INST.uuid.in_(batch))
                .group_by(INST.uuid)
            )
            for uuid, deleted in rows:
                found[uuid] = (
                    states.RECORD_LIVE
                    if deleted == 0
                    else states.RECORD_DELETED
                )
    return found


@retried(rechecks=True)  # deadlocks too: see compute_nodes
def instance_update(
    context: RequestContext,
    uuid: str,
    values: dict[str, Any],
    expected_task_state: Any = ...,
) -> dict[str, Any]:
    """Update one instance in one conditional UPDATE.

    With ``expected_task_state`` (a value or a list, None included) the
    UPDATE only matches while task_state is one of them: a
    compare-and-swap that two writers cannot both win. A change of
    host, node or compute_id is checked to name one compute node; a
    change of compute_id (or deleted) refreshes the usage of the node
    left and the node joined.
    """
    refresh = 'compute_id' in values or 'deleted' in values
    with context_manager.writer.using(context) as session:
        previous = None
        if refresh:
            # Locks the row until commit: the node left is the one read.
            previous = session.execute(
                sa.select(INST.compute_id)
                .where(INST.uuid == uuid, INST.deleted == 0)
                .with_for_update()
            ).first()
            if previous is None:
                raise exception.InstanceNotFound(instance_id=uuid)
        query = sa.update(INST).where(INST.uuid == uuid, INST.deleted == 0)
        if expected_task_state is not ...:
            query = query.where(task_state_in(expected_task_state))
        values = flavors.with_type_id(session, values)
        try:
            result = session.execute(
                query.values(_attr_values(values)).execution_options(
                    synchronize_session=False
                )
            )
        except db_exc.DBReferenceError:
            raise exception.ObjectActionError(
                action='save',
                reason=f'instance {uuid}: compute_id '
                f'{values.get("compute_id")} names no compute node',
            ) from None
        if result.rowcount != 1:
            mine = _own_change(session, uuid, values)
            if mine is not None:
                return mine
            _raise_unchanged(session, uuid, expected_task_state)
        # A save that offloads must leave the instance on no host; other
        # vm_state changes cannot break the rule (no extra query).
        if (
            PLACEMENT.intersection(values)
            or values.get('vm_state') == 'shelved_offloaded'
        ):
            check_placement(session, uuid)
        row = session.scalars(
            sa.select(INST)
            .where(INST.uuid == uuid)
            .execution_options(populate_existing=True)
        ).one()
        if previous is not None:
            ids = {previous.compute_id, row.compute_id} - {None}
            if ids:
                session.execute(compute_nodes.usage_refresh_statement(ids))
        return as_dict(row)


@retried(rechecks=True)
def instance_destroy(context: RequestContext, uuid: str) -> dict[str, Any]:
    """Soft-delete an instance and give its resources back to its node.
    Run again after an attempt whose commit went unseen, it finds the
    instance deleted: that attempt deleted it."""
    now = lite_db.utcnow()
    with context_manager.writer.using(context) as session:
        row = session.scalars(
            sa.select(INST).where(INST.uuid == uuid, INST.deleted == 0)
        ).first()
        if row is None and db_retry.rechecking():
            gone = session.scalars(
                sa.select(INST).where(INST.uuid == uuid, INST.deleted != 0)
            ).first()
            if gone is not None:
                return as_dict(gone)
        if row is None:
            raise exception.InstanceNotFound(instance_id=uuid)
        row.deleted = row.id
        row.deleted_at = now
        row.terminated_at = now
        row.vm_state = 'deleted'
        row.task_state = None
        session.flush()
        session.execute(server_groups.forget_instance_statement(uuid))
        if row.compute_id is not None:
            session.execute(
                compute_nodes.usage_refresh_statement([row.compute_id])
            )
        return as_dict(row)


def _reclaimable(older_than: Any, hosts: list[str]) -> list[Any]:
    return [
        INST.deleted == 0,
        INST.vm_state == SOFT_DELETED,
        INST.task_state.is_(None),
        INST.host.in_(hosts),
        # As upstream, a soft-deleted server without a deletion time
        # (a restore that failed) is old enough.
        sa.or_(INST.deleted_at.is_(None), INST.deleted_at < older_than),
    ]


@retried
def claim_reclaimable(
    context: RequestContext, older_than: Any, hosts: list[str], limit: int
) -> list[dict[str, Any]]:
    """Soft-deleted instances of ``hosts`` deleted before ``older_than``
    (at most ``limit``, oldest first) set to task ``deleting`` in one
    transaction and returned: a restore that comes later is refused,
    and a conductor that runs the same pass at once (MariaDB,
    PostgreSQL: the rows are locked) claims none of them again."""
    if not hosts:
        return []
    conditions = _reclaimable(older_than, hosts)
    with context_manager.writer.using(context) as session:
        uuids = list(
            session.scalars(
                sa.select(INST.uuid)
                .where(*conditions)
                .order_by(INST.deleted_at, INST.id)
                .limit(limit)
                .with_for_update()
            )
        )
        if not uuids:
            return []
        session.execute(
            sa.update(INST)
            .where(INST.uuid.in_(uuids), *conditions)
            .values(task_state='deleting', updated_at=lite_db.utcnow())
            .execution_options(synchronize_session=False)
        )
        result = session.connection().execute(
            sa.select(INST.__table__).where(
                INST.uuid.in_(uuids),
                INST.deleted == 0,
                INST.task_state == 'deleting',
            )
        )
        keys = list(result.keys())
        return [dict(zip(keys, row, strict=True)) for row in result.all()]
