"""Moves (cold migration, resize, evacuation) within the zone the
instance is pinned to and its server group's policy: the requests the
conductor builds, members in flight counted on their destinations, and
the destination's claim re-checking a hard policy, on real SQLite."""

from types import SimpleNamespace
import uuid

from oslo_config import cfg
import pytest

from nova_lite import exception
from nova_lite.conductor import migrate
from nova_lite.conf import quota as quota_conf
from nova_lite.db import instances
from nova_lite.db import migrations
from nova_lite.scheduler import claims
from nova_lite.tests.unit.test_claims import _instance
from nova_lite.tests.unit.test_scheduler_constraints import _group
from nova_lite.tests.unit.test_scheduler_constraints import _hosts
from nova_lite.tests.unit.test_scheduler_constraints import _member
from nova_lite.tests.unit.test_scheduler_constraints import _place
from nova_lite.tests.unit.test_scheduler_constraints import _request
from nova_lite.tests.unit.test_scheduler_constraints import _zone


@pytest.fixture(autouse=True)
def quota_options():
    quota_conf.register_opts(cfg.CONF)


def _migration(
    ctx, inst, dest=None, status='pre-migrating', migration_type='migration'
):
    row = instances.instance_get_by_uuid(ctx, inst['uuid'])
    return migrations.migration_create(
        ctx,
        {
            'uuid': str(uuid.uuid4()),
            'instance_uuid': inst['uuid'],
            'migration_type': migration_type,
            'status': status,
            'source_compute': row['host'],
            'source_node': row['node'],
            'dest_compute': dest,
        },
    )


def _destination(ctx, conf, inst, exclude=(), only=None, **kwargs):
    row = instances.instance_get_by_uuid(ctx, inst['uuid'])
    exclude = exclude or (row['host'],)
    return claims.select_destination(
        ctx, conf, _request(inst, **kwargs), tuple(exclude), only
    ).host


def _as_object(row):
    return SimpleNamespace(
        uuid=row['uuid'],
        pinned_availability_zone=row['pinned_availability_zone'],
        flavor=row['flavor'],
    )


def test_move_request_holds_the_pinned_zone_and_the_group(ctx):
    group = _group(ctx, 'anti-affinity')
    inst = _member(ctx, group)
    instances.instance_update(
        ctx,
        inst['uuid'],
        {'availability_zone': 'az2', 'pinned_availability_zone': 'az1'},
    )
    obj = _as_object(instances.instance_get_by_uuid(ctx, inst['uuid']))
    request = migrate.move_request(ctx, obj, (1, 2, 3))
    assert (request.zone, request.group) == ('az1', group)
    assert (request.vcpus, request.memory_mb, request.root_gb) == (1, 2, 3)
    assert request.force_host is None
    # A forced evacuation is not held to the zone; the group holds.
    forced = migrate.move_request(ctx, obj, (1, 2, 3), in_zone=False)
    assert (forced.zone, forced.group) == (None, group)
    instances.instance_update(
        ctx, inst['uuid'], {'pinned_availability_zone': None}
    )
    obj = _as_object(instances.instance_get_by_uuid(ctx, inst['uuid']))
    assert migrate.move_request(ctx, obj, (1, 1, 1)).zone is None


def test_a_pinned_move_stays_in_its_zone(ctx, conf):
    _hosts(ctx, 'a', 'b', 'c')
    _zone(ctx, 'rack', 'az1', 'a', 'b')
    inst = _instance_on(ctx, conf, 'a')
    for _ in range(3):
        assert _destination(ctx, conf, inst, zone='az1') == 'b'
    with pytest.raises(exception.NoValidHost, match='availability zone az1'):
        _destination(ctx, conf, inst, only='c', zone='az1')
    assert _destination(ctx, conf, inst, only='c') == 'c'


def _instance_on(ctx, conf, host, group=None):
    inst = _instance(ctx) if group is None else _member(ctx, group)
    assert _place(ctx, conf, inst, force_host=host) == host
    return inst


