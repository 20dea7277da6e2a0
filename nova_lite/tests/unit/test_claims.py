"""Host selection and resource claims on a real SQLite file."""

import datetime
import threading
import uuid

from oslo_db import exception as db_exc
import pytest

from lite_common import context as lite_context
from lite_common import db as lite_db
from lite_common import db_retry
from nova_lite import exception
from nova_lite.db import compute_nodes
from nova_lite.db import instances
from nova_lite.db import services
from nova_lite.scheduler import claims


def _service(ctx, host, binary='nova-compute', last_seen_up=..., **values):
    svc = services.service_create(
        ctx,
        {
            'uuid': str(uuid.uuid4()),
            'host': host,
            'binary': binary,
            'topic': 'compute',
            **values,
        },
    )
    if last_seen_up is ...:
        services.service_heartbeat(ctx, svc['id'])
    elif last_seen_up is not None:
        services.service_update(ctx, svc['id'], {'last_seen_up': last_seen_up})
    return svc


def _node(ctx, svc, vcpus=16, memory_mb=16384, local_gb=1000, **values):
    return compute_nodes.compute_node_create(
        ctx,
        {
            'uuid': str(uuid.uuid4()),
            'service_id': svc['id'],
            'host': svc['host'],
            'hypervisor_hostname': svc['host'] + '-node',
            'hypervisor_type': 'fake',
            'vcpus': vcpus,
            'memory_mb': memory_mb,
            'local_gb': local_gb,
            **values,
        },
    )


def _instance(ctx, vcpus=1, memory_mb=1024, root_gb=1):
    return instances.instance_create(
        ctx,
        {
            'uuid': str(uuid.uuid4()),
            'project_id': 'p',
            'user_id': 'u',
            'flavor': {'name': 'f'},
            'vm_state': 'building',
            'vcpus': vcpus,
            'memory_mb': memory_mb,
            'root_gb': root_gb,
        },
    )


def _request(inst):
    return claims.Request(
        inst['uuid'], inst['vcpus'], inst['memory_mb'], inst['root_gb']
    )


def _node_usage(ctx, node_id):
    row = compute_nodes.compute_node_get(ctx, id=node_id)
    return (
        row['vcpus_used'],
        row['memory_mb_used'],
        row['local_gb_used'],
        row['running_vms'],
    )


