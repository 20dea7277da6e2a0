"""The nova_lite database access functions, on a real SQLite file."""

import datetime
import uuid

import pytest
import sqlalchemy as sa

from lite_common import db as lite_db
from nova_lite import exception
from nova_lite.db import api as db_api
from nova_lite.db import compute_nodes
from nova_lite.db import flavors
from nova_lite.db import images
from nova_lite.db import instances
from nova_lite.db import migrations
from nova_lite.db import models
from nova_lite.db import services


def _uuid():
    return str(uuid.uuid4())


def make_service(ctx, host='host1', binary='nova-compute', **values):
    return services.service_create(
        ctx,
        {
            'uuid': _uuid(),
            'host': host,
            'binary': binary,
            'topic': 'compute',
            **values,
        },
    )


def make_node(ctx, service_id=None, host='host1', name='node1', **values):
    return compute_nodes.compute_node_create(
        ctx,
        {
            'uuid': _uuid(),
            'service_id': service_id,
            'host': host,
            'hypervisor_hostname': name,
            'hypervisor_type': 'fake',
            'vcpus': 8,
            'memory_mb': 8192,
            'local_gb': 100,
            **values,
        },
    )


def make_instance(ctx, **values):
    base = {
        'uuid': _uuid(),
        'project_id': 'p1',
        'user_id': 'u1',
        'flavor': {'name': 'small'},
        'vm_state': 'building',
        'vcpus': 1,
        'memory_mb': 512,
        'root_gb': 1,
    }
    base.update(values)
    return instances.instance_create(ctx, base)


def make_legacy_instance(ctx, **values):
    """An instance row as an old release wrote it (e.g. a node without
    compute_id), inserted directly: the DB API refuses to write one."""
    base = {
        'uuid': _uuid(),
        'project_id': 'p1',
        'user_id': 'u1',
        'flavor': {'name': 'small'},
        'vm_state': 'active',
        'vcpus': 1,
        'memory_mb': 512,
        'root_gb': 1,
        'metadata': {},
    }
    base.update(values)
    base['metadata_'] = base.pop('metadata')
    with db_api.context_manager.writer.using(ctx) as session:
        row = models.Instance(**base)
        session.add(row)
        session.flush()
        return db_api.as_dict(row)


# -- services ---------------------------------------------------------------


def test_service_create_and_get_by_each_key(ctx):
    created = make_service(ctx, host='h1')
    assert isinstance(created['id'], int)
    assert created['deleted'] == 0
    assert created['disabled'] is False
    assert created['forced_down'] is False
    assert created['report_count'] == 0
    assert created['created_at'] is not None

    assert (
        services.service_get(ctx, id=created['id'])['uuid'] == created['uuid']
    )
    assert (
        services.service_get(ctx, uuid=created['uuid'])['id'] == created['id']
    )
    assert (
        services.service_get(ctx, host='h1', binary='nova-compute')['id']
        == created['id']
    )
    with pytest.raises(exception.ServiceNotFound):
        services.service_get(ctx, host='h1', binary='nova-conductor')


def test_service_create_duplicate_host_binary(ctx):
    make_service(ctx, host='h1')
    with pytest.raises(exception.ServiceExists):
        make_service(ctx, host='h1')


def test_service_host_reusable_after_destroy(ctx):
    first = make_service(ctx, host='h1')
    services.service_destroy(ctx, first['id'])
    with pytest.raises(exception.ServiceNotFound):
        services.service_get(ctx, id=first['id'])
    second = make_service(ctx, host='h1')
    assert second['id'] != first['id']
    assert [s['id'] for s in services.service_get_all(ctx)] == [second['id']]


def test_service_get_all_filters(ctx):
    a = make_service(ctx, host='h1')
    b = make_service(ctx, host='h2')
    c = make_service(ctx, host='h1', binary='nova-conductor')
    assert [s['id'] for s in services.service_get_all(ctx)] == [
        a['id'],
        b['id'],
        c['id'],
    ]
    assert [
        s['id'] for s in services.service_get_all(ctx, binary='nova-compute')
    ] == [a['id'], b['id']]
    assert [
        s['id']
        for s in services.service_get_all(
            ctx, binary='nova-compute', host='h2'
        )
    ] == [b['id']]


