"""Cold migration and resize through the API with real services in
process (local driver, SQLite, inproc bus): every step checks host, node,
compute_id, flavor, the migration's status and dest_compute_id, and the
disk files."""

from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from lite_common import context as lite_context
from nova_lite import exception
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite.db import api as db_api
from nova_lite.db import compute_nodes as node_db
from nova_lite.db import instances as instance_db
from nova_lite.db import migrations as migration_db
from nova_lite.db import models
from nova_lite.objects import base as objects_base
from nova_lite.objects import instance as instance_obj
from nova_lite.tests.functional.test_evacuate import Client
from nova_lite.tests.functional.test_evacuate import _image
from nova_lite.tests.functional.test_evacuate import _restart
from nova_lite.tests.stack import Stack


@pytest.fixture
def client():  # type: ignore[no-untyped-def]
    stack = Stack(computes=2, driver='local').start()
    client = Client(stack)
    client.ok(
        'POST',
        '/flavors',
        {
            'flavor': {
                'name': 'small',
                'id': 'f1',
                'vcpus': 1,
                'ram': 64,
                'disk': 1,
            }
        },
    )
    client.ok(
        'POST',
        '/flavors',
        {
            'flavor': {
                'name': 'large',
                'id': 'f2',
                'vcpus': 2,
                'ram': 128,
                'disk': 2,
            }
        },
    )
    client.image = _image(stack)
    yield client
    stack.stop()


def _ctx() -> Any:
    return lite_context.get_admin_context()


def _other(host: str) -> str:
    return 'compute-2' if host == 'compute-1' else 'compute-1'


def _node(host: str) -> dict[str, Any]:
    return node_db.compute_node_get(_ctx(), host=host)


def _instance(uuid: str) -> dict[str, Any]:
    return instance_db.instance_get_by_uuid(_ctx(), uuid)


def _migration(uuid: str) -> dict[str, Any]:
    [row] = migration_db.migration_get_all(_ctx(), {'instance_uuid': uuid})
    return row


def _disk(client: Client, host: str, name: str) -> Path:
    return Path(client.stack.state_path) / host / 'instances' / name / 'disk'


def _action(
    client: Client, uuid: str, body: Any, version: str = '2.56'
) -> Any:
    return client.call('POST', f'/servers/{uuid}/action', body, version)


def _wait_status(client: Client, uuid: str, status: str) -> dict[str, Any]:
    def ready() -> Any:
        server = client.server(uuid)
        assert server['status'] != 'ERROR', server
        return server['status'] == status and server

    return client.wait(ready, f'{uuid} {status}')


def _wait_migration(client: Client, uuid: str, status: str) -> None:
    client.wait(
        lambda: _migration(uuid)['status'] == status, f'migration {status}'
    )


def _check_placed(uuid: str, host: str, flavorid: str) -> None:
    inst, node = _instance(uuid), _node(host)
    assert (inst['host'], inst['node'], inst['compute_id']) == (
        host,
        node['hypervisor_hostname'],
        node['id'],
    )
    assert inst['flavor']['flavorid'] == flavorid
    flavor_vcpus = {'f1': 1, 'f2': 2}[flavorid]
    assert inst['vcpus'] == flavor_vcpus


def test_migrate_then_confirm(client):
    server = client.boot('cold')
    uuid, source = server['id'], server['OS-EXT-SRV-ATTR:host']
    dest = _other(source)
    resp = _action(client, uuid, {'migrate': None}, version='2.1')
    assert resp.status_int == 202 and not resp.body, resp.text
    shown = _wait_status(client, uuid, 'VERIFY_RESIZE')
    assert shown['OS-EXT-SRV-ATTR:host'] == dest
    _check_placed(uuid, dest, 'f1')
    migration = _migration(uuid)
    assert migration['migration_type'] == 'migration'
    assert migration['status'] == 'finished'
    assert migration['dest_compute_id'] == _node(dest)['id']
    assert (migration['source_compute'], migration['dest_compute']) == (
        source,
        dest,
    )
    assert _disk(client, dest, uuid).is_file()
    assert not _disk(client, source, uuid).exists()
    assert _disk(client, source, uuid + '_resize').is_file()

    resp = _action(client, uuid, {'confirmResize': None})
    assert resp.status_int == 204, resp.text
    _wait_migration(client, uuid, 'confirmed')
    _wait_status(client, uuid, 'ACTIVE')
    _check_placed(uuid, dest, 'f1')
    assert _instance(uuid)['old_flavor'] is None
    assert not _disk(client, source, uuid + '_resize').exists()
    assert _disk(client, dest, uuid).is_file()
    again = _action(client, uuid, {'confirmResize': None})
    assert again.status_int == 409, again.text


