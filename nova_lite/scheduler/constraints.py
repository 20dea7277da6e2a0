"""What a build asks of its host beyond room: an availability zone, a
forced host or node, and its server group's policy.

:func:`restrict` and :func:`weigh` shape the one candidate query (zone
and group members are subqueries in it: no query per host).
:func:`group_allows` is the late check of a hard group policy, run in
the claim's own transaction (see :mod:`nova_lite.scheduler.claims`):

* it first bumps the group's ``generation`` with one UPDATE, which
  takes the row's write lock (SQLite: the database's; MariaDB and
  PostgreSQL: the row's) until the claim commits, so that claims of
  members of one group run one after another;
* only then it reads where the other members are placed. InnoDB starts
  a transaction's read snapshot at its first plain SELECT, PostgreSQL
  (read committed) at each statement: both after the lock is granted,
  so a placement committed by the claim that held the lock is seen.

Two concurrent boots of one anti-affinity group can therefore both pass
the scheduler's filter, but only one claim per host succeeds; the
other moves on to the next candidate or ends in NoValidHost.
"""

from typing import Any
from typing import NamedTuple
from typing import cast

from oslo_config import cfg
import sqlalchemy as sa

from lite_common.context import RequestContext
from nova_lite.common import states
from nova_lite.db import aggregates as aggregate_db
from nova_lite.db import models
from nova_lite.db import server_groups as server_group_db

CN = models.ComputeNode
INST = models.Instance
GROUP = models.InstanceGroup
MEMBER = models.InstanceGroupMember
MIG = models.Migration
AFFINITY, ANTI_AFFINITY = 'affinity', 'anti-affinity'
SOFT_AFFINITY, SOFT_ANTI_AFFINITY = 'soft-affinity', 'soft-anti-affinity'
#: The instance's system metadata keys where the API keeps an
#: administrator's ``zone:host:node`` request.
FORCED_HOST, FORCED_NODE = 'forced_host', 'forced_node'
#: ... and where it keeps a requested destination (2.74 ``host`` /
#: ``hypervisor_hostname``). Both narrow the candidates, which still
#: pass every other check (zone, group, room); neither holds for a
#: later move or unshelve.
REQUESTED_HOST, REQUESTED_NODE = 'requested_host', 'requested_node'
#: ... and where it keeps the host an administrator asked an unshelve
#: of an offloaded server to go to (2.91); every unshelve sets or
#: clears it.
UNSHELVE_HOST = 'unshelve_host'


class Group(NamedTuple):
    """The server group of the instance being placed."""

    id: int
    uuid: str
    policy: str
    max_per_host: int = 1


def group_from_row(row: dict[str, Any]) -> Group:
    """A :class:`Group` of a server group row (as a dict)."""
    rules = row.get('rules') or {}
    return Group(
        row['id'],
        row['uuid'],
        row['policy'],
        int(rules.get('max_server_per_host', 1)),
    )


def group_of(context: RequestContext, instance_uuid: str) -> Group | None:
    """The live server group of the instance, or None (read in its own
    transaction: a claim's first statement must be the group's lock)."""
    row = server_group_db.group_of_instance(context, instance_uuid)
    return None if row is None else group_from_row(row)


def zone_clause(conf: cfg.ConfigOpts, zone: str) -> Any:
    """Compute nodes of hosts in ``zone`` (the default zone: hosts no
    aggregate gives a zone, and any explicitly in it)."""
    in_zone = CN.host.in_(aggregate_db.zone_hosts_query(zone))
    if zone != conf.default_availability_zone:
        return in_zone
    return sa.or_(in_zone, CN.host.not_in(aggregate_db.zone_hosts_query()))


def host_zone_value(conf: cfg.ConfigOpts, host_column: Any) -> Any:
    """SQL expression: the zone of the host in ``host_column``."""
    zone = (
        aggregate_db.zone_hosts_query()
        .with_only_columns(aggregate_db.META.value)
        .where(aggregate_db.HOST.host == host_column)
        .limit(1)
        .scalar_subquery()
    )
    return sa.func.coalesce(zone, conf.default_availability_zone)


#: A move between its start and its end: its member counts on its
#: destination (and, once it arrived but may still be reverted, on its
#: source too), as upstream's late check counts migrations in progress.
MOVES_IN_FLIGHT = ('accepted', *states.COLD_MOVES_IN_FLIGHT)