def test_service_update(ctx):
    svc = make_service(ctx)
    updated = services.service_update(
        ctx, svc['id'], {'disabled': True, 'disabled_reason': 'maint'}
    )
    assert updated['disabled'] is True
    assert updated['disabled_reason'] == 'maint'
    assert updated['updated_at'] is not None
    again = services.service_get(ctx, id=svc['id'])
    assert again['disabled'] is True
    assert again['disabled_reason'] == 'maint'
    with pytest.raises(exception.ServiceNotFound):
        services.service_update(ctx, svc['id'] + 100, {'disabled': True})


def test_service_update_refuses_deleted(ctx):
    svc = make_service(ctx)
    services.service_destroy(ctx, svc['id'])
    with pytest.raises(exception.ServiceNotFound):
        services.service_update(ctx, svc['id'], {'disabled': True})


def test_service_heartbeat(ctx):
    svc = make_service(ctx)
    assert svc['last_seen_up'] is None
    before = lite_db.utcnow()
    first = services.service_heartbeat(ctx, svc['id'])
    second = services.service_heartbeat(ctx, svc['id'])
    after = lite_db.utcnow()
    assert before <= first <= second <= after
    row = services.service_get(ctx, id=svc['id'])
    assert row['report_count'] == 2
    assert row['last_seen_up'] == second


def test_service_heartbeat_of_missing_or_deleted_service(ctx):
    svc = make_service(ctx)
    with pytest.raises(exception.ServiceNotFound):
        services.service_heartbeat(ctx, svc['id'] + 100)
    services.service_destroy(ctx, svc['id'])
    with pytest.raises(exception.ServiceNotFound):
        services.service_heartbeat(ctx, svc['id'])


# -- compute nodes ----------------------------------------------------------


@pytest.mark.parametrize('missing', [None, ''])
def test_compute_node_create_refuses_missing_uuid(ctx, missing):
    svc = make_service(ctx)
    values = {
        'service_id': svc['id'],
        'host': 'host1',
        'hypervisor_hostname': 'node1',
        'hypervisor_type': 'fake',
    }
    if missing is not None:
        values['uuid'] = missing
    with pytest.raises(exception.ObjectActionError, match='uuid'):
        compute_nodes.compute_node_create(ctx, values)
    assert compute_nodes.compute_node_get_all(ctx) == []


def test_compute_node_create_and_get(ctx):
    svc = make_service(ctx)
    node = make_node(ctx, svc['id'])
    assert node['service_id'] == svc['id']
    assert (
        compute_nodes.compute_node_get(ctx, uuid=node['uuid'])['id']
        == node['id']
    )
    assert (
        compute_nodes.compute_node_get(
            ctx, host='host1', hypervisor_hostname='node1'
        )['id']
        == node['id']
    )
    assert [
        n['id']
        for n in compute_nodes.compute_node_get_all(ctx, service_id=svc['id'])
    ] == [node['id']]


def test_compute_node_create_duplicate_uuid(ctx):
    node = make_node(ctx)
    with pytest.raises(exception.ComputeNodeExists):
        compute_nodes.compute_node_create(
            ctx,
            {
                'uuid': node['uuid'],
                'host': 'other',
                'hypervisor_hostname': 'other',
                'hypervisor_type': 'fake',
            },
        )


# -- instances --------------------------------------------------------------


def test_instance_create_and_get(ctx):
    inst = make_instance(ctx, metadata={'k': 'v'}, display_name='vm')
    assert inst['deleted'] == 0
    assert inst['compute_id'] is None
    got = instances.instance_get_by_uuid(ctx, inst['uuid'])
    assert got['metadata'] == {'k': 'v'}
    assert got['flavor'] == {'name': 'small'}
    assert got['display_name'] == 'vm'
    with pytest.raises(exception.InstanceNotFound):
        instances.instance_get_by_uuid(ctx, _uuid())