def test_a_members_move_in_flight_holds_its_destination(ctx, conf):
    _hosts(ctx, 'a', 'b', 'c', 'd')
    group = _group(ctx, 'anti-affinity')
    first = _instance_on(ctx, conf, 'a', group)
    second = _instance_on(ctx, conf, 'b', group)
    # The first member's evacuation to c was chosen, not claimed yet.
    _migration(
        ctx, first, dest='c', status='accepted', migration_type='evacuation'
    )
    assert _destination(ctx, conf, second, group=group) == 'd'
    with pytest.raises(exception.NoValidHost, match='anti-affinity'):
        _destination(ctx, conf, second, only='c', group=group)


def test_an_unconfirmed_move_holds_both_ends(ctx, conf):
    _hosts(ctx, 'a', 'b', 'c', 'd')
    group = _group(ctx, 'anti-affinity')
    first = _instance_on(ctx, conf, 'a', group)
    second = _instance_on(ctx, conf, 'b', group)
    _migration(ctx, first, dest='c', status='finished')
    with pytest.raises(exception.NoValidHost):
        _destination(ctx, conf, second, only='a', group=group)
    assert _destination(ctx, conf, second, group=group) == 'd'


def test_a_member_moving_counts_once_per_host(ctx, conf):
    """max_server_per_host counts members, not the rows that place one
    member on a host twice (host and destination alike)."""
    _hosts(ctx, 'a', 'b')
    group = _group(ctx, 'anti-affinity', max_per_host=2)
    first = _instance_on(ctx, conf, 'a', group)
    second = _instance_on(ctx, conf, 'b', group)
    _migration(
        ctx, first, dest='a', status='finished', migration_type='resize'
    )
    assert _destination(ctx, conf, second, group=group) == 'a'


def test_affinity_moves_only_a_lone_member(ctx, conf):
    _hosts(ctx, 'a', 'b', 'c')
    group = _group(ctx, 'affinity')
    first = _instance_on(ctx, conf, 'a', group)
    second = _member(ctx, group)
    assert _place(ctx, conf, second, group=group) == 'a'
    with pytest.raises(exception.NoValidHost, match='affinity'):
        _destination(ctx, conf, first, group=group)
    instances.instance_destroy(ctx, second['uuid'])
    assert _destination(ctx, conf, first, group=group) in ('b', 'c')


@pytest.mark.parametrize(
    'policy,expected', [('soft-anti-affinity', 'c'), ('soft-affinity', 'b')]
)
def test_soft_policies_prefer_on_a_move(ctx, conf, policy, expected):
    _hosts(ctx, 'a', 'b', 'c')
    group = _group(ctx, policy)
    first = _instance_on(ctx, conf, 'a', group)
    _instance_on(ctx, conf, 'b', group)
    # c has the most free memory: only the policy makes b win.
    for _ in range(2):
        assert _destination(ctx, conf, first, group=group) == expected


@pytest.mark.parametrize(
    'claim,status,migration_type',
    [
        (claims.claim_for_migration, 'accepted', 'evacuation'),
        (claims.claim_for_resize, 'pre-migrating', 'migration'),
    ],
)
def test_the_destination_claim_rechecks_the_policy(
    ctx, conf, claim, status, migration_type
):
    """Two members' moves chose host c before either claimed: the
    second claim is refused (GROUP_POLICY) and changes nothing."""
    nodes = _hosts(ctx, 'a', 'b', 'c')
    group = _group(ctx, 'anti-affinity')
    first = _instance_on(ctx, conf, 'a', group)
    second = _instance_on(ctx, conf, 'b', group)
    mig1 = _migration(ctx, first, status=status, migration_type=migration_type)
    mig2 = _migration(
        ctx, second, status=status, migration_type=migration_type
    )
    node_c = nodes['c']['id']
    assert (
        claim(ctx, conf, _request(first, group=group), node_c, mig1['id'])
        == claims.CLAIMED
    )
    assert (
        claim(ctx, conf, _request(second, group=group), node_c, mig2['id'])
        == claims.GROUP_POLICY
    )
    row = migrations.migration_get(ctx, id=mig2['id'])
    assert (row['status'], row['dest_compute_id']) == (status, None)
    # The first one's repeated claim is still its own.
    assert (
        claim(ctx, conf, _request(first, group=group), node_c, mig1['id'])
        == claims.ALREADY_CLAIMED
    )
    # Without a group the same claim goes through.
    assert (
        claim(ctx, conf, _request(second), node_c, mig2['id'])
        == claims.CLAIMED
    )
