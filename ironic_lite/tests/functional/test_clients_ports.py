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
    node = cli_json(endpoint, 'node', 'create', '--driver', 'fake-hardware',
                    '--name', 'cli-port')
    port = cli_json(endpoint, 'port', 'create', '52:54:00:CC:00:01',
                    '--node', node['uuid'], '--name', 'cli-eth0',
                    '--local-link-connection', 'switch_id=aa:bb:cc:dd:ee:ff',
                    '--local-link-connection', 'port_id=Ethernet1/1',
                    '--physical-network', 'physnet1', '--extra', 'a=b')
    assert port['address'] == '52:54:00:cc:00:01'
    assert port['local_link_connection'] == {
        'switch_id': 'aa:bb:cc:dd:ee:ff', 'port_id': 'Ethernet1/1'}
    done = cli(endpoint, 'port', 'create', '52:54:00:cc:00:01', '--node',
               node['uuid'])
    assert done.returncode != 0 and 'HTTP 409' in done.stderr, done.stderr

    listed = cli_json(endpoint, 'port', 'list', '--node', 'cli-port')
    assert [item['address'] for item in listed] == ['52:54:00:cc:00:01']
    listed = cli_json(endpoint, 'port', 'list', '--long')
    assert listed[0]['physical_network'] == 'physnet1', listed
    listed = cli_json(endpoint, 'port', 'list', '--address',
                      '52:54:00:cc:00:01')
    assert port['uuid'] in json.dumps(listed)

    _ok(endpoint, 'port', 'set', 'cli-eth0', '--extra', 'c=d',
        '--pxe-enabled', '--description', 'boot NIC')
    shown = cli_json(endpoint, 'port', 'show', port['uuid'])
    assert shown['extra'] == {'a': 'b', 'c': 'd'}
    assert shown['description'] == 'boot NIC'
    _ok(endpoint, 'port', 'unset', port['uuid'], '--extra', 'a')
    assert cli_json(endpoint, 'port', 'show', 'cli-eth0')['extra'] == {
        'c': 'd'}
    _ok(endpoint, 'port', 'delete', port['uuid'])
    assert cli_json(endpoint, 'port', 'list') == []
    _ok(endpoint, 'node', 'delete', 'cli-port')


def test_sdk_ports(endpoint: str) -> None:
    with openstack.connect(auth_type='none',
                           baremetal_endpoint_override=endpoint + '/v1'
                           ) as conn:
        node = conn.baremetal.create_node(driver='fake-hardware',
                                          name='sdk-port')
        port = conn.baremetal.create_port(node_id=node.id,
                                          address='52:54:00:DD:00:01',
                                          name='sdk-eth0')
        assert port.address == '52:54:00:dd:00:01'
        assert port.is_pxe_enabled is True
        found = list(conn.baremetal.ports(node_id=node.id, details=True))
        assert [item.id for item in found] == [port.id]
        assert found[0].name == 'sdk-eth0'
        port = conn.baremetal.update_port(port, extra={'x': 'y'})
        assert port.extra == {'x': 'y'}
        assert conn.baremetal.get_port('sdk-eth0').id == port.id
        with pytest.raises(openstack.exceptions.ConflictException):
            conn.baremetal.create_port(node_id=node.id,
                                       address='52:54:00:dd:00:01')
        conn.baremetal.delete_port(port)
        assert list(conn.baremetal.ports()) == []
        conn.baremetal.delete_node(node)
