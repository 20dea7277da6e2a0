"""Evacuation through the API with real services in process (local
driver, SQLite, inproc bus): the refusals, the move, and the source's
recovery, which destroys exactly what the migration records name."""

import json
from pathlib import Path
import time
from typing import Any

import pytest
import webob

from lite_common import context as lite_context
from nova_lite.compute import service as compute_svc
from nova_lite.db import compute_nodes as node_db
from nova_lite.db import instances as instance_db
from nova_lite.db import services as service_db
from nova_lite.tests.functional import api_data
from nova_lite.tests.stack import Stack


class Client:
    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.image = ''

    def call(
        self, method: str, path: str, body: Any = None, version: str = '2.53'
    ) -> webob.Response:
        req = webob.Request.blank('/v2.1' + path, method=method)
        req.headers['OpenStack-API-Version'] = f'compute {version}'
        if body is not None:
            req.body = json.dumps(body).encode()
            req.content_type = 'application/json'
        return req.get_response(self.stack.app)

    def ok(
        self, method: str, path: str, body: Any = None, version: str = '2.53'
    ) -> Any:
        resp = self.call(method, path, body, version)
        assert resp.status_int < 300, resp.text
        return resp.json if resp.body else None

    def wait(self, predicate: Any, what: str, timeout: float = 20) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = predicate()
            if value:
                return value
            time.sleep(0.05)
        raise AssertionError(f'timed out waiting for {what}')

    def server(self, uuid: str) -> dict[str, Any]:
        return self.ok('GET', f'/servers/{uuid}')['server']

    def boot(self, name: str) -> dict[str, Any]:
        server = self.ok(
            'POST',
            '/servers',
            {
                'server': {
                    'name': name,
                    'flavorRef': 'f1',
                    'imageRef': self.image,
                    'networks': 'none',
                }
            },
        )['server']
        return self.wait(
            lambda: (
                (s := self.server(server['id']))['status'] == 'ACTIVE' and s
            ),
            f'{name} ACTIVE',
        )

    def service_id(self, host: str) -> str:
        rows = self.ok('GET', f'/os-services?host={host}&binary=nova-compute')[
            'services'
        ]
        return rows[0]['id']

    def force_down(self, host: str, down: bool) -> webob.Response:
        return self.call(
            'PUT',
            f'/os-services/{self.service_id(host)}',
            {'forced_down': down},
        )

    def evacuations(self, uuid: str) -> list[dict[str, Any]]:
        rows = self.ok(
            'GET', f'/os-migrations?instance_uuid={uuid}', version='2.23'
        )['migrations']
        return [r for r in rows if r['migration_type'] == 'evacuation']


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
    client.image = _image(stack)
    yield client
    stack.stop()


def _image(stack: Stack) -> str:
    req = webob.Request.blank('/image/v2/images', method='POST')
    req.body = json.dumps(
        {'name': 'img', 'disk_format': 'raw', 'container_format': 'bare'}
    ).encode()
    req.content_type = 'application/json'
    resp = req.get_response(stack.app)
    assert resp.status_int == 201, resp.text
    api_data.upload(stack.app, resp.json['id'], {})
    return resp.json['id']


def _host(server: dict[str, Any]) -> str:
    return server['OS-EXT-SRV-ATTR:host']


def _disk(client: Client, host: str, uuid: str) -> Path:
    return Path(client.stack.state_path) / host / 'instances' / uuid / 'disk'


# (stack id, host) -> the agent _restart started last: stopped by the
# next restart (one live agent per host name, or the next is refused).
_RESTARTED: dict[tuple[int, str], Any] = {}


def _restart(client: Client, host: str) -> None:
    stack = client.stack
    for runnable in stack.launcher.runnables:
        if getattr(runnable, 'name', '') == f'nova-lite-compute ({host})':
            runnable.stop()
    previous = _RESTARTED.pop((id(stack), host), None)
    if previous is not None:
        previous.stop()
    agent = compute_svc.compute_service(
        stack.conf,
        host,
        f'{stack.state_path}/{host}',
        search_config_dirs=False,
    )
    agent.start()
    _RESTARTED[(id(stack), host)] = agent
    stack.add_cleanup(agent.stop)


def _evacuate(
    client: Client, uuid: str, body: dict[str, Any], version: str = '2.53'
) -> webob.Response:
    return client.call(
        'POST', f'/servers/{uuid}/action', {'evacuate': body}, version
    )


