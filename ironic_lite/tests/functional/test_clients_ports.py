"""Ports through the real clients: ``openstack baremetal port ...``
and openstacksdk, against ironic-lite-api on a free 127.0.0.1 port (the
in-process stack behind)."""

import json

import openstack
import openstack.exceptions
import pytest

from ironic_lite.tests.functional.clients import cli
from ironic_lite.tests.functional.clients import cli_json


def _ok(endpoint: str, *args: str) -> None:
    done = cli(endpoint, *args)
    assert done.returncode == 0, done.stderr


def test_cli_ports(endpoint: str) -> None:
    node = cli_json(
        endpoint,
        'node',
        'create',
        '--driver',
        'fake-hardware',
        '--name',
        'cli-port',
    )
    port = cli_json(
        endpoint,
        'port',
        'create',
        '52:54:00:CC:00:01',
        '--node',
        node['uuid'],
        '--name',
        'cli-eth0',
        '--local-link-connection',
        'switch_id=aa:bb:cc:dd:ee:ff',
        '--local-link-connection',
        'port_id=Ethernet1/1',
        '--physical-network',
        'physnet1',
        '--extra',
        'a=b',
    )
    assert port['address'] == '52:54:00:cc:00:01'
    assert port['local_link_connection'] == {
        'switch_id': 'aa:bb:cc:dd:ee:ff',
        'port_id': 'Ethernet1/1',
    }
    done = cli(
        endpoint, 'port', 'create', '52:54:00:cc:00:01', '--node', node['uuid']
    )
    assert done.returncode != 0 and 'HTTP 409' in done.stderr, done.stderr

    listed = cli_json(endpoint, 'port', 'list', '--node', 'cli-port')
    assert [item['address'] for item in listed] == ['52:54:00:cc:00:01']
    listed = cli_json(endpoint, 'port', 'list', '--long')
    assert listed[0]['physical_network'] == 'physnet1', listed
    listed = cli_json(
        endpoint, 'port', 'list', '--address', '52:54:00:cc:00:01'
    )
    assert port['uuid'] in json.dumps(listed)

    _ok(
        endpoint,
        'port',
        'set',
        'cli-eth0',
        '--extra',
        'c=d',
        '--pxe-enabled',
        '--description',
        'boot NIC',
    )
    shown = cli_json(endpoint, 'port', 'show', port['uuid'])
    assert shown['extra'] == {'a': 'b', 'c': 'd'}
    assert shown['description'] == 'boot NIC'
    _ok(endpoint, 'port', 'unset', port['uuid'], '--extra', 'a')
    assert cli_json(endpoint, 'port', 'show', 'cli-eth0')['extra'] == {
        'c': 'd'
    }
    _ok(endpoint, 'port', 'delete', port['uuid'])
    assert cli_json(endpoint, 'port', 'list') == []
    _ok(endpoint, 'node', 'delete', 'cli-port')


def test_sdk_ports(endpoint: str) -> None:
    with openstack.connect(
        auth_type='none', baremetal_endpoint_override=endpoint + '/v1'
    ) as conn:
        node = conn.baremetal.create_node(
            driver='fake-hardware', name='sdk-port'
        )
        port = conn.baremetal.create_port(
            node_id=node.id, address='52:54:00:DD:00:01', name='sdk-eth0'
        )
        assert port.address == '52:54:00:dd:00:01'
        assert port.is_pxe_enabled is True
        found = list(conn.baremetal.ports(node_id=node.id, details=True))
        assert [item.id for item in found] == [port.id]
        assert found[0].name == 'sdk-eth0'
        port = conn.baremetal.update_port(port, extra={'x': 'y'})
        assert port.extra == {'x': 'y'}
        assert conn.baremetal.get_port('sdk-eth0').id == port.id
        with pytest.raises(openstack.exceptions.ConflictException):
            conn.baremetal.create_port(
                node_id=node.id, address='52:54:00:dd:00:01'
            )
        conn.baremetal.delete_port(port)
        assert list(conn.baremetal.ports()) == []
        conn.baremetal.delete_node(node)


def test_cli_portgroups(endpoint: str) -> None:
    node = cli_json(
        endpoint,
        'node',
        'create',
        '--driver',
        'fake-hardware',
        '--name',
        'cli-pg',
    )
    group = cli_json(
        endpoint,
        'port',
        'group',
        'create',
        '--node',
        node['uuid'],
        '--name',
        'cli-bond0',
        '--address',
        '52:54:00:EE:00:01',
        '--mode',
        '802.3ad',
        '--property',
        'miimon=100',
        '--support-standalone-ports',
    )
    assert group['address'] == '52:54:00:ee:00:01'
    assert group['mode'] == '802.3ad'
    # (the CLI sends a property value as JSON when it parses as such)
    assert group['properties'] == {'miimon': 100}
    port = cli_json(
        endpoint,
        'port',
        'create',
        '52:54:00:EE:00:02',
        '--node',
        node['uuid'],
        '--port-group',
        group['uuid'],
    )
    assert port['portgroup_uuid'] == group['uuid']
    listed = cli_json(endpoint, 'port', 'group', 'list', '--node', 'cli-pg')
    assert [item['uuid'] for item in listed] == [group['uuid']]
    listed = cli_json(endpoint, 'port', 'list', '--port-group', 'cli-bond0')
    assert [item['uuid'] for item in listed] == [port['uuid']]
    _ok(endpoint, 'port', 'group', 'set', 'cli-bond0', '--extra', 'a=b')
    shown = cli_json(endpoint, 'port', 'group', 'show', group['uuid'])
    assert shown['extra'] == {'a': 'b'}
    done = cli(endpoint, 'port', 'group', 'delete', 'cli-bond0')
    assert done.returncode != 0 and 'contains ports' in done.stderr, (
        done.stderr
    )
    _ok(endpoint, 'port', 'delete', port['uuid'])
    _ok(endpoint, 'port', 'group', 'delete', 'cli-bond0')
    assert cli_json(endpoint, 'port', 'group', 'list') == []
    _ok(endpoint, 'node', 'delete', 'cli-pg')


def test_sdk_portgroups(endpoint: str) -> None:
    with openstack.connect(
        auth_type='none', baremetal_endpoint_override=endpoint + '/v1'
    ) as conn:
        node = conn.baremetal.create_node(
            driver='fake-hardware', name='sdk-pg'
        )
        group = conn.baremetal.create_port_group(
            node_id=node.id, name='sdk-bond0'
        )
        assert group.mode == 'active-backup'
        found = list(conn.baremetal.port_groups(node=node.id, details=True))
        assert [item.id for item in found] == [group.id]
        group = conn.baremetal.update_port_group(group, extra={'x': 'y'})
        assert group.extra == {'x': 'y'}
        conn.baremetal.delete_port_group(group)
        assert group.id not in [
            item.id for item in conn.baremetal.port_groups()
        ]
        conn.baremetal.delete_node(node)