def test_resize_then_revert(client):
    server = client.boot('grow')
    uuid, source = server['id'], server['OS-EXT-SRV-ATTR:host']
    dest = _other(source)
    resp = _action(client, uuid, {'resize': {'flavorRef': 'f2'}})
    assert resp.status_int == 202, resp.text
    _wait_status(client, uuid, 'VERIFY_RESIZE')
    _check_placed(uuid, dest, 'f2')
    inst = _instance(uuid)
    assert (
        inst['old_flavor']['flavorid'],
        inst['new_flavor']['flavorid'],
    ) == ('f1', 'f2')
    migration = _migration(uuid)
    assert (migration['migration_type'], migration['status']) == (
        'resize',
        'finished',
    )
    assert migration['dest_compute_id'] == _node(dest)['id']
    assert _disk(client, dest, uuid).stat().st_size == 2 * 1024**3
    # The source still holds the instance's room until confirm/revert.
    assert _node(source)['running_vms'] == 1

    resp = _action(client, uuid, {'revertResize': None})
    assert resp.status_int == 202, resp.text
    _wait_migration(client, uuid, 'reverted')
    shown = _wait_status(client, uuid, 'ACTIVE')
    assert shown['OS-EXT-SRV-ATTR:host'] == source
    _check_placed(uuid, source, 'f1')
    assert _instance(uuid)['new_flavor'] is None
    assert _migration(uuid)['dest_compute_id'] == _node(dest)['id']
    assert not _disk(client, dest, uuid).exists()
    assert _disk(client, source, uuid).is_file()
    assert not _disk(client, source, uuid + '_resize').exists()
    assert _node(dest)['running_vms'] == 0


def test_resize_then_confirm(client):
    server = client.boot('keep')
    uuid, source = server['id'], server['OS-EXT-SRV-ATTR:host']
    dest = _other(source)
    assert (
        _action(client, uuid, {'resize': {'flavorRef': 'f2'}}).status_int
        == 202
    )
    _wait_status(client, uuid, 'VERIFY_RESIZE')
    assert _action(client, uuid, {'confirmResize': None}).status_int == 204
    _wait_migration(client, uuid, 'confirmed')
    _wait_status(client, uuid, 'ACTIVE')
    _check_placed(uuid, dest, 'f2')
    assert client.server(uuid)['flavor']['original_name'] == 'large'
    assert not _disk(client, source, uuid + '_resize').exists()
    client.wait(
        lambda: _node(source)['running_vms'] == 0, 'the source usage freed'
    )


def test_refusals(client):
    server = client.boot('refused')
    uuid, source = server['id'], server['OS-EXT-SRV-ATTR:host']
    same = _action(client, uuid, {'resize': {'flavorRef': 'f1'}})
    assert same.status_int == 400 and 'must change flavor' in same.text
    missing = _action(client, uuid, {'resize': {'flavorRef': 'nope'}})
    assert missing.status_int == 400, missing.text
    assert _action(client, uuid, {'resize': {}}).status_int == 400
    for action in ('confirmResize', 'revertResize'):
        resp = _action(client, uuid, {action: None})
        assert resp.status_int == 409, (action, resp.text)
    unknown = _action(client, uuid, {'migrate': {'host': 'nowhere'}})
    assert unknown.status_int == 400 and 'nowhere' in unknown.text
    itself = _action(client, uuid, {'migrate': {'host': source}})
    assert itself.status_int == 400, itself.text
    instance_db.instance_update(_ctx(), uuid, {'task_state': 'rebooting'})
    busy = _action(client, uuid, {'resize': {'flavorRef': 'f2'}})
    assert busy.status_int == 409, busy.text
    assert _action(client, uuid, {'migrate': None}).status_int == 409
    assert not migration_db.migration_get_all(_ctx(), {'instance_uuid': uuid})
    # Before 2.56 the body is not read, as upstream: an unknown host in
    # it is ignored and the scheduler chooses.
    instance_db.instance_update(_ctx(), uuid, {'task_state': None})
    old = _action(
        client, uuid, {'migrate': {'host': 'nowhere'}}, version='2.55'
    )
    assert old.status_int == 202, old.text
    _wait_status(client, uuid, 'VERIFY_RESIZE')