def test_instance_get_all_filters(ctx):
    a = make_instance(
        ctx,
        project_id='p1',
        host='h1',
        vm_state='active',
        display_name='web-1',
    )
    b = make_instance(
        ctx,
        project_id='p1',
        host='h2',
        vm_state='stopped',
        display_name='db-1',
    )
    c = make_instance(
        ctx,
        project_id='p2',
        host='h1',
        vm_state='active',
        display_name='web_2',
        task_state='rebooting',
    )
    d = make_instance(
        ctx, project_id='p1', host='h1', vm_state='active', display_name='gone'
    )
    instances.instance_destroy(ctx, d['uuid'])

    def uuids(filters):
        return {i['uuid'] for i in instances.instance_get_all(ctx, filters)}

    assert uuids({}) == {a['uuid'], b['uuid'], c['uuid']}
    assert uuids({'deleted': True}) == {
        a['uuid'],
        b['uuid'],
        c['uuid'],
        d['uuid'],
    }
    assert uuids({'project_id': 'p1'}) == {a['uuid'], b['uuid']}
    assert uuids({'host': 'h1'}) == {a['uuid'], c['uuid']}
    assert uuids({'project_id': 'p1', 'host': 'h1'}) == {a['uuid']}
    assert uuids({'vm_state': ['stopped']}) == {b['uuid']}
    assert uuids({'vm_state': ['stopped', 'active']}) == {
        a['uuid'],
        b['uuid'],
        c['uuid'],
    }
    assert uuids({'task_state': ['rebooting']}) == {c['uuid']}
    assert uuids({'uuid': [a['uuid'], d['uuid']]}) == {a['uuid']}
    assert uuids({'name': 'web'}) == {a['uuid'], c['uuid']}
    # '_' is a literal, not a LIKE wildcard.
    assert uuids({'name': 'b_'}) == {c['uuid']}


def _set_created_at(ctx, uuid_, when):
    with db_api.context_manager.writer.using(ctx) as session:
        session.execute(
            sa.update(models.Instance)
            .where(models.Instance.uuid == uuid_)
            .values(created_at=when)
        )


def test_instance_get_all_newest_first_paged_by_marker(ctx):
    base = datetime.datetime(2024, 1, 1, 12, 0, 0)
    made = []
    # Two pairs share a created_at: the id breaks the tie (newest first).
    for offset in (0, 1, 1, 2, 3, 3, 4):
        inst = make_instance(ctx)
        _set_created_at(
            ctx, inst['uuid'], base + datetime.timedelta(minutes=offset)
        )
        made.append(inst)
    # created_at grows with the creation order and ties are broken by the
    # id, so newest first is the reverse creation order.
    expected = [i['uuid'] for i in reversed(made)]
    # Inserted in an order where neither created_at nor id alone sorts
    # correctly: the second of a tie has the larger id.
    assert made[2]['id'] > made[1]['id']
    listed = [i['uuid'] for i in instances.instance_get_all(ctx, {})]
    assert listed == expected

    pages = []
    marker = None
    while True:
        page = instances.instance_get_all(ctx, {}, limit=3, marker=marker)
        if not page:
            break
        assert len(page) <= 3
        pages.append([i['uuid'] for i in page])
        marker = page[-1]['uuid']
    assert [len(p) for p in pages] == [3, 3, 1]
    assert [u for p in pages for u in p] == expected

    # The marker inside a tie continues with the older row of the tie.
    tie_newer = made[2]['uuid']
    assert (
        instances.instance_get_all(ctx, {}, limit=1, marker=tie_newer)[0][
            'uuid'
        ]
        == made[1]['uuid']
    )


def test_instance_get_all_unknown_marker(ctx):
    make_instance(ctx)
    with pytest.raises(exception.InstanceNotFound):
        instances.instance_get_all(ctx, {}, marker=_uuid())


