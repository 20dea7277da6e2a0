"""Availability zones, forced hosts and server group policies in host
selection and claims, on a real SQLite file."""

import threading

from oslo_config import cfg
import pytest

from lite_common import context as lite_context
from lite_common.tests.backends import db_url  # noqa: F401
from nova_lite import exception
from nova_lite.conductor import build
from nova_lite.conf import quota as quota_conf
from nova_lite.db import aggregates
from nova_lite.db import instances
from nova_lite.db import server_groups
from nova_lite.objects import instance as instance_obj
from nova_lite.scheduler import claims
from nova_lite.scheduler import constraints
from nova_lite.tests import database
from nova_lite.tests.unit.test_claims import _instance
from nova_lite.tests.unit.test_claims import _node
from nova_lite.tests.unit.test_claims import _service


@pytest.fixture(autouse=True)
def quota_options():
    """Group creation checks the [quota] server_groups limit."""
    quota_conf.register_opts(cfg.CONF)


def _hosts(ctx, *names):
    return {name: _node(ctx, _service(ctx, name)) for name in names}


def _zone(ctx, name, zone, *hosts):
    agg = aggregates.create(ctx, name, {'availability_zone': zone})
    for host in hosts:
        aggregates.add_host(ctx, agg['id'], host)
    return agg


def _group(ctx, policy, max_per_host=1):
    row = server_groups.create(
        ctx,
        {
            'name': policy,
            'project_id': 'p',
            'user_id': 'u',
            'policy': policy,
            'rules': None,
        },
    )
    return constraints.Group(row['id'], row['uuid'], policy, max_per_host)


def _member(ctx, group):
    inst = _instance(ctx)
    server_groups.add_members(ctx, group.id, [inst['uuid']])
    return inst


def _request(inst, **kwargs):
    return claims.Request(
        inst['uuid'],
        inst['vcpus'],
        inst['memory_mb'],
        inst['root_gb'],
        **kwargs,
    )


def _place(ctx, conf, inst, **kwargs):
    return claims.select_and_claim(ctx, conf, _request(inst, **kwargs)).host


def test_a_zone_holds_only_its_hosts(ctx, conf):
    _hosts(ctx, 'a', 'b', 'c')
    _zone(ctx, 'rack', 'az1', 'b')
    for _ in range(3):
        inst = _instance(ctx)
        assert _place(ctx, conf, inst, zone='az1') == 'b'
        assert (
            instances.instance_get_by_uuid(ctx, inst['uuid'])[
                'availability_zone'
            ]
            == 'az1'
        )


def test_the_default_zone_holds_hosts_without_one(ctx, conf):
    _hosts(ctx, 'a', 'b', 'c')
    _zone(ctx, 'rack', 'az1', 'b')
    # An aggregate without a zone does not take a host out of nova.
    plain = aggregates.create(ctx, 'plain', {})
    aggregates.add_host(ctx, plain['id'], 'c')
    placed = {_place(ctx, conf, _instance(ctx), zone='nova') for _ in range(4)}
    assert placed == {'a', 'c'}


def test_an_unplaced_request_gets_its_hosts_zone(ctx, conf):
    _hosts(ctx, 'a')
    inst = _instance(ctx)
    _place(ctx, conf, inst)
    assert (
        instances.instance_get_by_uuid(ctx, inst['uuid'])['availability_zone']
        == 'nova'
    )


def test_a_zone_without_room_is_no_valid_host(ctx, conf):
    _hosts(ctx, 'a')
    _zone(ctx, 'rack', 'az1')
    with pytest.raises(exception.NoValidHost, match='availability zone az1'):
        _place(ctx, conf, _instance(ctx), zone='az1')


def test_forced_host_and_node(ctx, conf):
    _hosts(ctx, 'a', 'b', 'c')
    for _ in range(2):
        assert _place(ctx, conf, _instance(ctx), force_host='c') == 'c'
    assert _place(ctx, conf, _instance(ctx), force_node='b-node') == 'b'
    with pytest.raises(exception.NoValidHost):
        _place(ctx, conf, _instance(ctx), force_host='nope')


def test_build_request_reads_zone_forced_host_and_group(ctx, conf):
    group = _group(ctx, 'anti-affinity')
    inst = _member(ctx, group)
    instances.instance_update(
        ctx,
        inst['uuid'],
        {
            'pinned_availability_zone': 'az1',
            'system_metadata': {'forced_host': 'h', 'forced_node': 'n'},
        },
    )
    obj = instance_obj.Instance.get_by_uuid(ctx, inst['uuid'])
    request = build.build_request(ctx, obj)
    assert (request.zone, request.force_host, request.force_node) == (
        'az1',
        'h',
        'n',
    )
    assert request.group == group


def test_anti_affinity_spreads_then_refuses(ctx, conf):
    _hosts(ctx, 'a', 'b', 'c')
    group = _group(ctx, 'anti-affinity')
    placed = [
        _place(ctx, conf, _member(ctx, group), group=group) for _ in range(3)
    ]
    assert sorted(placed) == ['a', 'b', 'c']
    with pytest.raises(exception.NoValidHost, match='anti-affinity'):
        _place(ctx, conf, _member(ctx, group), group=group)