def test_evacuate_moves_and_the_source_destroys_only_its_copy(client):
    moved = client.boot('moved')
    source = _host(moved)
    target = 'compute-2' if source == 'compute-1' else 'compute-1'
    stays = client.boot('stays')  # spread: the other host, or the source
    resp = _evacuate(client, moved['id'], {})
    assert resp.status_int == 400, resp.text
    assert f'Compute service of {source} is still in use' in resp.text

    assert client.force_down(source, True).status_int == 200
    assert (
        _evacuate(client, moved['id'], {'host': 'nowhere'}).status_int == 404
    )
    same = _evacuate(client, moved['id'], {'host': source})
    assert same.status_int == 400 and 'same one' in same.text
    old_style = _evacuate(client, moved['id'], {'onSharedStorage': False})
    assert old_style.status_int == 400, old_style.text
    forced = _evacuate(client, moved['id'], {'force': True})
    assert forced.status_int == 400, forced.text

    resp = _evacuate(client, moved['id'], {})
    assert resp.status_int == 200 and not resp.body, resp.text
    client.wait(
        lambda: (
            _host(client.server(moved['id'])) == target
            and client.server(moved['id'])['status'] == 'ACTIVE'
            and client.evacuations(moved['id'])[0]['status'] == 'done'
        ),
        'the server ACTIVE on the target, the migration done',
    )
    [migration] = client.evacuations(moved['id'])
    assert migration['status'] == 'done'
    assert (migration['source_compute'], migration['dest_compute']) == (
        source,
        target,
    )
    assert _disk(client, target, moved['id']).exists()
    assert _disk(client, source, moved['id']).exists()  # not yet cleaned

    refused = client.force_down(source, False)
    assert refused.status_int == 400, refused.text
    assert f'nova-lite-compute agent on {source}' in refused.text
    assert '1 done' in refused.text

    _restart(client, source)
    assert not _disk(client, source, moved['id']).exists()
    assert _disk(client, target, moved['id']).exists()
    assert _disk(client, _host(stays), stays['id']).exists()
    assert client.evacuations(moved['id'])[0]['status'] == 'completed'
    assert client.force_down(source, False).status_int == 200


def test_no_valid_host_leaves_the_instance_on_its_source_in_error(client):
    server = client.boot('lonely')
    source = _host(server)
    other = 'compute-2' if source == 'compute-1' else 'compute-1'
    client.ok(
        'PUT',
        f'/os-services/{client.service_id(other)}',
        {'status': 'disabled', 'disabled_reason': 'maint'},
    )
    assert client.force_down(source, True).status_int == 200
    resp = _evacuate(client, server['id'], {'adminPass': 'x'}, version='2.1')
    assert resp.status_int == 400, resp.text  # onSharedStorage needed
    resp = _evacuate(
        client, server['id'], {'onSharedStorage': False}, version='2.1'
    )
    assert resp.status_int == 200 and resp.json['adminPass'], resp.text
    client.wait(
        lambda: client.evacuations(server['id'])[0]['status'] == 'error',
        'the migration in error',
    )
    after = client.wait(
        lambda: (
            (s := client.server(server['id']))['OS-EXT-STS:task_state'] is None
            and s
        ),
        'task_state cleared',
    )
    # As upstream: ERROR, with the reason as the fault server show gives.
    assert _host(after) == source and after['status'] == 'ERROR'
    assert 'No valid host' in after['fault']['message'], after
    _restart(client, source)
    assert _disk(client, source, server['id']).exists()
    assert client.evacuations(server['id'])[0]['status'] == 'error'


def test_an_instance_on_another_host_without_record_is_kept(client, caplog):
    server = client.boot('mislabelled')
    source = _host(server)
    other = 'compute-2' if source == 'compute-1' else 'compute-1'
    ctx = lite_context.get_admin_context()
    node = node_db.compute_node_get(ctx, host=other)
    instance_db.instance_update(
        ctx,
        server['id'],
        {
            'host': other,
            'node': node['hypervisor_hostname'],
            'compute_id': node['id'],
        },
    )
    _restart(client, source)
    assert _disk(client, source, server['id']).exists()
    assert server['id'] in caplog.text
    assert 'never destroyed on a guess' in caplog.text


def test_evacuate_at_2_95_needs_every_live_compute_upgraded(client):
    """A rolling upgrade: an agent of an older version (not forced down)
    would end the server ACTIVE where 2.95 promises SHUTOFF, so 2.95 is
    a 400 until it is upgraded; an older microversion works. The forced
    down source does not count (upstream's rule)."""
    server = client.boot('upgrading')
    source = _host(server)
    other = 'compute-2' if source == 'compute-1' else 'compute-1'
    ctx = lite_context.get_admin_context()
    old = service_db.service_get(ctx, host=other, binary='nova-compute')
    service_db.service_update(ctx, old['id'], {'version': 2})
    assert client.force_down(source, True).status_int == 200
    resp = _evacuate(client, server['id'], {}, version='2.95')
    assert resp.status_int == 400, resp.text
    assert (
        'Required version for compute 3, current version 2'
        in resp.json['badRequest']['message']
    ), resp.text
    assert client.evacuations(server['id']) == []
    # Once it is upgraded (its restart records its version), 2.95 works;
    # the source's own old version does not hold it back.
    service_db.service_update(ctx, old['id'], {'version': 3})
    down = service_db.service_get(ctx, host=source, binary='nova-compute')
    service_db.service_update(ctx, down['id'], {'version': 2})
    resp = _evacuate(client, server['id'], {}, version='2.95')
    assert resp.status_int == 200, resp.text
    client.wait(
        lambda: client.server(server['id'])['status'] == 'SHUTOFF',
        'the server stopped on its destination',
    )
    assert _host(client.server(server['id'])) == other