def test_instance_update_compare_and_swap(ctx):
    inst = make_instance(ctx, task_state='spawning')
    updated = instances.instance_update(
        ctx,
        inst['uuid'],
        {'task_state': None, 'vm_state': 'active'},
        expected_task_state='spawning',
    )
    assert updated['task_state'] is None
    assert updated['vm_state'] == 'active'

    # Expectation does not hold: nothing is written.
    with pytest.raises(exception.UnexpectedTaskState) as err:
        instances.instance_update(
            ctx,
            inst['uuid'],
            {'vm_state': 'error'},
            expected_task_state='deleting',
        )
    assert err.value.kwargs['actual'] is None
    assert err.value.kwargs['expected'] == ['deleting']
    assert (
        instances.instance_get_by_uuid(ctx, inst['uuid'])['vm_state']
        == 'active'
    )

    # None is a valid expectation, and a list allows several states.
    instances.instance_update(
        ctx,
        inst['uuid'],
        {'task_state': 'rebooting'},
        expected_task_state=None,
    )
    instances.instance_update(
        ctx,
        inst['uuid'],
        {'task_state': None},
        expected_task_state=['powering-on', 'rebooting'],
    )
    with pytest.raises(exception.UnexpectedTaskState):
        instances.instance_update(
            ctx,
            inst['uuid'],
            {'task_state': 'x'},
            expected_task_state=['a', 'b'],
        )
    # Without an expectation, any task state is overwritten.
    final = instances.instance_update(
        ctx, inst['uuid'], {'task_state': 'deleting'}
    )
    assert final['task_state'] == 'deleting'


def test_instance_update_missing_or_deleted(ctx):
    inst = make_instance(ctx)
    with pytest.raises(exception.InstanceNotFound):
        instances.instance_update(ctx, _uuid(), {'vm_state': 'active'})
    instances.instance_destroy(ctx, inst['uuid'])
    with pytest.raises(exception.InstanceNotFound):
        instances.instance_update(ctx, inst['uuid'], {'vm_state': 'active'})


def test_instance_update_compute_id_refreshes_node_usage(ctx):
    node = make_node(ctx, make_service(ctx)['id'])
    inst = make_instance(ctx, vcpus=2, memory_mb=1024, root_gb=10)
    instances.instance_update(
        ctx,
        inst['uuid'],
        {'host': 'host1', 'node': 'node1', 'compute_id': node['id']},
    )
    usage = compute_nodes.compute_node_get(ctx, id=node['id'])
    assert (
        usage['vcpus_used'],
        usage['memory_mb_used'],
        usage['local_gb_used'],
        usage['running_vms'],
    ) == (2, 1024, 10, 1)


def test_instance_destroy_soft_deletes_and_refreshes_usage(ctx):
    node = make_node(ctx, make_service(ctx)['id'])
    keep = make_instance(ctx, vcpus=1, memory_mb=512, root_gb=5)
    gone = make_instance(
        ctx, vcpus=2, memory_mb=1024, root_gb=10, task_state='deleting'
    )
    for inst in (keep, gone):
        instances.instance_update(
            ctx,
            inst['uuid'],
            {'host': 'host1', 'node': 'node1', 'compute_id': node['id']},
        )
    before = compute_nodes.compute_node_get(ctx, id=node['id'])
    assert (
        before['vcpus_used'],
        before['memory_mb_used'],
        before['local_gb_used'],
        before['running_vms'],
    ) == (3, 1536, 15, 2)

    destroyed = instances.instance_destroy(ctx, gone['uuid'])
    assert destroyed['deleted'] == gone['id']
    assert destroyed['deleted_at'] is not None
    assert destroyed['terminated_at'] is not None
    assert destroyed['vm_state'] == 'deleted'
    assert destroyed['task_state'] is None

    with pytest.raises(exception.InstanceNotFound):
        instances.instance_get_by_uuid(ctx, gone['uuid'])
    row = instances.instance_get_by_uuid(ctx, gone['uuid'], read_deleted=True)
    assert row['deleted'] == gone['id']

    after = compute_nodes.compute_node_get(ctx, id=node['id'])
    assert (
        after['vcpus_used'],
        after['memory_mb_used'],
        after['local_gb_used'],
        after['running_vms'],
    ) == (1, 512, 5, 1)
    with pytest.raises(exception.InstanceNotFound):
        instances.instance_destroy(ctx, gone['uuid'])


