"""Host selection and resource claims, in the database.

A claim is one conditional UPDATE of the chosen compute node's usage
(it succeeds only while the request still fits) and, in the same
transaction, the placement of the instance (host, node and compute_id
together). Concurrent builds, even from several conductors, therefore
never overcommit a host.
"""

from collections.abc import Callable
import datetime
from typing import Any
from typing import NamedTuple

from oslo_config import cfg
from oslo_log import log as logging
import sqlalchemy as sa

from lite_common import db as lite_db
from lite_common import db_retry
from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite import metrics as nova_metrics
from nova_lite.db import api as db_api
from nova_lite.db import compute_nodes
from nova_lite.db import migrations as migration_db
from nova_lite.db import models
from nova_lite.objects.service import COMPUTE_BINARY
from nova_lite.scheduler import constraints
from nova_lite.scheduler import diagnosis
from nova_lite.scheduler.claim_terms import ALREADY_CLAIMED as ALREADY_CLAIMED
from nova_lite.scheduler.claim_terms import CLAIMED as CLAIMED
from nova_lite.scheduler.claim_terms import GROUP_POLICY as GROUP_POLICY
from nova_lite.scheduler.claim_terms import NO_ROOM as NO_ROOM
from nova_lite.scheduler.claim_terms import NOT_CLAIMABLE as NOT_CLAIMABLE
from nova_lite.scheduler.claim_terms import (
    WHOLE_MACHINE_TYPE as WHOLE_MACHINE_TYPE,
)
from nova_lite.scheduler.claim_terms import (
    counted_resources as counted_resources,
)
from nova_lite.scheduler.claim_terms import (
    flavor_resource_class as flavor_resource_class,
)
from nova_lite.scheduler.claim_terms import flavor_traits as flavor_traits

LOG = logging.getLogger(__name__)
CN = models.ComputeNode
SVC = models.Service
INST = models.Instance


class Request(NamedTuple):
    instance_uuid: str
    vcpus: int
    memory_mb: int
    root_gb: int
    # What a build asks beyond room (see scheduler.constraints).
    zone: str | None = None
    force_host: str | None = None
    force_node: str | None = None
    group: constraints.Group | None = None
    # A whole machine of this class (bare metal), or None: a share of a
    # hypervisor.
    resource_class: str | None = None
    # Traits the node must have / must not have (flavor extra specs).
    required_traits: tuple[str, ...] = ()
    forbidden_traits: tuple[str, ...] = ()


def _has_trait(trait: str) -> Any:
    """The node's traits (a JSON list as text) name ``trait``: its
    quoted name occurs in the text (trait names are letters, digits
    and ``_``; LIKE's wildcards are escaped)."""
    return sa.type_coerce(CN.traits, sa.Text).contains(
        f'"{trait}"', autoescape=True
    )


def traits_clause(req: Request) -> Any:
    """Nodes with every required trait and none of the forbidden."""
    clauses = [_has_trait(t) for t in req.required_traits]
    clauses += [
        sa.or_(CN.traits.is_(None), ~_has_trait(t))
        for t in req.forbidden_traits
    ]
    return sa.and_(sa.true(), *clauses)


def _fits(conf: cfg.ConfigOpts, req: Request) -> Any:
    """The node has room and the traits asked for; a whole machine is
    taken only by a request of its resource class and only while it
    holds no instance, and a request for a share of a hypervisor never
    lands on one. Part of the claim's conditional UPDATE too: a node
    whose traits changed meanwhile is not taken."""
    room = sa.and_(
        compute_nodes.fits_clause(
            req.vcpus,
            req.memory_mb,
            req.root_gb,
            conf.reserved_host_memory_mb,
            conf.reserved_host_disk_mb // 1024,
        ),
        traits_clause(req),
    )
    if req.resource_class is not None:
        return sa.and_(
            room, CN.resource_class == req.resource_class, CN.running_vms == 0
        )
    return sa.and_(room, CN.hypervisor_type != WHOLE_MACHINE_TYPE)