def test_migrate_to_a_host_and_no_valid_host(client):
    server = client.boot('target')
    uuid, source = server['id'], server['OS-EXT-SRV-ATTR:host']
    dest = _other(source)
    client.ok(
        'PUT',
        f'/os-services/{client.service_id(dest)}',
        {'status': 'disabled', 'disabled_reason': 'maint'},
    )
    assert _action(client, uuid, {'migrate': None}).status_int == 202
    _wait_migration(client, uuid, 'error')
    after = client.wait(
        lambda: (
            (s := client.server(uuid))['OS-EXT-STS:task_state'] is None and s
        ),
        'task_state cleared',
    )
    assert after['status'] == 'ACTIVE'
    _check_placed(uuid, source, 'f1')
    assert _instance(uuid)['new_flavor'] is None
    client.ok(
        'PUT', f'/os-services/{client.service_id(dest)}', {'status': 'enabled'}
    )
    for row in migration_db.migration_get_all(_ctx(), {'instance_uuid': uuid}):
        migration_db.migration_update(_ctx(), row['id'], {'deleted': 1})
    assert _action(client, uuid, {'migrate': {'host': dest}}).status_int == 202
    _wait_status(client, uuid, 'VERIFY_RESIZE')
    _check_placed(uuid, dest, 'f1')


def test_node_without_compute_id_is_refused_on_the_conductor(client):
    server = client.boot('linked')
    ctx = _ctx()
    remote = conductor_rpcapi.ObjectIndirectionAPI(client.stack.conf)
    with objects_base.remote_objects(remote):
        inst = instance_obj.Instance.get_by_uuid(ctx, server['id'])
        inst.node = 'another-node'
        with pytest.raises(
            exception.ObjectActionError, match='must name one compute node'
        ):
            inst.save()
    assert (
        _instance(server['id'])['node']
        == server['OS-EXT-SRV-ATTR:hypervisor_hostname']
    )


def _unlink_as_an_old_release(ctx, uuid):
    """compute_id unset beside a node name, as written before the link
    existed (the DB API refuses to write that today)."""
    with db_api.context_manager.writer.using(ctx) as session:
        session.execute(
            sa.update(models.Instance)
            .where(models.Instance.uuid == uuid)
            .values(compute_id=None)
        )


def test_agent_startup_fills_its_records_links(client):
    server = client.boot('old')
    uuid, host = server['id'], server['OS-EXT-SRV-ATTR:host']
    node = _node(host)
    ctx = _ctx()
    migration = migration_db.migration_create(
        ctx,
        {
            'uuid': 'c0ffee00-0000-4000-8000-000000000001',
            'instance_uuid': uuid,
            'migration_type': 'migration',
            'status': 'confirmed',
            'source_compute': _other(host),
            'dest_compute': host,
            'dest_node': node['hypervisor_hostname'],
        },
    )
    _unlink_as_an_old_release(ctx, uuid)
    node_db.compute_node_update(ctx, node['id'], {'service_id': None})
    _restart(client, host)
    assert _instance(uuid)['compute_id'] == node['id']
    assert (
        migration_db.migration_get(ctx, id=migration['id'])['dest_compute_id']
        == node['id']
    )
    assert _node(host)['service_id'] is not None