def test_a_deadlocked_destroy_is_run_again(ctx, monkeypatch):
    """MariaDB rolls back one of two deletes on one node that deadlock
    (the usage refresh reads every instance row of the node): the
    loser's whole transaction is run again, not failed."""
    from oslo_db import exception as db_exc

    node = make_node(ctx, make_service(ctx)['id'])
    inst = make_instance(ctx, vcpus=2)
    instances.instance_update(
        ctx,
        inst['uuid'],
        {'host': 'host1', 'node': 'node1', 'compute_id': node['id']},
    )
    real = compute_nodes.usage_refresh_statement
    calls = []

    def deadlock_once(node_ids):
        calls.append(node_ids)
        if len(calls) == 1:
            raise db_exc.DBDeadlock()
        return real(node_ids)

    monkeypatch.setattr(
        compute_nodes, 'usage_refresh_statement', deadlock_once
    )
    destroyed = instances.instance_destroy(ctx, inst['uuid'])
    assert len(calls) == 2
    assert destroyed['vm_state'] == 'deleted'
    after = compute_nodes.compute_node_get(ctx, id=node['id'])
    assert (after['vcpus_used'], after['running_vms']) == (0, 0)


# -- flavors ----------------------------------------------------------------


def _flavor(flavorid, name, **values):
    return {
        'flavorid': flavorid,
        'name': name,
        'vcpus': 1,
        'memory_mb': 512,
        **values,
    }


def test_flavor_create_and_duplicates(ctx):
    created = flavors.flavor_create(
        ctx, _flavor('1', 'm1.tiny', extra_specs={'a': 'b'})
    )
    assert created['is_public'] is True
    assert flavors.flavor_get(ctx, '1')['extra_specs'] == {'a': 'b'}
    with pytest.raises(exception.FlavorExists) as err:
        flavors.flavor_create(ctx, _flavor('2', 'm1.tiny'))
    assert err.value.kwargs == {'field': 'name', 'value': 'm1.tiny'}
    with pytest.raises(exception.FlavorExists) as err:
        flavors.flavor_create(ctx, _flavor('1', 'm1.other'))
    assert err.value.kwargs == {'field': 'flavorid', 'value': '1'}
    assert [f['flavorid'] for f in flavors.flavor_get_all(ctx)] == ['1']


def test_flavor_destroy(ctx):
    flavors.flavor_create(ctx, _flavor('1', 'm1.tiny'))
    flavors.flavor_destroy(ctx, '1')
    with pytest.raises(exception.FlavorNotFound):
        flavors.flavor_get(ctx, '1')
    with pytest.raises(exception.FlavorNotFound):
        flavors.flavor_destroy(ctx, '1')
    # Flavors are deleted for real: the name is free again.
    flavors.flavor_create(ctx, _flavor('1', 'm1.tiny'))


def test_image_create_duplicate_id_is_conflict(ctx):
    values = {
        'id': _uuid(),
        'name': 'cirros',
        'status': 'active',
        'visibility': 'public',
    }
    images.image_create(ctx, values)
    with pytest.raises(exception.Conflict):
        images.image_create(ctx, values)


# -- migrations -------------------------------------------------------------


def _migration(ctx, **values):
    base = {
        'uuid': _uuid(),
        'instance_uuid': _uuid(),
        'migration_type': 'migration',
        'status': 'migrating',
    }
    base.update(values)
    return migrations.migration_create(ctx, base)