def candidates(
    session: Any,
    conf: cfg.ConfigOpts,
    req: Request,
    exclude_hosts: tuple[str, ...] = (),
    only_host: str | None = None,
) -> list[Any]:
    """Nodes of enabled, up, not forced-down computes with room and no
    uncleaned evacuation away from them, the most free memory first
    (spreading, like upstream's RAM weigher)."""
    horizon = lite_db.utcnow() - datetime.timedelta(
        seconds=conf.service_down_time
    )
    query = (
        sa.select(CN.id, CN.host, CN.hypervisor_hostname)
        .join(SVC, SVC.id == CN.service_id)
        .where(
            CN.deleted == 0,
            SVC.deleted == 0,
            SVC.binary == COMPUTE_BINARY,
            SVC.disabled == sa.false(),
            SVC.forced_down == sa.false(),
            SVC.last_seen_up >= horizon,
            _fits(conf, req),
        )
        .order_by(
            *constraints.weigh(req),
            (
                CN.memory_mb * CN.ram_allocation_ratio - CN.memory_mb_used
            ).desc(),
            CN.id,
        )
    )
    query = constraints.restrict(query, conf, req)
    # A host that evacuations left copies on is no candidate until its
    # agent has cleaned up (its copies are stale or still needed).
    query = query.where(
        CN.host.not_in(migration_db.uncleaned_evacuation_hosts())
    )
    if exclude_hosts:
        query = query.where(CN.host.not_in(exclude_hosts))
    if only_host is not None:
        query = query.where(CN.host == only_host)
    return list(session.execute(query))


def _grow_usage(
    session: Any, conf: cfg.ConfigOpts, req: Request, node_id: int
) -> bool:
    """The node's usage grows by ``req``, only while it still fits."""
    claimed = session.execute(
        sa.update(CN)
        .where(CN.id == node_id, _fits(conf, req))
        .values(
            vcpus_used=CN.vcpus_used + req.vcpus,
            memory_mb_used=CN.memory_mb_used + req.memory_mb,
            local_gb_used=CN.local_gb_used + req.root_gb,
            running_vms=CN.running_vms + 1,
        )
        .execution_options(synchronize_session=False)
    )
    return bool(claimed.rowcount == 1)


def _claim_on(
    session: Any, conf: cfg.ConfigOpts, req: Request, node: Any
) -> bool:
    # The group's lock first (then the node's row): one lock order.
    if not constraints.group_allows(session, req, node.host):
        return False
    if not _grow_usage(session, conf, req, node.id):
        return False
    # Only an instance not placed yet: a build driven twice (a recovery
    # pass, a second conductor) is placed once.
    placed = session.execute(
        sa.update(INST)
        .where(
            INST.uuid == req.instance_uuid,
            INST.deleted == 0,
            INST.host.is_(None),
        )
        .values(
            host=node.host,
            node=node.hypervisor_hostname,
            compute_id=node.id,
            updated_at=lite_db.utcnow(),
            # The host's zone, as upstream's conductor records it.
            availability_zone=constraints.host_zone_value(conf, node.host),
        )
        .execution_options(synchronize_session=False)
    )
    if placed.rowcount != 1:
        # The transaction rolls back the usage grown above.
        raise _not_placed(session, req.instance_uuid)
    return True


def _not_placed(session: Any, uuid: str) -> Exception:
    host = session.execute(
        sa.select(INST.host).where(INST.uuid == uuid, INST.deleted == 0)
    ).first()
    if host is None:
        return exception.InstanceNotFound(instance_id=uuid)
    return exception.AlreadyPlaced(instance_uuid=uuid, host=host.host)


def _placed_on(session: Any, uuid: str, node_id: int) -> bool:
    """Whether this claim runs again after an attempt whose commit went
    unseen (:func:`lite_common.db_retry.rechecking`) and that attempt
    placed the instance on the node: the claim was made then."""
    if not db_retry.rechecking():
        return False
    placed = session.execute(
        sa.select(INST.compute_id).where(INST.uuid == uuid, INST.deleted == 0)
    ).first()
    return placed is not None and placed.compute_id == node_id


