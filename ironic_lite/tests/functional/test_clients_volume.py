"""Volume connectors and targets and node history through the real
clients: ``openstack baremetal volume ...`` / ``node history ...`` and
openstacksdk, against ironic-lite-api on a free 127.0.0.1 port (the
in-process stack behind)."""

from collections.abc import Iterator
import json
import os
from pathlib import Path
import subprocess
import sys
from typing import Any

import openstack
import pytest

from ironic_lite.tests.functional import fixtures
from lite_common.tests import hostile
from lite_common.wsgi import server

OPENSTACK = Path(sys.executable).parent / 'openstack'


@pytest.fixture(scope='module')
def endpoint() -> Iterator[str]:
    stack = fixtures.Stack().start()
    try:
        with hostile.serving(stack.app, server.Settings(threads=4)) as port:
            yield f'http://127.0.0.1:{port}'
    finally:
        stack.stop()


def _cli(endpoint: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith('OS_')}
    return subprocess.run(
        [str(OPENSTACK), '--os-auth-type', 'none', '--os-endpoint', endpoint,
         'baremetal', *args], capture_output=True, text=True, env=env,
        timeout=120)


def _json(endpoint: str, *args: str) -> Any:
    done = _cli(endpoint, *args, '-f', 'json')
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _ok(endpoint: str, *args: str) -> None:
    done = _cli(endpoint, *args)
    assert done.returncode == 0, done.stderr


def test_cli_volume_and_history(endpoint: str) -> None:
    node = _json(endpoint, 'node', 'create', '--driver', 'fake-hardware',
                 '--name', 'cli-vol')
    connector = _json(endpoint, 'volume', 'connector', 'create', '--node',
                      node['uuid'], '--type', 'iqn', '--connector-id',
                      'iqn.2024-01.org.example:cli', '--extra', 'a=b')
    assert connector['extra'] == {'a': 'b'}
    target = _json(endpoint, 'volume', 'target', 'create', '--node',
                   node['uuid'], '--type', 'iscsi', '--boot-index', '0',
                   '--volume-id', '04452bed-5367-4202-8bf5-de4335ac56d2')
    listed = _json(endpoint, 'volume', 'connector', 'list', '--node',
                   'cli-vol')
    assert len(listed) == 1, listed
    assert connector['uuid'] in json.dumps(listed)
    listed = _json(endpoint, 'volume', 'target', 'list', '--long')
    assert listed[0]['boot_index'] == 0
    assert listed[0]['volume_id'] == '04452bed-5367-4202-8bf5-de4335ac56d2'

    done = _cli(endpoint, 'volume', 'connector', 'set',
                connector['uuid'], '--extra', 'c=d')
    assert done.returncode != 0 and 'HTTP 400' in done.stderr
    _ok(endpoint, 'node', 'power', 'off', 'cli-vol', '--power-timeout',
        '30')
    _ok(endpoint, 'volume', 'connector', 'set', connector['uuid'],
        '--extra', 'c=d')
    shown = _json(endpoint, 'volume', 'connector', 'show',
                  connector['uuid'])
    assert shown['extra'] == {'a': 'b', 'c': 'd'}

    _ok(endpoint, 'volume', 'target', 'delete', target['uuid'])
    _ok(endpoint, 'volume', 'connector', 'delete', connector['uuid'])
    assert _json(endpoint, 'volume', 'connector', 'list') == []
    assert _json(endpoint, 'node', 'history', 'list', 'cli-vol') == []
    _ok(endpoint, 'node', 'delete', 'cli-vol')


def test_sdk_volume(endpoint: str) -> None:
    with openstack.connect(auth_type='none',
                           baremetal_endpoint_override=endpoint + '/v1'
                           ) as conn:
        node = conn.baremetal.create_node(driver='fake-hardware',
                                          name='sdk-vol')
        connector = conn.baremetal.create_volume_connector(
            node_id=node.id, type='wwpn', connector_id='50:01:43:80:12:34')
        target = conn.baremetal.create_volume_target(
            node_id=node.id, volume_type='fibre_channel', boot_index=0,
            volume_id='04452bed-5367-4202-8bf5-de4335ac56d3')
        found = list(conn.baremetal.volume_connectors(details=True,
                                                      node=node.id))
        assert [c.id for c in found] == [connector.id]
        assert found[0].connector_id == '50:01:43:80:12:34'
        got = conn.baremetal.get_volume_target(target.id)
        assert got.boot_index == 0 and got.node_id == node.id
        conn.baremetal.delete_node(node)
        assert list(conn.baremetal.volume_targets()) == []