def test_concurrent_claims_never_overcommit(ctx, conf):
    # Node a: memory is the limit (6 x 1024 MiB); 32 vCPU of room.
    a = _node(
        ctx,
        _service(ctx, 'a'),
        vcpus=16,
        memory_mb=6144,
        cpu_allocation_ratio=2.0,
    )
    # Node b: vCPU is the limit (3 x 2.0 = 6); plenty of memory.
    b = _node(
        ctx,
        _service(ctx, 'b'),
        vcpus=3,
        memory_mb=65536,
        cpu_allocation_ratio=2.0,
    )
    insts = [_instance(ctx) for _ in range(20)]
    barrier = threading.Barrier(len(insts))
    placed, refused, errors = {}, [], []
    lock = threading.Lock()

    def build(inst):
        # One context per thread, as each RPC call has its own.
        thread_ctx = lite_context.get_admin_context()
        barrier.wait(30)
        try:
            node = claims.select_and_claim(thread_ctx, conf, _request(inst))
        except exception.NoValidHost:
            with lock:
                refused.append(inst['uuid'])
        except Exception as exc:
            with lock:
                errors.append(exc)
        else:
            with lock:
                placed[inst['uuid']] = node.id

    threads = [threading.Thread(target=build, args=(i,)) for i in insts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not any(t.is_alive() for t in threads)

    assert errors == []
    assert len(placed) == 12
    assert len(refused) == 8
    assert sorted(placed.values()).count(a['id']) == 6
    assert sorted(placed.values()).count(b['id']) == 6

    for node in (a, b):
        vcpus_used, mem_used, disk_used, running = _node_usage(ctx, node['id'])
        row = compute_nodes.compute_node_get(ctx, id=node['id'])
        assert vcpus_used <= row['vcpus'] * row['cpu_allocation_ratio']
        assert mem_used <= row['memory_mb'] * row['ram_allocation_ratio']
        assert disk_used <= row['local_gb'] * row['disk_allocation_ratio']
        # The incremental claims agree with the sum over the instances.
        assert (
            compute_nodes.compute_node_refresh_usage(ctx, node['id'])[
                'running_vms'
            ]
            == running
            == 6
        )
        assert _node_usage(ctx, node['id']) == (
            vcpus_used,
            mem_used,
            disk_used,
            running,
        )

    for inst in insts:
        row = instances.instance_get_by_uuid(ctx, inst['uuid'])
        if inst['uuid'] in placed:
            assert row['compute_id'] == placed[inst['uuid']]
        else:
            assert (row['host'], row['node'], row['compute_id']) == (
                None,
                None,
                None,
            )


def test_claim_sets_host_node_and_compute_id_together(ctx, conf):
    svc = _service(ctx, 'host1')
    node = _node(ctx, svc)
    inst = _instance(ctx, vcpus=2, memory_mb=2048, root_gb=20)
    chosen = claims.select_and_claim(ctx, conf, _request(inst))
    assert (chosen.id, chosen.host, chosen.hypervisor_hostname) == (
        node['id'],
        'host1',
        'host1-node',
    )
    row = instances.instance_get_by_uuid(ctx, inst['uuid'])
    assert (row['host'], row['node'], row['compute_id']) == (
        'host1',
        'host1-node',
        node['id'],
    )
    assert _node_usage(ctx, node['id']) == (2, 2048, 20, 1)


def test_spreads_to_most_free_memory(ctx, conf):
    small = _node(ctx, _service(ctx, 'small'), memory_mb=4096)
    big = _node(ctx, _service(ctx, 'big'), memory_mb=8192)
    inst = _instance(ctx, memory_mb=1024)
    assert claims.select_and_claim(ctx, conf, _request(inst)).id == big['id']
    # big: 7168 free, small: 4096 free: big again; then ...
    for _ in range(3):
        claims.select_and_claim(ctx, conf, _request(_instance(ctx)))
    # ... big is down to 4096 free; the tie goes to the lower id.
    assert _node_usage(ctx, big['id'])[1] == 4096
    nxt = claims.select_and_claim(ctx, conf, _request(_instance(ctx)))
    assert nxt.id == min(small['id'], big['id'])


def _only_node_refused(ctx, conf, bad_node, good_node):
    """The bad node is never chosen, even when it has the most room."""
    first = _instance(ctx, memory_mb=1024)
    assert (
        claims.select_and_claim(ctx, conf, _request(first)).id
        == good_node['id']
    )
    # The good node is now full; the bad one still has room but is not
    # a candidate.
    second = _instance(ctx, memory_mb=1024)
    with pytest.raises(exception.NoValidHost):
        claims.select_and_claim(ctx, conf, _request(second))
    assert _node_usage(ctx, bad_node['id']) == (0, 0, 0, 0)
    row = instances.instance_get_by_uuid(ctx, second['uuid'])
    assert (row['host'], row['node'], row['compute_id']) == (None, None, None)


def test_disabled_service_is_never_chosen(ctx, conf):
    good = _node(ctx, _service(ctx, 'good'), memory_mb=1024)
    bad = _node(
        ctx,
        _service(ctx, 'bad', disabled=True, disabled_reason='maintenance'),
        memory_mb=65536,
    )
    _only_node_refused(ctx, conf, bad, good)


def test_service_not_seen_within_down_time_is_never_chosen(ctx, conf):
    good = _node(ctx, _service(ctx, 'good'), memory_mb=1024)
    stale = lite_db.utcnow() - datetime.timedelta(
        seconds=conf.service_down_time + 5
    )
    bad = _node(ctx, _service(ctx, 'bad', last_seen_up=stale), memory_mb=65536)
    _only_node_refused(ctx, conf, bad, good)


def test_service_never_seen_is_never_chosen(ctx, conf):
    good = _node(ctx, _service(ctx, 'good'), memory_mb=1024)
    bad = _node(ctx, _service(ctx, 'bad', last_seen_up=None), memory_mb=65536)
    _only_node_refused(ctx, conf, bad, good)


def test_down_time_option_is_honoured(ctx, conf):
    seen = lite_db.utcnow() - datetime.timedelta(seconds=120)
    node = _node(ctx, _service(ctx, 'host1', last_seen_up=seen))
    conf.set_override('service_down_time', 300)
    claims.select_and_claim(ctx, conf, _request(_instance(ctx)))
    conf.set_override('service_down_time', 60)
    with pytest.raises(exception.NoValidHost):
        claims.select_and_claim(ctx, conf, _request(_instance(ctx)))
    assert _node_usage(ctx, node['id'])[3] == 1


def test_forced_down_service_is_never_chosen(ctx, conf):
    good = _node(ctx, _service(ctx, 'good'), memory_mb=1024)
    bad = _node(ctx, _service(ctx, 'bad', forced_down=True), memory_mb=65536)
    _only_node_refused(ctx, conf, bad, good)


def test_deleted_service_is_never_chosen(ctx, conf):
    good = _node(ctx, _service(ctx, 'good'), memory_mb=1024)
    bad_svc = _service(ctx, 'bad')
    bad = _node(ctx, bad_svc, memory_mb=65536)
    services.service_destroy(ctx, bad_svc['id'])
    _only_node_refused(ctx, conf, bad, good)


def test_non_compute_service_is_never_chosen(ctx, conf):
    good = _node(ctx, _service(ctx, 'good'), memory_mb=1024)
    bad = _node(
        ctx, _service(ctx, 'bad', binary='nova-conductor'), memory_mb=65536
    )
    _only_node_refused(ctx, conf, bad, good)


def test_reserved_host_memory_is_not_claimed(ctx, conf):
    conf.set_override('reserved_host_memory_mb', 512)
    node = _node(ctx, _service(ctx, 'host1'), memory_mb=2048)
    claims.select_and_claim(
        ctx, conf, _request(_instance(ctx, memory_mb=1024))
    )
    # 1024 used + 1024 > 2048 - 512.
    with pytest.raises(exception.NoValidHost):
        claims.select_and_claim(
            ctx, conf, _request(_instance(ctx, memory_mb=1024))
        )
    claims.select_and_claim(ctx, conf, _request(_instance(ctx, memory_mb=512)))
    assert _node_usage(ctx, node['id'])[1] == 1536


def test_exclude_hosts(ctx, conf):
    a = _node(ctx, _service(ctx, 'a'), memory_mb=65536)
    b = _node(ctx, _service(ctx, 'b'), memory_mb=1024)
    chosen = claims.select_and_claim(
        ctx, conf, _request(_instance(ctx)), exclude_hosts=('a',)
    )
    assert chosen.id == b['id']
    assert _node_usage(ctx, a['id'])[3] == 0


def test_claim_for_missing_instance_is_rolled_back(ctx, conf):
    node = _node(ctx, _service(ctx, 'host1'))
    ghost = claims.Request(str(uuid.uuid4()), 1, 1024, 1)
    with pytest.raises(exception.InstanceNotFound):
        claims.select_and_claim(ctx, conf, ghost)
    # The usage UPDATE was in the same transaction: nothing is held.
    assert _node_usage(ctx, node['id']) == (0, 0, 0, 0)


def test_an_instance_is_placed_once_when_driven_twice(ctx, conf):
    """A build scheduled again by a recovery pass (or by two conductors)
    while the first placement stands: refused, nothing more held."""
    first = _node(ctx, _service(ctx, 'host1'))
    second = _node(ctx, _service(ctx, 'host2'))
    inst = _instance(ctx)
    chosen = claims.select_and_claim(ctx, conf, _request(inst))
    with pytest.raises(exception.AlreadyPlaced):
        claims.select_and_claim(ctx, conf, _request(inst))
    usage = {n['id']: _node_usage(ctx, n['id']) for n in (first, second)}
    assert usage[chosen.id] == (1, 1024, 1, 1)
    assert sum(u[3] for u in usage.values()) == 1
    assert (
        instances.instance_get_by_uuid(ctx, inst['uuid'])['compute_id']
        == chosen.id
    )


def _evacuation(ctx, source, status, dest_compute_id=None, **values):
    from nova_lite.db import migrations

    return migrations.migration_create(
        ctx,
        {
            'uuid': str(uuid.uuid4()),
            'instance_uuid': str(uuid.uuid4()),
            'migration_type': 'evacuation',
            'status': status,
            'source_compute': source,
            'dest_compute_id': dest_compute_id,
            **values,
        },
    )


@pytest.mark.parametrize('status', ['accepted', 'pre-migrating', 'done'])
def test_host_with_uncleaned_evacuation_is_never_chosen(ctx, conf, status):
    """Its copies are stale (done) or may still be needed: nothing is
    placed or moved there until its agent has cleaned up."""
    good = _node(ctx, _service(ctx, 'good'), memory_mb=1024)
    bad = _node(ctx, _service(ctx, 'bad'), memory_mb=65536)
    _evacuation(ctx, 'bad', status)
    _only_node_refused(ctx, conf, bad, good)
    with pytest.raises(exception.NoValidHost):
        claims.select_destination(
            ctx,
            conf,
            _request(_instance(ctx)),
            exclude_hosts=(),
            only_host='bad',
        )


@pytest.mark.parametrize('status', ['completed', 'failed', 'error'])
def test_host_with_ended_evacuations_is_chosen(ctx, conf, status):
    node = _node(ctx, _service(ctx, 'back'))
    _evacuation(ctx, 'back', status)
    assert (
        claims.select_and_claim(ctx, conf, _request(_instance(ctx))).id
        == node['id']
    )


def _pending_evacuation(ctx, node, status='accepted'):
    inst = _instance(ctx)
    return inst, _evacuation(
        ctx,
        'elsewhere',
        status,
        instance_uuid=inst['uuid'],
        dest_compute=node['host'],
        dest_node=node['hypervisor_hostname'],
    )


def test_evacuation_claim_results(ctx, conf):
    node = _node(ctx, _service(ctx, 'dest'), memory_mb=2048)
    other = _node(ctx, _service(ctx, 'other'))
    inst, mig = _pending_evacuation(ctx, node)
    claim = claims.claim_for_migration
    assert (
        claim(ctx, conf, _request(inst), node['id'], mig['id'])
        == claims.CLAIMED
    )
    # Repeated (a duplicate request, a resumption): no second claim.
    assert (
        claim(ctx, conf, _request(inst), node['id'], mig['id'])
        == claims.ALREADY_CLAIMED
    )
    assert (
        claim(ctx, conf, _request(inst), other['id'], mig['id'])
        == claims.NOT_CLAIMABLE
    )
    assert _node_usage(ctx, node['id'])[3] == 1
    big = _instance(ctx, memory_mb=4096)
    _x, big_mig = _pending_evacuation(ctx, node)
    assert (
        claim(ctx, conf, _request(big), node['id'], big_mig['id'])
        == claims.NO_ROOM
    )


def test_start_up_link_filling_leaves_unclaimed_moves_alone(ctx, conf):
    """A destination's start-up fills dest_compute_id only on moves past
    their claim; its own claim of a queued move then succeeds."""
    from nova_lite.db import links
    from nova_lite.db import migrations

    node = _node(ctx, _service(ctx, 'dest'))
    inst, evac = _pending_evacuation(ctx, node)
    cold_inst, cold = _pending_evacuation(ctx, node, 'pre-migrating')
    migrations.migration_update(
        ctx, cold['id'], {'migration_type': 'migration'}
    )
    assert (
        links.fill_all(
            ctx, links.fill_migration_dest_compute_ids, 10, host='dest'
        )
        == 0
    )
    assert (
        claims.claim_for_migration(
            ctx, conf, _request(inst), node['id'], evac['id']
        )
        == claims.CLAIMED
    )
    assert (
        claims.claim_for_resize(
            ctx, conf, _request(cold_inst), node['id'], cold['id']
        )
        == claims.CLAIMED
    )


def test_a_claim_whose_commit_went_unseen_is_made_once(ctx, conf):
    """Run again after an attempt whose commit went unseen (issue 29: a
    server stayed BUILD/scheduling on a host for ever), the claim finds
    the instance placed on the node: made, and the usage grown once."""
    node = _node(ctx, _service(ctx, 'host1'))
    inst = _instance(ctx, vcpus=2, memory_mb=2048, root_gb=20)
    attempts = []

    @db_retry.retried(rechecks=True)
    def claim_then_lose(context):
        attempts.append(1)
        chosen = claims.select_and_claim(context, conf, _request(inst))
        if len(attempts) == 1:
            raise db_exc.DBConnectionError()  # after the commit
        return chosen

    assert claim_then_lose(ctx).id == node['id']
    assert len(attempts) == 2
    assert _node_usage(ctx, node['id']) == (2, 2048, 20, 1)