@db_api.retried(rechecks=True)
def claim_on(
    context: RequestContext, conf: cfg.ConfigOpts, req: Request, node: Any
) -> bool:
    """Claim ``node`` (a candidate row, possibly stale) for the request
    in one transaction: False when it no longer fits or its server
    group's hard policy now forbids it."""
    with db_api.context_manager.writer.using(context) as session:
        if _placed_on(session, req.instance_uuid, node.id):
            return True
        if not _claim_on(session, conf, req, node):
            return False
    LOG.info(
        'Claimed %(vcpus)s vCPU, %(ram)s MiB, %(disk)s GiB on '
        '%(host)s/%(node)s for instance %(uuid)s',
        {
            'vcpus': req.vcpus,
            'ram': req.memory_mb,
            'disk': req.root_gb,
            'host': node.host,
            'node': node.hypervisor_hostname,
            'uuid': req.instance_uuid,
        },
    )
    return True


def describe_traits(req: Request) -> str:
    """The traits of ``req`` for a NoValidHost reason."""
    parts = []
    if req.required_traits:
        parts.append(f' with traits {", ".join(req.required_traits)}')
    if req.forbidden_traits:
        parts.append(f' without traits {", ".join(req.forbidden_traits)}')
    return ''.join(parts)


@db_api.retried
def select_and_claim(
    context: RequestContext,
    conf: cfg.ConfigOpts,
    req: Request,
    exclude_hosts: tuple[str, ...] = (),
) -> Any:
    """Place the instance on the best node that still has room.

    Returns the node row (id, host, hypervisor_hostname); raises
    NoValidHost when no node fits.
    """
    with db_api.context_manager.reader.using(context) as session:
        nodes = candidates(session, conf, req, exclude_hosts)
    for node in nodes:
        if claim_on(context, conf, req, node):
            nova_metrics.scheduled('claim', found=True)
            return node
    nova_metrics.scheduled('claim', found=False)
    asked = f'{describe_traits(req)}{constraints.describe(req)}'
    if req.resource_class is not None and nodes:
        raise exception.NoValidHost(
            reason=f'the {len(nodes)} available bare metal node(s) of '
            f'resource class {req.resource_class}{asked} were taken by '
            'other builds meanwhile.'
        )
    if req.resource_class is not None:
        with db_api.context_manager.reader.using(context) as session:
            counts = diagnosis.node_counts(
                session, conf, req.resource_class, WHOLE_MACHINE_TYPE
            )
        raise exception.NoValidHost(
            reason=diagnosis.no_bare_metal_node(
                counts, req.resource_class, asked
            )
        )
    raise exception.NoValidHost(
        reason=f'{len(nodes)} candidate node(s), none with room for '
        f'{req.vcpus} vCPU, {req.memory_mb} MiB RAM, {req.root_gb} GiB '
        'disk on an enabled, up compute service'
        f'{describe_traits(req)}{constraints.describe(req)}.'
    )


@db_api.retried
def select_destination(
    context: RequestContext,
    conf: cfg.ConfigOpts,
    req: Request,
    exclude_hosts: tuple[str, ...],
    only_host: str | None = None,
) -> Any:
    """The best node for a move, without claiming (the destination
    claims); raises NoValidHost."""
    with db_api.context_manager.reader.using(context) as session:
        nodes = candidates(session, conf, req, exclude_hosts, only_host)
    nova_metrics.scheduled('destination', found=bool(nodes))
    if not nodes:
        where = f'host {only_host}' if only_host else 'any other host'
        raise exception.NoValidHost(
            reason=f'no node of {where} has room for {req.vcpus} vCPU, '
            f'{req.memory_mb} MiB RAM, {req.root_gb} GiB disk on an '
            f'enabled, up compute service{constraints.describe(req)}.'
        )
    return nodes[0]


class _NoClaim(Exception):
    """Rolls the claim's transaction back."""

    def __init__(self, result: str) -> None:
        super().__init__(result)
        self.result = result