def test_startup_recovers_interrupted_moves_without_destroying(client, caplog):
    sending = client.boot('sending')
    waiting = client.boot('waiting')
    ctx = _ctx()
    for server, task, status in (
        (sending, 'resize_migrating', 'migrating'),
        (waiting, 'resize_finish', 'post-migrating'),
    ):
        host = server['OS-EXT-SRV-ATTR:host']
        migration_db.migration_create(
            ctx,
            {
                'uuid': server['id'][:-12] + '0' * 12,
                'instance_uuid': server['id'],
                'migration_type': 'migration',
                'status': status,
                'source_compute': host,
                'source_node': server['OS-EXT-SRV-ATTR:hypervisor_hostname'],
                'dest_compute': _other(host),
            },
        )
        instance_db.instance_update(ctx, server['id'], {'task_state': task})
    host = sending['OS-EXT-SRV-ATTR:host']
    here = _disk(client, host, sending['id']).parent
    here.rename(here.with_name(here.name + '_resize'))  # mid-send
    _restart(client, host)
    if waiting['OS-EXT-SRV-ATTR:host'] != host:
        _restart(client, waiting['OS-EXT-SRV-ATTR:host'])
    assert _disk(client, host, sending['id']).is_file()  # put back
    assert _migration(sending['id'])['status'] == 'error'
    assert _instance(sending['id'])['task_state'] is None
    # Another agent's step: logged, left alone, nothing destroyed.
    assert _instance(waiting['id'])['task_state'] == 'resize_finish'
    assert _migration(waiting['id'])['status'] == 'post-migrating'
    assert _disk(
        client, waiting['OS-EXT-SRV-ATTR:host'], waiting['id']
    ).is_file()
    assert 'left alone' in caplog.text


def test_delete_in_verify_resize_confirms_first(client):
    server = client.boot('dropped')
    uuid, source = server['id'], server['OS-EXT-SRV-ATTR:host']
    dest = _other(source)
    assert _action(client, uuid, {'migrate': None}).status_int == 202
    _wait_status(client, uuid, 'VERIFY_RESIZE')
    assert client.call('DELETE', f'/servers/{uuid}').status_int == 204
    _wait_migration(client, uuid, 'confirmed')
    client.wait(
        lambda: client.call('GET', f'/servers/{uuid}').status_int == 404,
        'the server gone',
    )
    client.wait(
        lambda: (
            not _disk(client, source, uuid + '_resize').exists()
            and not _disk(client, dest, uuid).exists()
        ),
        'disks gone',
    )


def test_resize_to_the_same_host_only_when_allowed():
    stack = Stack(computes=1, driver='local').start()
    try:
        client = Client(stack)
        for flavor, vcpus in (('f1', 1), ('f2', 2)):
            client.ok(
                'POST',
                '/flavors',
                {
                    'flavor': {
                        'name': flavor,
                        'id': flavor,
                        'vcpus': vcpus,
                        'ram': 64,
                        'disk': vcpus,
                    }
                },
            )
        client.image = _image(stack)
        uuid = client.boot('alone')['id']
        resize = {'resize': {'flavorRef': 'f2'}}
        assert _action(client, uuid, resize).status_int == 202
        _wait_migration(client, uuid, 'error')  # no other host
        client.wait(
            lambda: client.server(uuid)['status'] == 'ACTIVE',
            'the server ACTIVE again',
        )
        stack.conf.set_override('allow_resize_to_same_host', True)
        migration_db.migration_update(
            _ctx(), _migration(uuid)['id'], {'deleted': 1}
        )
        assert _action(client, uuid, resize).status_int == 202
        _wait_status(client, uuid, 'VERIFY_RESIZE')
        _check_placed(uuid, 'compute-1', 'f2')
        assert _disk(client, 'compute-1', uuid + '_resize').is_file()
        assert _action(client, uuid, {'revertResize': None}).status_int == 202
        _wait_migration(client, uuid, 'reverted')
        _wait_status(client, uuid, 'ACTIVE')
        _check_placed(uuid, 'compute-1', 'f1')
        assert _disk(client, 'compute-1', uuid).is_file()
        assert not _disk(client, 'compute-1', uuid + '_resize').exists()
    finally:
        stack.stop()
