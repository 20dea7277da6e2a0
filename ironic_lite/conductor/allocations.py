"""Allocations on the conductor (API 1.52): reserving a node for a
deployment by resource class, traits, candidate nodes and owner.

An allocation is created ``allocating`` by the conductor the API chose
(its ``conductor_affinity``), which processes it on a worker: the
candidates are listed in one query, shuffled (a node named as the
allocation first, 1.79), and taken one after the other by a conditional
UPDATE (:func:`ironic_lite.db.allocations.take_node`) until one is free
still; the allocation is then ``active`` and the node's
``instance_uuid`` is the allocation's uuid. Two allocations never take
one node: the second UPDATE matches nothing. No candidate: ``error``
with the reason in ``last_error``.

An allocation of a node already deployed (``node`` given, 1.58) is
created ``active`` at once (backfill). An allocation left
``allocating`` by a conductor that died is processed by another one
(:func:`resume_orphans`).
"""

from collections.abc import Callable
import random
from typing import Any

from oslo_config import cfg
from oslo_log import log as logging
import oslo_messaging as messaging

from ironic_lite import exception
from ironic_lite.common import states
from ironic_lite.common.conductor_identity import ConductorIdentity
from ironic_lite.conductor import endpoint
from ironic_lite.conductor import rpcapi
from ironic_lite.conductor import task_manager
from ironic_lite.conductor import workers
from ironic_lite.db import allocations as db_allocations
from ironic_lite.db import node_traits as db_traits
from ironic_lite.db import nodes as db_nodes
from lite_common import context as lite_context
from lite_common import rpc
from lite_common.context import RequestContext

LOG = logging.getLogger(__name__)
#: Seconds a deletion waits for its node's lock.
LOCK_PATIENCE = 3.0


def _no_candidates(allocation: dict[str, Any]) -> str:
    resource_class = allocation['resource_class']
    if allocation['candidate_nodes']:
        return (
            f'none of the requested nodes are available and match the '
            f'resource class {resource_class}'
        )
    return f'no available nodes match the resource class {resource_class}'


