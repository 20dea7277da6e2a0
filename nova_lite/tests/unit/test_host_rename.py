"""nova-lite-manage compute rename, on a real SQLite database."""

import datetime
import uuid

import pytest

from lite_common import db as lite_db
from nova_lite import exception
from nova_lite.db import compute_nodes as node_db
from nova_lite.db import host_rename
from nova_lite.db import instances as instance_db
from nova_lite.db import migrations as migration_db
from nova_lite.db import services as service_db

DOWN = 60


def _host(ctx, host, seen_ago=600):  # type: ignore[no-untyped-def]
    svc = service_db.service_create(
        ctx,
        {
            'uuid': str(uuid.uuid4()),
            'host': host,
            'binary': 'nova-compute',
            'topic': 'compute',
            'version': 2,
            'last_seen_up': lite_db.utcnow()
            - datetime.timedelta(seconds=seen_ago),
        },
    )
    node = node_db.compute_node_create(
        ctx,
        {
            'uuid': str(uuid.uuid4()),
            'host': host,
            'hypervisor_hostname': host,
            'service_id': svc['id'],
            'hypervisor_type': 'local',
        },
    )
    return svc, node


def _instance(ctx, node):  # type: ignore[no-untyped-def]
    return instance_db.instance_create(
        ctx,
        {
            'uuid': str(uuid.uuid4()),
            'project_id': 'p',
            'user_id': 'u',
            'flavor': {},
            'vm_state': 'active',
            'host': node['host'],
            'node': node['hypervisor_hostname'],
            'compute_id': node['id'],
        },
    )


def test_rename_moves_every_record_and_keeps_the_links(ctx):
    svc, node = _host(ctx, 'old')
    _other_svc, other = _host(ctx, 'other')
    mine = [_instance(ctx, node) for _ in range(3)]
    theirs = _instance(ctx, other)
    migration = migration_db.migration_create(
        ctx,
        {
            'uuid': str(uuid.uuid4()),
            'instance_uuid': mine[0]['uuid'],
            'source_compute': 'old',
            'source_node': 'old',
            'dest_compute': 'other',
            'dest_node': 'other',
            'migration_type': 'evacuation',
            'status': 'done',
        },
    )

    counts = host_rename.rename_compute_host(ctx, 'old', 'new', DOWN)

    assert counts == {
        'services': 1,
        'compute nodes': 1,
        'instances': 3,
        'migrations': 1,
    }
    renamed = service_db.service_get(ctx, id=svc['id'])
    assert renamed['host'] == 'new' and renamed['uuid'] == svc['uuid']
    moved = node_db.compute_node_get(ctx, id=node['id'])
    assert (moved['host'], moved['hypervisor_hostname']) == ('new', 'new')
    assert moved['service_id'] == svc['id'] and moved['uuid'] == node['uuid']
    for inst in mine:
        row = instance_db.instance_get_by_uuid(ctx, inst['uuid'])
        assert (row['host'], row['node'], row['compute_id']) == (
            'new',
            'new',
            node['id'],
        )
    row = instance_db.instance_get_by_uuid(ctx, theirs['uuid'])
    assert row['host'] == 'other'
    mig = migration_db.migration_get(ctx, uuid=migration['uuid'])
    assert (mig['source_compute'], mig['source_node']) == ('new', 'new')
    assert (mig['dest_compute'], mig['dest_node']) == ('other', 'other')


def test_rename_keeps_a_hypervisor_name_that_is_not_the_host(ctx):
    svc, node = _host(ctx, 'old')
    node_db.compute_node_update(
        ctx, node['id'], {'hypervisor_hostname': 'hv.example'}
    )
    host_rename.rename_compute_host(ctx, 'old', 'new', DOWN)
    moved = node_db.compute_node_get(ctx, id=node['id'])
    assert (moved['host'], moved['hypervisor_hostname']) == (
        'new',
        'hv.example',
    )


@pytest.mark.parametrize(
    'old,new,setup,expected',
    [
        ('old', 'new', lambda ctx: _host(ctx, 'old', seen_ago=5), 'still up'),
        ('nope', 'new', lambda ctx: None, "no compute service on host 'nope'"),
        (
            'old',
            'taken',
            lambda ctx: (_host(ctx, 'old'), _host(ctx, 'taken')),
            "already exists on host 'taken'",
        ),
        ('old', 'old', lambda ctx: _host(ctx, 'old'), 'must differ'),
    ],
)
def test_rename_refusals_change_nothing(ctx, old, new, setup, expected):
    setup(ctx)
    before = node_db.compute_node_get_all(ctx)
    with pytest.raises(exception.HostRenameRefused) as err:
        host_rename.rename_compute_host(ctx, old, new, DOWN)
    assert expected in str(err.value)
    assert node_db.compute_node_get_all(ctx) == before


def test_upgrade_check_reports_duplicate_node_records(ctx):
    from oslo_upgradecheck import upgradecheck

    from nova_lite.cmd import status

    _host(ctx, 'a')
    assert status.Checks()._check_duplicate_nodes().code == (
        upgradecheck.Code.SUCCESS
    )
    _svc, node = _host(ctx, 'b')
    node_db.compute_node_update(ctx, node['id'], {'hypervisor_hostname': 'a'})
    result = status.Checks()._check_duplicate_nodes()
    assert result.code == upgradecheck.Code.WARNING
    assert 'a (2 records)' in result.details
