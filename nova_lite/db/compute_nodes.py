"""Access to the compute_nodes table, including resource claims."""

from typing import Any

from oslo_db import exception as db_exc
from oslo_log import log as logging
import sqlalchemy as sa

from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.common import states
from nova_lite.db import models
from nova_lite.db.api import as_dict
from nova_lite.db.api import context_manager
from nova_lite.db.api import retried
from nova_lite.db.api import soft_delete_values

LOG = logging.getLogger(__name__)
CN = models.ComputeNode


@retried
def compute_node_create(
    context: RequestContext, values: dict[str, Any]
) -> dict[str, Any]:
    """Create a node with the caller's uuid.

    A soft-deleted record with that uuid (its service was deleted while
    the agent was away) is restored instead: an agent's identity outlives
    the records an operator removes.
    """
    if not values.get('uuid'):
        raise exception.ObjectActionError(
            action='create', reason='a compute node needs its uuid'
        )
    with context_manager.writer.using(context) as session:
        row = session.scalars(
            sa.select(CN).where(CN.uuid == values['uuid'])
        ).first()
        if row is not None and not row.deleted:
            raise exception.ComputeNodeExists(node=values['uuid'])
        if row is None:
            row = CN(**values)
            session.add(row)
        else:
            LOG.info('Restoring deleted compute node %s', values['uuid'])
            values = dict(values, deleted=0, deleted_at=None)
            for key, value in values.items():
                setattr(row, key, value)
        try:
            session.flush()
        except (sa.exc.IntegrityError, db_exc.DBDuplicateEntry):
            raise exception.ComputeNodeExists(node=values['uuid'])
        return as_dict(row)


@retried
def compute_node_get(
    context: RequestContext, **filters: Any
) -> dict[str, Any]:
    """One live compute node by id, uuid, or host + hypervisor_hostname."""
    with context_manager.reader.using(context) as session:
        row = session.scalars(
            sa.select(CN).where(CN.deleted == 0).filter_by(**filters)
        ).first()
        if row is None:
            raise exception.ComputeNodeNotFound(node=str(filters))
        return as_dict(row)


@retried
def compute_node_get_deleted(
    context: RequestContext, uuid: str
) -> dict[str, Any]:
    """A soft-deleted compute node by uuid (its service was deleted)."""
    with context_manager.reader.using(context) as session:
        row = session.scalars(
            sa.select(CN)
            .where(CN.uuid == uuid, CN.deleted != 0)
            .order_by(CN.id.desc())
        ).first()
        if row is None:
            raise exception.ComputeNodeNotFound(node=uuid)
        return as_dict(row)


@retried
def compute_node_get_all(
    context: RequestContext, **filters: Any
) -> list[dict[str, Any]]:
    """Live compute nodes, filtered by column equality, in id order."""
    with context_manager.reader.using(context) as session:
        query = sa.select(CN).where(CN.deleted == 0).filter_by(**filters)
        return [as_dict(r) for r in session.scalars(query.order_by(CN.id))]


@retried
def compute_node_update(
    context: RequestContext, node_id: int, values: dict[str, Any]
) -> dict[str, Any]:
    """Update one node. A node that moves to another host (a bare-metal
    node served by another agent now) takes the host of its instances
    along in the same transaction: an instance's host, node and
    compute_id always name one compute node."""
    with context_manager.writer.using(context) as session:
        row = session.get(CN, node_id)
        if row is None or row.deleted:
            raise exception.ComputeNodeNotFound(node=node_id)
        moved = 'host' in values and values['host'] != row.host
        for key, value in values.items():
            setattr(row, key, value)
        session.flush()
        if moved:
            inst = models.Instance
            session.execute(
                sa.update(inst)
                .where(inst.compute_id == node_id, inst.deleted == 0)
                .values(host=row.host, node=row.hypervisor_hostname)
                .execution_options(synchronize_session=False)
            )
        return as_dict(row)


@retried
def compute_node_destroy(context: RequestContext, node_id: int) -> None:
    with context_manager.writer.using(context) as session:
        session.execute(
            sa.update(CN)
            .where(CN.id == node_id)
            .values(**soft_delete_values(node_id))
        )


COLD_MOVE_TYPES = ('migration', 'resize')


