"""Volume connectors and targets and node history through the real
clients: ``openstack baremetal volume ...`` / ``node history ...`` and
openstacksdk, against ironic-lite-api on a free 127.0.0.1 port (the
in-process stack behind)."""

import json

import openstack

from ironic_lite.tests.functional.clients import cli
from ironic_lite.tests.functional.clients import cli_json


def _ok(endpoint: str, *args: str) -> None:
    done = cli(endpoint, *args)
    assert done.returncode == 0, done.stderr


def test_cli_volume_and_history(endpoint: str) -> None:
    node = cli_json(
        endpoint,
        'node',
        'create',
        '--driver',
        'fake-hardware',
        '--name',
        'cli-vol',
    )
    connector = cli_json(
        endpoint,
        'volume',
        'connector',
        'create',
        '--node',
        node['uuid'],
        '--type',
        'iqn',
        '--connector-id',
        'iqn.2024-01.org.example:cli',
        '--extra',
        'a=b',
    )
    assert connector['extra'] == {'a': 'b'}
    target = cli_json(
        endpoint,
        'volume',
        'target',
        'create',
        '--node',
        node['uuid'],
        '--type',
        'iscsi',
        '--boot-index',
        '0',
        '--volume-id',
        '04452bed-5367-4202-8bf5-de4335ac56d2',
    )
    listed = cli_json(
        endpoint, 'volume', 'connector', 'list', '--node', 'cli-vol'
    )
    assert len(listed) == 1, listed
    assert connector['uuid'] in json.dumps(listed)
    listed = cli_json(endpoint, 'volume', 'target', 'list', '--long')
    assert listed[0]['boot_index'] == 0
    assert listed[0]['volume_id'] == '04452bed-5367-4202-8bf5-de4335ac56d2'

    done = cli(
        endpoint,
        'volume',
        'connector',
        'set',
        connector['uuid'],
        '--extra',
        'c=d',
    )
    assert done.returncode != 0 and 'HTTP 400' in done.stderr
    _ok(endpoint, 'node', 'power', 'off', 'cli-vol', '--power-timeout', '30')
    _ok(
        endpoint,
        'volume',
        'connector',
        'set',
        connector['uuid'],
        '--extra',
        'c=d',
    )
    shown = cli_json(
        endpoint, 'volume', 'connector', 'show', connector['uuid']
    )
    assert shown['extra'] == {'a': 'b', 'c': 'd'}

    _ok(endpoint, 'volume', 'target', 'delete', target['uuid'])
    _ok(endpoint, 'volume', 'connector', 'delete', connector['uuid'])
    assert cli_json(endpoint, 'volume', 'connector', 'list') == []
    assert cli_json(endpoint, 'node', 'history', 'list', 'cli-vol') == []
    _ok(endpoint, 'node', 'delete', 'cli-vol')


def test_sdk_volume(endpoint: str) -> None:
    with openstack.connect(
        auth_type='none', baremetal_endpoint_override=endpoint + '/v1'
    ) as conn:
        node = conn.baremetal.create_node(
            driver='fake-hardware', name='sdk-vol'
        )
        connector = conn.baremetal.create_volume_connector(
            node_id=node.id, type='wwpn', connector_id='50:01:43:80:12:34'
        )
        target = conn.baremetal.create_volume_target(
            node_id=node.id,
            volume_type='fibre_channel',
            boot_index=0,
            volume_id='04452bed-5367-4202-8bf5-de4335ac56d3',
        )
        found = list(
            conn.baremetal.volume_connectors(details=True, node=node.id)
        )
        assert [c.id for c in found] == [connector.id]
        assert found[0].connector_id == '50:01:43:80:12:34'
        got = conn.baremetal.get_volume_target(target.id)
        assert got.boot_index == 0 and got.node_id == node.id
        conn.baremetal.delete_node(node)
        assert list(conn.baremetal.volume_targets()) == []
