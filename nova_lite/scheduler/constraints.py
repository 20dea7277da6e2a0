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

from oslo_config import cfg
import sqlalchemy as sa

from nova_lite.db import aggregates as aggregate_db
from nova_lite.db import models

CN = models.ComputeNode
INST = models.Instance
GROUP = models.InstanceGroup
MEMBER = models.InstanceGroupMember
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


class Group(NamedTuple):
    """The server group of the instance being placed."""
    id: int
    uuid: str
    policy: str
    max_per_host: int = 1


def zone_clause(conf: cfg.ConfigOpts, zone: str) -> Any:
    """Compute nodes of hosts in ``zone`` (the default zone: hosts no
    aggregate gives a zone, and any explicitly in it)."""
    in_zone = CN.host.in_(aggregate_db.zone_hosts_query(zone))
    if zone != conf.default_availability_zone:
        return in_zone
    return sa.or_(in_zone,
                  CN.host.not_in(aggregate_db.zone_hosts_query()))


def host_zone_value(conf: cfg.ConfigOpts, host_column: Any) -> Any:
    """SQL expression: the zone of the host in ``host_column``."""
    zone = (aggregate_db.zone_hosts_query()
            .with_only_columns(aggregate_db.META.value)
            .where(aggregate_db.HOST.host == host_column)
            .limit(1).scalar_subquery())
    return sa.func.coalesce(zone, conf.default_availability_zone)


def _member_hosts(group: Group, instance_uuid: str) -> Any:
    """SELECT of the hosts of the group's other placed members."""
    return (sa.select(INST.host)
            .join(MEMBER, MEMBER.instance_uuid == INST.uuid)
            .where(MEMBER.group_id == group.id, MEMBER.deleted == 0,
                   INST.deleted == 0, INST.host.is_not(None),
                   INST.uuid != instance_uuid))


def _full_hosts(group: Group, instance_uuid: str) -> Any:
    """Hosts that already hold ``max_per_host`` members."""
    return (_member_hosts(group, instance_uuid).group_by(INST.host)
            .having(sa.func.count() >= group.max_per_host))


def _group_clause(group: Group, instance_uuid: str) -> Any:
    if group.policy == ANTI_AFFINITY:
        return CN.host.not_in(_full_hosts(group, instance_uuid))
    if group.policy == AFFINITY:
        members = _member_hosts(group, instance_uuid)
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
    if group is None or group.policy not in (SOFT_AFFINITY,
                                             SOFT_ANTI_AFFINITY):
        return []
    count = (_member_hosts(group, req.instance_uuid)
             .where(INST.host == CN.host)
             .with_only_columns(sa.func.count()).scalar_subquery())
    return [count.desc() if group.policy == SOFT_AFFINITY else count.asc()]


def group_allows(session: Any, req: Any, host: str) -> bool:
    """In the claim's transaction: lock the group, then whether placing
    the instance on ``host`` keeps its hard policy."""
    group = req.group
    if group is None:
        return True
    session.execute(
        sa.update(GROUP).where(GROUP.id == group.id)
        .values(generation=GROUP.generation + 1)
        .execution_options(synchronize_session=False))
    hosts = [row.host for row in session.execute(
        _member_hosts(group, req.instance_uuid))]
    if group.policy == ANTI_AFFINITY:
        return hosts.count(host) < group.max_per_host
    if group.policy == AFFINITY:
        return all(other == host for other in hosts)
    return True


def describe(req: Any) -> str:
    """The constraints of ``req`` for a NoValidHost reason."""
    parts = []
    if req.zone:
        parts.append(f' in availability zone {req.zone}')
    if req.force_host or req.force_node:
        parts.append(f' on host {req.force_host or "(any)"} node '
                     f'{req.force_node or "(any)"}')
    if req.group is not None:
        parts.append(f' within the {req.group.policy} policy of server '
                     f'group {req.group.uuid}')
    return ''.join(parts)