def _on_node(node_id: Any) -> Any:
    """Live instances placed on the node, moving to it, or moved away
    from it by a cold migration or resize not yet confirmed (usage is
    counted at the instance's current flavor)."""
    inst, mig = models.Instance, models.Migration
    # Both subqueries refer to the compute node row being refreshed (the
    # enclosing UPDATE's): correlated explicitly. Left to themselves
    # they took compute_nodes into their own FROM, and every node then
    # counted every instance moving to or from any node (found by
    # test_resize_then_revert failing under load).
    incoming = (
        sa.select(mig.instance_uuid)
        .where(
            mig.dest_compute_id == node_id,
            mig.deleted == 0,
            mig.status.in_(states.INCOMING_STATUSES),
        )
        .correlate(CN)
    )
    # Migrations name their source by host and node only.
    outgoing = (
        sa.select(mig.instance_uuid)
        .where(
            mig.source_compute == CN.host,
            mig.source_node == CN.hypervisor_hostname,
            mig.deleted == 0,
            mig.migration_type.in_(COLD_MOVE_TYPES),
            mig.status.in_(states.REVERTIBLE),
        )
        .correlate(CN)
    )
    return sa.and_(
        inst.deleted == 0,
        sa.or_(
            inst.compute_id == node_id,
            inst.uuid.in_(incoming),
            inst.uuid.in_(outgoing),
        ),
    )


def _usage_of(column: Any, node_id: Any) -> Any:
    return (
        sa.select(sa.func.coalesce(sa.func.sum(column), 0))
        .where(_on_node(node_id))
        .scalar_subquery()
    )


#: For the transactions that run :func:`usage_refresh_statement`. Its
#: subqueries read (and so lock, on MariaDB) every instance row of the
#: node, so two of them changing instances of one node can deadlock;
#: MariaDB rolls one back and it is run again (as after any transient
#: error: :data:`nova_lite.db.api.retried`).
retry_on_deadlock = retried


def usage_refresh_statement(node_ids: Any) -> Any:
    """UPDATE that recomputes usage from the instances placed on nodes.

    Claims and placement change instances and usage in one transaction,
    so the sum over live instances is the usage.
    """
    inst = models.Instance
    return (
        sa.update(CN)
        .where(CN.id.in_(node_ids))
        .values(
            vcpus_used=_usage_of(inst.vcpus, CN.id),
            memory_mb_used=_usage_of(inst.memory_mb, CN.id),
            local_gb_used=_usage_of(inst.root_gb, CN.id),
            running_vms=(
                sa.select(sa.func.count(inst.id))
                .where(_on_node(CN.id))
                .scalar_subquery()
            ),
        )
        .execution_options(synchronize_session=False)
    )


@retry_on_deadlock
def compute_node_refresh_usage(
    context: RequestContext, node_id: int
) -> dict[str, Any]:
    with context_manager.writer.using(context) as session:
        session.execute(usage_refresh_statement([node_id]))
        row = session.get(CN, node_id, populate_existing=True)
        if row is None:
            raise exception.ComputeNodeNotFound(node=node_id)
        return as_dict(row)


def fits_clause(
    vcpus: int,
    memory_mb: int,
    disk_gb: int,
    reserved_mb: int,
    reserved_disk_gb: int,
) -> Any:
    """SQL condition: the node has room for this request."""
    return sa.and_(
        CN.vcpus_used + vcpus <= CN.vcpus * CN.cpu_allocation_ratio,
        CN.memory_mb_used + memory_mb
        <= (CN.memory_mb - reserved_mb) * CN.ram_allocation_ratio,
        CN.local_gb_used + disk_gb
        <= (CN.local_gb - reserved_disk_gb) * CN.disk_allocation_ratio,
    )


#: The sums of os-hypervisors/statistics (upstream's fields).
STATISTICS = (
    'count',
    'current_workload',
    'disk_available_least',
    'free_disk_gb',
    'free_ram_mb',
    'local_gb',
    'local_gb_used',
    'memory_mb',
    'memory_mb_used',
    'running_vms',
    'vcpus',
    'vcpus_used',
)


@retried
def compute_node_statistics(context: RequestContext) -> dict[str, int]:
    """Sums over the live compute nodes of enabled, live nova-compute
    services (as upstream: a disabled host's nodes are left out), in one
    query."""
    cn, svc = models.ComputeNode, models.Service
    free_disk = cn.local_gb - cn.local_gb_used
    columns = {
        'count': sa.func.count(cn.id),
        'current_workload': sa.literal(0),
        'disk_available_least': sa.func.sum(free_disk),
        'free_disk_gb': sa.func.sum(free_disk),
        'free_ram_mb': sa.func.sum(cn.memory_mb - cn.memory_mb_used),
        **{
            name: sa.func.sum(getattr(cn, name))
            for name in (
                'local_gb',
                'local_gb_used',
                'memory_mb',
                'memory_mb_used',
                'running_vms',
                'vcpus',
                'vcpus_used',
            )
        },
    }
    query = (
        sa.select(*(col.label(name) for name, col in columns.items()))
        .select_from(cn)
        .join(svc, svc.id == cn.service_id)
        .where(
            cn.deleted == 0,
            svc.deleted == 0,
            svc.disabled == sa.false(),
            svc.binary == 'nova-compute',
        )
    )
    with context_manager.reader.using(context) as session:
        row = session.execute(query).mappings().one()
    return {name: int(row[name] or 0) for name in STATISTICS}