def _link_migration(
    session: Any, migration_id: int, node_id: int, status: str, new_status: Any
) -> None:
    """The migration names this node as its destination (by id and by
    name) and takes ``new_status``, only while it is in ``status`` and
    linked to no node. Only a claim links an unfinished move (start-up
    link filling leaves them alone), so a link to this node means this
    node claimed it before."""
    mig = models.Migration
    node = session.execute(
        sa.select(CN.host, CN.hypervisor_hostname).where(
            CN.id == node_id, CN.deleted == 0
        )
    ).first()
    if node is None:
        raise _NoClaim(NOT_CLAIMABLE)
    moved = session.execute(
        sa.update(mig)
        .where(
            mig.id == migration_id,
            mig.deleted == 0,
            mig.status == status,
            mig.dest_compute_id.is_(None),
        )
        .values(
            status=new_status,
            dest_compute_id=node_id,
            dest_compute=node.host,
            dest_node=node.hypervisor_hostname,
            updated_at=lite_db.utcnow(),
        )
        .execution_options(synchronize_session=False)
    )
    if moved.rowcount == 1:
        return
    mine = session.execute(
        sa.select(mig.id).where(
            mig.id == migration_id, mig.dest_compute_id == node_id
        )
    ).first()
    raise _NoClaim(ALREADY_CLAIMED if mine is not None else NOT_CLAIMABLE)


def _check_group(session: Any, req: Request, node_id: int) -> None:
    """The late check of the moving instance's hard group policy
    (``req.group``) on the node's host. The group's lock was the
    transaction's first statement (see constraints); the node's row is
    taken after it, the order of a boot's claim."""
    if req.group is None:
        return
    host = session.execute(
        sa.select(CN.host).where(CN.id == node_id, CN.deleted == 0)
    ).scalar()
    if host is None:
        raise _NoClaim(NOT_CLAIMABLE)
    if not constraints.group_allows(session, req, host, locked=True):
        raise _NoClaim(GROUP_POLICY)


def _claim_move(
    session: Any,
    conf: cfg.ConfigOpts,
    req: Request,
    node_id: int,
    migration_id: int,
) -> None:
    constraints.lock_group(session, req)
    _link_migration(
        session, migration_id, node_id, 'accepted', 'pre-migrating'
    )
    _check_group(session, req, node_id)
    if not _grow_usage(session, conf, req, node_id):
        raise _NoClaim(NO_ROOM)


@db_api.retried
def _claim_in_transaction(
    context: RequestContext,
    claim: Callable[..., None],
    conf: cfg.ConfigOpts,
    req: Request,
    node_id: int,
    migration_id: int,
) -> str:
    """Run ``claim`` in one writer transaction; what it found (anything
    but CLAIMED is rolled back)."""
    try:
        with db_api.context_manager.writer.using(context) as session:
            claim(session, conf, req, node_id, migration_id)
    except _NoClaim as exc:
        return exc.result
    return CLAIMED


def claim_for_migration(
    context: RequestContext,
    conf: cfg.ConfigOpts,
    req: Request,
    node_id: int,
    migration_id: int,
) -> str:
    """The destination's claim of an evacuation: in one transaction, the
    node's usage grows (only if the instance still fits) and the
    ``accepted`` migration becomes ``pre-migrating``, linked to the node.
    Returns CLAIMED, ALREADY_CLAIMED (this node claimed it before: a
    repeated request; the record's status says how far it got), NO_ROOM,
    GROUP_POLICY (the instance's hard server group policy forbids the
    host now) or NOT_CLAIMABLE (ended, or another node's)."""
    return _claim_in_transaction(
        context, _claim_move, conf, req, node_id, migration_id
    )


def _claim_resize(
    session: Any,
    conf: cfg.ConfigOpts,
    req: Request,
    node_id: int,
    migration_id: int,
) -> None:
    constraints.lock_group(session, req)
    _link_migration(
        session, migration_id, node_id, 'pre-migrating', 'pre-migrating'
    )
    _check_group(session, req, node_id)
    if not _grow_usage(session, conf, req, node_id):
        raise _NoClaim(NO_ROOM)


def claim_for_resize(
    context: RequestContext,
    conf: cfg.ConfigOpts,
    req: Request,
    node_id: int,
    migration_id: int,
) -> str:
    """The destination's claim of a cold migration or resize (``req``
    holds the new flavor's resources): in one transaction the node's
    usage grows, only if the instance fits, and the ``pre-migrating``
    migration is linked to the node. Returns as claim_for_migration."""
    return _claim_in_transaction(
        context, _claim_resize, conf, req, node_id, migration_id
    )