def test_migration_get_all_filters(ctx):
    m1 = _migration(
        ctx,
        source_compute='a',
        dest_compute='b',
        status='migrating',
        migration_type='migration',
    )
    m2 = _migration(
        ctx,
        source_compute='b',
        dest_compute='c',
        status='finished',
        migration_type='resize',
    )
    m3 = _migration(
        ctx,
        source_compute='c',
        dest_compute='a',
        status='error',
        migration_type='live-migration',
    )
    m4 = _migration(
        ctx,
        source_compute='d',
        dest_compute='d',
        status='confirmed',
        migration_type='resize',
    )
    with db_api.context_manager.writer.using(ctx) as session:
        session.execute(
            sa.update(models.Migration)
            .where(models.Migration.id == m4['id'])
            .values(deleted=m4['id'])
        )

    def ids(filters):
        return {m['id'] for m in migrations.migration_get_all(ctx, filters)}

    assert ids({}) == {m1['id'], m2['id'], m3['id']}
    # host matches either end.
    assert ids({'host': 'a'}) == {m1['id'], m3['id']}
    assert ids({'host': 'b'}) == {m1['id'], m2['id']}
    assert ids({'host': 'd'}) == set()
    assert ids({'status': 'finished'}) == {m2['id']}
    assert ids({'status': ['error', 'migrating']}) == {m1['id'], m3['id']}
    assert ids({'migration_type': 'resize'}) == {m2['id']}
    assert ids({'host': 'c', 'migration_type': 'live-migration'}) == {m3['id']}
    assert ids(
        {
            'host': 'c',
            'status': ['finished', 'error'],
            'migration_type': 'resize',
        }
    ) == {m2['id']}
    assert ids({'instance_uuid': m1['instance_uuid']}) == {m1['id']}
    assert ids({'source_compute': 'b'}) == {m2['id']}


def test_migration_get_all_newest_first_and_marker(ctx):
    made = [_migration(ctx) for _ in range(4)]
    listed = migrations.migration_get_all(ctx, {})
    assert [m['id'] for m in listed] == [m['id'] for m in reversed(made)]
    page = migrations.migration_get_all(
        ctx, {}, limit=2, marker=made[2]['uuid']
    )
    assert [m['id'] for m in page] == [made[1]['id'], made[0]['id']]
    with pytest.raises(exception.MigrationNotFound):
        migrations.migration_get_all(ctx, {}, marker=_uuid())


MOVE_BUG = (
    'nova_lite/db/instances.py:108-111 (instance_update) refreshes the '
    'usage of the new compute_id only: the node the instance leaves keeps '
    'its old usage. Fix: remember row.compute_id before applying values '
    'and refresh {old, new} - {None}.'
)


def test_instance_update_moving_node_refreshes_both_nodes(ctx):
    svc = make_service(ctx)
    a = make_node(ctx, svc['id'], name='a')
    b = make_node(ctx, svc['id'], name='b')
    inst = make_instance(ctx, vcpus=2, memory_mb=1024, root_gb=10)
    instances.instance_update(
        ctx,
        inst['uuid'],
        {'host': 'host1', 'node': 'a', 'compute_id': a['id']},
    )
    instances.instance_update(
        ctx, inst['uuid'], {'node': 'b', 'compute_id': b['id']}
    )
    assert compute_nodes.compute_node_get(ctx, id=b['id'])['vcpus_used'] == 2
    assert compute_nodes.compute_node_get(ctx, id=a['id'])['vcpus_used'] == 0


def test_instance_update_unscheduling_frees_the_node(ctx):
    node = make_node(ctx, make_service(ctx)['id'])
    inst = make_instance(ctx, vcpus=2, memory_mb=1024, root_gb=10)
    instances.instance_update(
        ctx,
        inst['uuid'],
        {'host': 'host1', 'node': 'node1', 'compute_id': node['id']},
    )
    # e.g. shelve offload: compute_id is NULL again.
    instances.instance_update(
        ctx, inst['uuid'], {'host': None, 'node': None, 'compute_id': None}
    )
    row = compute_nodes.compute_node_get(ctx, id=node['id'])
    assert (row['vcpus_used'], row['running_vms']) == (0, 0)
