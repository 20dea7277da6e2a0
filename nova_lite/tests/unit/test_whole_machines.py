"""Bare-metal nodes as whole machines on a real SQLite file: a request
of a resource class takes one free node of that class and nothing else,
concurrent boots never share a node, a hypervisor request never lands
on one; a node that moves to another agent takes its instances' host
along; the hash ring of the ironic driver moves only a dead peer's
nodes."""

import threading
import uuid

import pytest

from lite_common import context as lite_context
from nova_lite import exception
from nova_lite.db import compute_nodes
from nova_lite.db import instances
from nova_lite.scheduler import claims
from nova_lite.tests.unit.test_claims import _instance
from nova_lite.tests.unit.test_claims import _node
from nova_lite.tests.unit.test_claims import _service
from nova_lite.virt import ironic

RC = 'CUSTOM_BAREMETAL'


def _machine(ctx, svc, rc=RC):
    node_uuid = str(uuid.uuid4())
    return _node(
        ctx,
        svc,
        vcpus=8,
        memory_mb=16384,
        local_gb=100,
        hypervisor_type='ironic',
        hypervisor_hostname=node_uuid,
        uuid=node_uuid,
        resource_class=rc,
    )


def _bm_request(inst, rc=RC):
    return claims.Request(inst['uuid'], 0, 0, 0, resource_class=rc)


def test_flavor_resource_class_and_counted_resources():
    specs = {
        'resources:CUSTOM_BAREMETAL': '1',
        'resources:VCPU': '0',
        'resources:MEMORY_MB': '0',
        'resources:DISK_GB': '0',
    }
    flavor = {'vcpus': 1, 'memory_mb': 1, 'root_gb': 0, 'extra_specs': specs}
    assert claims.flavor_resource_class(flavor) == RC
    assert claims.counted_resources(flavor, 1, 1, 0) == (0, 0, 0)
    assert claims.flavor_resource_class({'extra_specs': {}}) is None
    assert claims.counted_resources({}, 2, 512, 1) == (2, 512, 1)


