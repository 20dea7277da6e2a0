"""Filling the integer links of records written without them.

Records from before the links existed (or written by an old service)
carry only host and node names. Each function here fills one link from
those names, for at most ``max_count`` rows, in two statements whatever
the count: one SELECT of the ids to fix, one UPDATE whose value is a
correlated subquery. Only rows that *can* be fixed (a live record with
matching names exists) are selected, so a caller looping until nothing
is found always ends.

They serve ``nova-lite-manage db online_data_migrations`` (every host)
and each compute agent at startup (``host``: its own records only).
"""

from collections.abc import Callable
from typing import Any

import sqlalchemy as sa

from lite_common import db as lite_db
from lite_common.context import RequestContext
from nova_lite.db import models
from nova_lite.db.api import context_manager

CN = models.ComputeNode
INST = models.Instance
MIG = models.Migration
SVC = models.Service
COMPUTE_BINARY = 'nova-compute'

# (found, done): rows that needed the link in this batch, rows fixed.
Result = tuple[int, int]


def _node_of_instance() -> Any:
    return (
        sa.select(CN.id)
        .where(
            CN.deleted == 0,
            CN.host == INST.host,
            CN.hypervisor_hostname == INST.node,
        )
        .order_by(CN.id)
        .limit(1)
        .scalar_subquery()
    )


def _service_of_node() -> Any:
    return (
        sa.select(SVC.id)
        .where(
            SVC.deleted == 0, SVC.host == CN.host, SVC.binary == COMPUTE_BINARY
        )
        .order_by(SVC.id)
        .limit(1)
        .scalar_subquery()
    )


def _dest_node_of_migration() -> Any:
    return (
        sa.select(CN.id)
        .where(
            CN.deleted == 0,
            CN.host == MIG.dest_compute,
            CN.hypervisor_hostname == MIG.dest_node,
        )
        .order_by(CN.id)
        .limit(1)
        .scalar_subquery()
    )


def _fill(
    context: RequestContext,
    model: Any,
    column: str,
    value: Any,
    where: list[Any],
    max_count: int,
) -> Result:
    """Select up to ``max_count`` fixable ids, then one UPDATE."""
    target = getattr(model, column)
    with context_manager.writer.using(context) as session:
        ids = list(
            session.scalars(
                sa.select(model.id)
                .where(target.is_(None), value.is_not(None), *where)
                .order_by(model.id)
                .limit(max_count)
            )
        )
        if not ids:
            return 0, 0
        result = session.execute(
            sa.update(model)
            .where(model.id.in_(ids), target.is_(None))
            .values({column: value, 'updated_at': lite_db.utcnow()})
            .execution_options(synchronize_session=False)
        )
        return len(ids), int(result.rowcount)


def fill_instance_compute_ids(
    context: RequestContext, max_count: int, host: str | None = None
) -> Result:
    """Instance.compute_id from host + node (live instances placed on a
    node; shelved-offloaded and unscheduled ones have no node)."""
    where = [INST.deleted == 0, INST.node.is_not(None)]
    if host is not None:
        where.append(INST.host == host)
    return _fill(
        context, INST, 'compute_id', _node_of_instance(), where, max_count
    )


def fill_compute_node_service_ids(
    context: RequestContext, max_count: int, host: str | None = None
) -> Result:
    """ComputeNode.service_id from the host's nova-compute service."""
    where = [CN.deleted == 0]
    if host is not None:
        where.append(CN.host == host)
    return _fill(
        context, CN, 'service_id', _service_of_node(), where, max_count
    )


# A move in these statuses has not been claimed by its destination yet:
# the claim links it (and refuses a record linked to another node), so
# filling in the link here would make the destination's own claim look
# like someone else's.
UNCLAIMED_STATUSES = ('accepted', 'pre-migrating')


def fill_migration_dest_compute_ids(
    context: RequestContext, max_count: int, host: str | None = None
) -> Result:
    """Migration.dest_compute_id from dest_compute + dest_node, for
    moves past their destination's claim only."""
    where = [
        MIG.deleted == 0,
        MIG.dest_node.is_not(None),
        MIG.status.not_in(UNCLAIMED_STATUSES),
    ]
    if host is not None:
        where.append(MIG.dest_compute == host)
    return _fill(
        context,
        MIG,
        'dest_compute_id',
        _dest_node_of_migration(),
        where,
        max_count,
    )


# Name -> function, in the order nova-lite-manage runs them (services
# before nodes before instances does not matter: each is independent).
ONLINE_MIGRATIONS: dict[str, Callable[..., Result]] = {
    'fill_compute_node_service_ids': fill_compute_node_service_ids,
    'fill_instance_compute_ids': fill_instance_compute_ids,
    'fill_migration_dest_compute_ids': fill_migration_dest_compute_ids,
}


def fill_all(
    context: RequestContext,
    func: Callable[..., Result],
    batch: int,
    host: str | None = None,
) -> int:
    """Run one fill in batches until nothing is left; rows fixed."""
    total = 0
    while True:
        found, done = func(context, batch, host=host)
        total += done
        if found < batch or not done:
            return total