def _member_hosts(group: Group, instance_uuid: str) -> Any:
    """Subquery (columns ``uuid``, ``host``): the places another member
    of the group holds: its host, the destination of its move in
    flight, and the source of an unconfirmed resize or migration."""
    members = (
        sa.select(MEMBER.instance_uuid)
        .join(INST, INST.uuid == MEMBER.instance_uuid)
        .where(
            MEMBER.group_id == group.id,
            MEMBER.deleted == 0,
            INST.deleted == 0,
            INST.uuid != instance_uuid,
        )
    )
    placed = sa.select(INST.uuid.label('uuid'), INST.host.label('host')).where(
        INST.uuid.in_(members), INST.host.is_not(None)
    )
    moving = sa.select(
        MIG.instance_uuid.label('uuid'), MIG.dest_compute.label('host')
    ).where(
        MIG.instance_uuid.in_(members),
        MIG.deleted == 0,
        MIG.status.in_(MOVES_IN_FLIGHT),
        MIG.dest_compute.is_not(None),
    )
    returning = sa.select(
        MIG.instance_uuid.label('uuid'), MIG.source_compute.label('host')
    ).where(
        MIG.instance_uuid.in_(members),
        MIG.deleted == 0,
        MIG.status.in_(states.REVERTIBLE),
        MIG.source_compute.is_not(None),
    )
    return sa.union_all(placed, moving, returning).subquery()


def _placements(group: Group, instance_uuid: str) -> Any:
    """SELECT of the hosts the other members hold (a member moving
    holds both ends)."""
    places = _member_hosts(group, instance_uuid)
    return sa.select(places.c.host).distinct()


def _counted(group: Group, instance_uuid: str) -> Any:
    """Subquery: host, and how many other members hold it."""
    places = _member_hosts(group, instance_uuid)
    return (
        sa.select(
            places.c.host,
            sa.func.count(places.c.uuid.distinct()).label('members'),
        )
        .group_by(places.c.host)
        .subquery()
    )


def _full_hosts(group: Group, instance_uuid: str) -> Any:
    """Hosts that already hold ``max_per_host`` members."""
    counted = _counted(group, instance_uuid)
    return sa.select(counted.c.host).where(
        counted.c.members >= group.max_per_host
    )


def _group_clause(group: Group, instance_uuid: str) -> Any:
    if group.policy == ANTI_AFFINITY:
        return CN.host.not_in(_full_hosts(group, instance_uuid))
    if group.policy == AFFINITY:
        members = _placements(group, instance_uuid)
        return sa.or_(~members.exists(), CN.host.in_(members))
    return None


def restrict(query: Any, conf: cfg.ConfigOpts, req: Any) -> Any:
    """``query`` of candidate nodes, narrowed to what ``req`` asks."""
    if req.zone:
        query = query.where(zone_clause(conf, req.zone))
    if req.force_host:
        query = query.where(CN.host == req.force_host)
    if req.force_node:
        query = query.where(CN.hypervisor_hostname == req.force_node)
    if req.group is not None:
        clause = _group_clause(req.group, req.instance_uuid)
        if clause is not None:
            query = query.where(clause)
    return query


def weigh(req: Any) -> list[Any]:
    """Leading ORDER BY terms: a soft policy prefers the hosts with
    most (soft-affinity) or fewest (soft-anti-affinity) members."""
    group = req.group
    if group is None or group.policy not in (
        SOFT_AFFINITY,
        SOFT_ANTI_AFFINITY,
    ):
        return []
    places = _member_hosts(group, req.instance_uuid)
    count = (
        sa.select(sa.func.count(places.c.uuid.distinct()))
        .select_from(places)
        .where(places.c.host == CN.host)
        .scalar_subquery()
    )
    return [count.desc() if group.policy == SOFT_AFFINITY else count.asc()]


def lock_group(session: Any, req: Any) -> None:
    """In the claim's transaction, as its first statement: bump the
    group's generation, which holds the row's write lock until commit."""
    if req.group is not None:
        session.execute(
            sa.update(GROUP)
            .where(GROUP.id == req.group.id)
            .values(generation=GROUP.generation + 1)
            .execution_options(synchronize_session=False)
        )


def group_allows(
    session: Any, req: Any, host: str, locked: bool = False
) -> bool:
    """In the claim's transaction: lock the group (unless ``locked``
    already), then whether placing the instance on ``host`` keeps its
    hard policy."""
    group = req.group
    if group is None:
        return True
    if not locked:
        lock_group(session, req)
    places = _member_hosts(group, req.instance_uuid)
    held = {
        (row.uuid, row.host)
        for row in session.execute(sa.select(places.c.uuid, places.c.host))
    }
    if group.policy == ANTI_AFFINITY:
        here = sum(1 for _, other in held if other == host)
        return cast(bool, here < group.max_per_host)
    if group.policy == AFFINITY:
        return all(other == host for _, other in held)
    return True


def describe(req: Any) -> str:
    """The constraints of ``req`` for a NoValidHost reason."""
    parts = []
    if req.zone:
        parts.append(f' in availability zone {req.zone}')
    if req.force_host or req.force_node:
        parts.append(
            f' on host {req.force_host or "(any)"} node '
            f'{req.force_node or "(any)"}'
        )
    if req.group is not None:
        parts.append(
            f' within the {req.group.policy} policy of server '
            f'group {req.group.uuid}'
        )
    return ''.join(parts)