def test_concurrent_boots_take_one_machine_each(ctx, conf):  # noqa: F811
    agent = _service(ctx, 'ironic-compute')
    machines = [_machine(ctx, agent) for _ in range(3)]
    _machine(ctx, agent, rc='CUSTOM_GPU')  # another class
    insts = [_instance(ctx, 0, 0, 0) for _ in range(6)]
    barrier = threading.Barrier(len(insts))
    placed, refused = {}, []
    lock = threading.Lock()

    def boot(inst):
        thread_ctx = lite_context.get_admin_context()
        barrier.wait(30)
        try:
            node = claims.select_and_claim(thread_ctx, conf, _bm_request(inst))
        except exception.NoValidHost as exc:
            with lock:
                refused.append(str(exc))
            return
        with lock:
            placed[inst['uuid']] = node.id

    threads = [threading.Thread(target=boot, args=(i,)) for i in insts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(placed.values()) == sorted(m['id'] for m in machines)
    assert len(refused) == 3
    assert all('resource class CUSTOM_BAREMETAL' in r for r in refused)


def test_a_hypervisor_request_never_lands_on_a_machine(ctx, conf):  # noqa: F811,E501
    _machine(ctx, _service(ctx, 'ironic-compute'))
    with pytest.raises(exception.NoValidHost):
        claims.select_and_claim(
            ctx, conf, claims.Request(_instance(ctx)['uuid'], 1, 1024, 1)
        )
    vm_host = _node(ctx, _service(ctx, 'kvm-1'))
    node = claims.select_and_claim(
        ctx, conf, claims.Request(_instance(ctx)['uuid'], 1, 1024, 1)
    )
    assert node.id == vm_host['id']


def test_a_moved_node_takes_its_instances_host_along(ctx, conf):  # noqa: F811,E501
    old, new = _service(ctx, 'ironic-a'), _service(ctx, 'ironic-b')
    machine = _machine(ctx, old)
    inst = _instance(ctx, 0, 0, 0)
    claims.select_and_claim(ctx, conf, _bm_request(inst))
    compute_nodes.compute_node_update(
        ctx, machine['id'], {'host': 'ironic-b', 'service_id': new['id']}
    )
    row = instances.instance_get_by_uuid(ctx, inst['uuid'])
    assert (row['host'], row['node'], row['compute_id']) == (
        'ironic-b',
        machine['hypervisor_hostname'],
        machine['id'],
    )


def test_the_ring_moves_only_a_dead_peers_nodes():
    nodes = [str(uuid.uuid4()) for _ in range(300)]
    peers = ['a', 'b', 'c']
    before = {n: ironic.owner(n, peers) for n in nodes}
    assert set(before.values()) == set(peers)
    after = {n: ironic.owner(n, ['a', 'c']) for n in nodes}
    moved = {n for n in nodes if before[n] != after[n]}
    assert moved == {n for n in nodes if before[n] == 'b'}


def test_a_move_counts_only_on_its_own_nodes(ctx, conf):  # noqa: F811
    """The usage refresh's subqueries are correlated with the node being
    refreshed: a resize between a and b (finished: both hold room) is
    counted on a and b, never on c."""
    from nova_lite.db import migrations

    a, b, c = (_node(ctx, _service(ctx, h)) for h in ('a', 'b', 'c'))
    inst = _instance(ctx)
    claims.select_and_claim(
        ctx, conf, claims.Request(inst['uuid'], 1, 1024, 1, force_host='a')
    )
    migrations.migration_create(
        ctx,
        {
            'uuid': str(uuid.uuid4()),
            'instance_uuid': inst['uuid'],
            'migration_type': 'resize',
            'status': 'finished',
            'source_compute': 'a',
            'source_node': a['hypervisor_hostname'],
            'dest_compute': 'b',
            'dest_node': b['hypervisor_hostname'],
            'dest_compute_id': b['id'],
        },
    )
    instances.instance_update(
        ctx,
        inst['uuid'],
        {'host': 'b', 'node': b['hypervisor_hostname'], 'compute_id': b['id']},
    )
    used = {
        n['host']: compute_nodes.compute_node_refresh_usage(ctx, n['id'])[
            'running_vms'
        ]
        for n in (a, b, c)
    }
    assert used == {'a': 1, 'b': 1, 'c': 0}


def _refusal(ctx, conf, rc=RC, **request) -> str:
    inst = _instance(ctx, 0, 0, 0)
    with pytest.raises(exception.NoValidHost) as caught:
        claims.select_and_claim(
            ctx,
            conf,
            claims.Request(
                inst['uuid'], 0, 0, 0, resource_class=rc, **request
            ),
        )
    return str(caught.value)


def test_no_valid_host_says_no_node_was_reported_yet(ctx, conf):  # noqa: F811,E501
    _node(ctx, _service(ctx, 'kvm-1'))  # a hypervisor is no machine
    reason = _refusal(ctx, conf)
    assert reason.startswith('No valid host was found. ')
    assert 'none has been reported yet' in reason
    assert 'meanwhile' not in reason


def test_no_valid_host_counts_nodes_in_use_unavailable_other_class(ctx, conf):  # noqa: F811,E501
    agent = _service(ctx, 'ironic-compute')
    used = _machine(ctx, agent)
    compute_nodes.compute_node_update(ctx, used['id'], {'running_vms': 1})
    _machine(ctx, agent, rc=None)  # cleaning, maintenance ...
    _machine(ctx, agent, rc=None)
    _machine(ctx, agent, rc='CUSTOM_GPU')
    reason = _refusal(ctx, conf)
    assert (
        'no available bare metal node of resource class '
        'CUSTOM_BAREMETAL: of 4 reported, 1 in use, 2 not available '
        '(cleaning, in maintenance, failed or being deployed'
    ) in reason
    assert '1 of another resource class.' in reason
    assert 'meanwhile' not in reason


def test_no_valid_host_names_a_down_service(ctx, conf):  # noqa: F811
    import datetime

    down = _service(
        ctx, 'ironic-compute', last_seen_up=(datetime.datetime(2020, 1, 1))
    )
    _machine(ctx, down)
    reason = _refusal(ctx, conf)
    assert (
        '1 free but served by a compute service that is down or disabled'
    ) in reason


def test_no_valid_host_names_what_the_request_excluded(ctx, conf):  # noqa: F811,E501
    _machine(ctx, _service(ctx, 'ironic-compute'))
    reason = _refusal(ctx, conf, required_traits=('CUSTOM_GOLD',))
    assert (
        '1 free but excluded by the request with traits CUSTOM_GOLD' in reason
    )