def candidate_order(
    allocation: dict[str, Any], nodes: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The candidates in the order they are tried: at random (two
    allocations at once rarely want the same node), but a node named as
    the allocation first (1.79)."""
    nodes = list(nodes)
    random.shuffle(nodes)
    name = allocation.get('name')
    if name:
        nodes.sort(key=lambda node: node.get('name') != name)
    return nodes


def do_allocate(context: RequestContext, allocation_id: int) -> None:
    """Find and take a node for an allocation that is ``allocating``;
    on failure the allocation is ``error`` with ``last_error``."""
    allocation = db_allocations.get(context, allocation_id)
    if allocation['state'] != db_allocations.ALLOCATING:
        return
    try:
        nodes = db_allocations.candidates(
            context,
            allocation['resource_class'],
            allocation['traits'] or [],
            allocation['owner'],
            allocation['candidate_nodes'] or None,
        )
        if not nodes:
            raise exception.AllocationFailed(
                uuid=allocation['uuid'], error=_no_candidates(allocation)
            )
        for node in candidate_order(allocation, nodes):
            taken = db_allocations.take_node(context, allocation_id, node, {})
            if taken is not None:
                LOG.info(
                    'Allocation %(alloc)s: node %(node)s allocated',
                    {'alloc': allocation['uuid'], 'node': node['uuid']},
                )
                return
            LOG.debug(
                'Allocation %(alloc)s: node %(node)s was taken or '
                'changed meanwhile; trying the next one',
                {'alloc': allocation['uuid'], 'node': node['uuid']},
            )
        raise exception.AllocationFailed(
            uuid=allocation['uuid'],
            error='all nodes were filtered out during reservation',
        )
    except (exception.AllocationChanged, exception.AllocationNotFound):
        LOG.info(
            'Allocation %s was deleted or changed while it was processed',
            allocation['uuid'],
        )
    except exception.AllocationFailed as exc:
        _failed(context, allocation, str(exc))
    except Exception as exc:
        LOG.exception(
            'Unexpected exception while processing allocation %s',
            allocation['uuid'],
        )
        _failed(
            context,
            allocation,
            f'Unexpected exception during allocation: {exc}',
        )


def _failed(
    context: RequestContext, allocation: dict[str, Any], message: str
) -> None:
    LOG.error(
        'Allocation %(alloc)s failed: %(msg)s',
        {'alloc': allocation['uuid'], 'msg': message},
    )
    try:
        db_allocations.update(
            context,
            allocation['id'],
            {
                'state': db_allocations.ERROR,
                'last_error': message,
                'conductor_affinity': None,
            },
            expected_state=db_allocations.ALLOCATING,
        )
    except (exception.AllocationChanged, exception.AllocationNotFound):
        LOG.info(
            'Allocation %s was deleted while it failed', allocation['uuid']
        )


def check_backfill(
    allocation: dict[str, Any], node: dict[str, Any], traits: list[str]
) -> None:
    """A node already deployed may be recorded by an allocation that it
    matches (1.58).

    :raises InvalidParameterValue: it does not match, or is not
        deployed.
    :raises NodeAssociated: it has an allocation, or another instance.
    """
    uuid = node['uuid']
    if node['allocation_id'] is not None:
        raise exception.NodeAssociated(
            node=uuid, instance=node['instance_uuid']
        )
    if node['provision_state'] not in (
        states.ACTIVE,
        states.DEPLOYING,
        states.DEPLOYWAIT,
    ):
        raise exception.InvalidParameterValue(
            err=f'Cannot create a backfilling allocation: node {uuid} '
            f'is in provision state {node["provision_state"]}; it must be '
            'active, deploying or wait call-back'
        )
    if node['maintenance']:
        raise exception.InvalidParameterValue(
            err=f'Cannot create a backfilling allocation: node {uuid} is '
            'in maintenance'
        )
    wanted = allocation.get('resource_class')
    if wanted and wanted != node['resource_class']:
        raise exception.InvalidParameterValue(
            err=f'Cannot create a backfilling allocation: node {uuid} has '
            f'resource class {node["resource_class"]}, not {wanted}'
        )
    missing = set(allocation.get('traits') or ()) - set(traits)
    if missing:
        raise exception.InvalidParameterValue(
            err=f'Cannot create a backfilling allocation: node {uuid} '
            f'does not have the traits {", ".join(sorted(missing))}'
        )
    owner = allocation.get('owner')
    if owner and owner != node['owner']:
        raise exception.InvalidParameterValue(
            err=f'Cannot create a backfilling allocation: node {uuid} '
            f'is not owned by {owner}'
        )
    if (
        node['instance_uuid']
        and allocation.get('uuid')
        and (node['instance_uuid'] != allocation['uuid'])
    ):
        raise exception.NodeAssociated(
            node=uuid, instance=node['instance_uuid']
        )


def check_deallocation(node: Any, allocation: dict[str, Any]) -> None:
    """Whether the allocation of ``node`` may go (upstream's rules):
    always in maintenance; not while the node is active, nor while it
    is busy in a state where it may not be updated.

    :raises InvalidState:
    """
    if node.maintenance:
        return
    uuid = allocation['uuid']
    if (
        node.target_provision_state
        and node.provision_state not in states.UPDATE_ALLOWED_STATES
    ):
        raise exception.InvalidState(
            reason=f'Cannot remove allocation {uuid} for node {node.uuid}, '
            f'because the node is in state {node.provision_state} where '
            'updates are not allowed (and maintenance mode is off)'
        )
    if node.provision_state == states.ACTIVE:
        raise exception.InvalidState(
            reason=f'Cannot remove allocation {uuid} for node {node.uuid}, '
            'because the node is active (and maintenance mode is off)'
        )


def check_instance_removal(node: Any) -> None:
    """An update may remove the instance of a node with an allocation
    (the allocation goes with it) only at rest or in maintenance.

    :raises InvalidState:
    """
    if node.maintenance or (
        node.provision_state in states.INSTANCE_REMOVAL_STATES
    ):
        return
    allowed = ', '.join(sorted(states.INSTANCE_REMOVAL_STATES))
    raise exception.InvalidState(
        reason=f'Node {node.uuid} with an allocation can not have '
        f'instance_uuid removed unless it is in one of allowed ({allowed}) '
        f'states or in maintenance mode. Current state is '
        f"'{node.provision_state}'."
    )


class AllocationManager:
    """create_allocation, destroy_allocation."""

    target = messaging.Target(version=rpcapi.VERSION)

    def __init__(
        self,
        conf: cfg.ConfigOpts,
        identity: ConductorIdentity,
        pool: workers.WorkerPool,
    ) -> None:
        self.conf = conf
        self.identity = identity
        self.host = identity.host
        self.pool = pool

    @rpc.expected_exceptions(*endpoint.EXPECTED)
    def create_allocation(
        self,
        context: RequestContext,
        values: dict[str, Any],
        node_uuid: str | None = None,
    ) -> dict[str, Any]:
        """Record an allocation and start processing it on a worker (a
        full pool: 503, nothing recorded); with ``node_uuid``, backfill
        it at once."""
        if node_uuid is not None:
            node = db_nodes.node_get(context, node_uuid)
            traits = db_traits.traits_of(context, [node['id']]).get(
                node['id'], []
            )
            check_backfill(values, node, traits)
            row = db_allocations.backfill(context, values, node)
            LOG.info(
                'Allocation %(alloc)s backfilled for node %(node)s',
                {'alloc': row['uuid'], 'node': node['uuid']},
            )
            return row
        slot = self.pool.reserve()
        try:
            row = db_allocations.create(
                context, {**values, 'conductor_affinity': self.host}
            )
        except Exception:
            slot.cancel()
            raise
        slot.start(do_allocate, lite_context.get_admin_context(), row['id'])
        return row

    @rpc.expected_exceptions(*endpoint.EXPECTED)
    def destroy_allocation(
        self, context: RequestContext, allocation_uuid: str
    ) -> None:
        """Delete an allocation; its node (under its lock) forgets it
        and the instance it recorded.

        :raises InvalidState: the node is active, or busy in a state
            where it may not be updated, outside maintenance (409).
        """
        row = db_allocations.get(context, allocation_uuid)
        if row['node_id'] is None:
            db_allocations.destroy(context, row['id'])
            LOG.info('Allocation %s deleted', row['uuid'])
            return
        with task_manager.acquire(
            context,
            self.conf,
            row['node_id'],
            self.identity,
            'allocation deletion',
            patience=LOCK_PATIENCE,
        ) as task:
            check_deallocation(task.node, row)
            db_allocations.destroy(context, row['id'])
        LOG.info(
            'Allocation %(alloc)s of node %(node)s deleted',
            {'alloc': row['uuid'], 'node': task.node.uuid},
        )


def resume_orphans(
    context: RequestContext,
    host: str,
    alive_hosts: Callable[[], set[str]],
    include_own: bool = False,
) -> int:
    """Process the allocations left ``allocating`` by a conductor that
    is not alive (and, with ``include_own``, at start-up, those this
    conductor left before a restart): this conductor takes them and
    runs them here, now. Two conductors taking one allocation at once
    is harmless: only one :func:`db_allocations.take_node` can make it
    active. Returns how many."""
    resumed = 0
    rows = db_allocations.in_state(context, db_allocations.ALLOCATING)
    alive = alive_hosts() if rows else set()
    for row in rows:
        owner = row['conductor_affinity']
        if owner in alive and not (include_own and owner == host):
            continue
        try:
            db_allocations.update(
                context,
                row['id'],
                {'conductor_affinity': host},
                expected_state=db_allocations.ALLOCATING,
            )
        except (exception.AllocationChanged, exception.AllocationNotFound):
            continue
        LOG.info(
            'Allocation %(alloc)s left allocating by %(owner)s: '
            'processing it here',
            {'alloc': row['uuid'], 'owner': owner},
        )
        do_allocate(context, row['id'])
        resumed += 1
    return resumed