def test_anti_affinity_max_server_per_host(ctx, conf):
    _hosts(ctx, 'a')
    group = _group(ctx, 'anti-affinity', max_per_host=2)
    for _ in range(2):
        assert _place(ctx, conf, _member(ctx, group), group=group) == 'a'
    with pytest.raises(exception.NoValidHost):
        _place(ctx, conf, _member(ctx, group), group=group)


def test_a_deleted_member_frees_its_host(ctx, conf):
    _hosts(ctx, 'a')
    group = _group(ctx, 'anti-affinity')
    first = _member(ctx, group)
    _place(ctx, conf, first, group=group)
    instances.instance_destroy(ctx, first['uuid'])
    assert server_groups.get(ctx, group.uuid)['members'] == []
    assert _place(ctx, conf, _member(ctx, group), group=group) == 'a'


def test_affinity_follows_the_first_member(ctx, conf):
    _hosts(ctx, 'a', 'b', 'c')
    group = _group(ctx, 'affinity')
    placed = {
        _place(ctx, conf, _member(ctx, group), group=group) for _ in range(4)
    }
    assert len(placed) == 1


def test_affinity_without_room_on_the_members_host(ctx, conf):
    nodes = _hosts(ctx, 'a', 'b')
    group = _group(ctx, 'affinity')
    host = _place(ctx, conf, _member(ctx, group), group=group)
    full = _instance(ctx, memory_mb=nodes[host]['memory_mb'] - 1024)
    assert _place(ctx, conf, full, force_host=host) == host
    with pytest.raises(exception.NoValidHost):
        _place(ctx, conf, _member(ctx, group), group=group)


@pytest.mark.parametrize(
    'policy,expected', [('soft-affinity', 1), ('soft-anti-affinity', 3)]
)
def test_soft_policies_prefer(ctx, conf, policy, expected):
    _hosts(ctx, 'a', 'b', 'c')
    group = _group(ctx, policy)
    placed = {
        _place(ctx, conf, _member(ctx, group), group=group) for _ in range(3)
    }
    assert len(placed) == expected
    # Soft: never a NoValidHost for the policy's sake.
    assert _place(ctx, conf, _member(ctx, group), group=group)


def test_the_claim_rechecks_a_stale_choice(ctx, conf):
    """Two boots chose host a before either was placed: the claim's
    own check refuses the second one there."""
    _hosts(ctx, 'a', 'b')
    group = _group(ctx, 'anti-affinity')
    first, second = _member(ctx, group), _member(ctx, group)
    with claims.db_api.context_manager.reader.using(ctx) as session:
        stale = claims.candidates(session, conf, _request(second, group=group))
    node_a = next(node for node in stale if node.host == 'a')
    assert claims.claim_on(ctx, conf, _request(first, group=group), node_a)
    assert not claims.claim_on(
        ctx, conf, _request(second, group=group), node_a
    )
    assert instances.instance_get_by_uuid(ctx, second['uuid'])['host'] is None
    node_b = next(node for node in stale if node.host == 'b')
    assert claims.claim_on(ctx, conf, _request(second, group=group), node_b)


@pytest.fixture
def any_ctx(db_url):  # noqa: F811
    """A context on a migrated database of each backend."""
    with database.temporary_database(db_url):
        yield lite_context.get_admin_context()


def test_concurrent_anti_affinity_boots_never_share_a_host(any_ctx, conf):
    """Eight boots of one anti-affinity group on three hosts, each
    having chosen its candidates before any claimed (the race the
    scheduler's filter cannot close): one member per host, on SQLite,
    MariaDB and PostgreSQL."""
    ctx = any_ctx
    _hosts(ctx, 'a', 'b', 'c')
    group = _group(ctx, 'anti-affinity')
    insts = [_member(ctx, group) for _ in range(8)]
    barrier = threading.Barrier(len(insts))
    placed, refused, errors = {}, [], []
    lock = threading.Lock()

    def boot(inst):
        """select_and_claim with the race window held open: every boot
        has chosen its candidates before any claims."""
        thread_ctx = lite_context.get_admin_context()
        request = _request(inst, group=group)
        try:
            with claims.db_api.context_manager.reader.using(
                thread_ctx
            ) as session:
                nodes = claims.candidates(session, conf, request)
            assert len(nodes) == 3
            barrier.wait(30)
            node = next(
                (
                    node
                    for node in nodes
                    if claims.claim_on(thread_ctx, conf, request, node)
                ),
                None,
            )
        except Exception as exc:  # pragma: no cover - reported below
            with lock:
                errors.append(exc)
            return
        with lock:
            if node is None:
                refused.append(inst['uuid'])
            else:
                placed[inst['uuid']] = node.host

    threads = [threading.Thread(target=boot, args=(i,)) for i in insts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not any(t.is_alive() for t in threads)
    assert errors == []
    assert sorted(placed.values()) == ['a', 'b', 'c']
    assert len(refused) == 5
    hosts = [
        instances.instance_get_by_uuid(ctx, i['uuid'])['host'] for i in insts
    ]
    assert sorted(h for h in hosts if h) == ['a', 'b', 'c']
