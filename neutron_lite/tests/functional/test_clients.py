"""The real clients against neutron-lite-server (waitress on a port,
SQLite, noauth): the ``openstack`` CLI and openstacksdk's network proxy
and cloud layer, unmodified."""

import importlib
import json
import os
from pathlib import Path
import subprocess
import sys
from typing import Any

import openstack
import pytest

from lite_common.tests import integration
from lite_common.wsgi import server
from neutron_lite.tests.functional import fixtures

openstack_fork = importlib.import_module('openstack_fork')
assert integration.TOOLS.is_dir()
OPENSTACK = Path(sys.executable).parent / 'openstack'


@pytest.fixture(scope='module')
def endpoint():
    stack = fixtures.Stack().start()
    api = server.APIServer('neutron-lite-server', stack.app, '127.0.0.1', 0)
    api.start()
    try:
        yield f'http://127.0.0.1:{api.bind_addr[1]}'
    finally:
        api.stop()
        stack.stop()


def cli(endpoint: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith('OS_')}
    argv = [
        str(OPENSTACK),
        '--os-auth-type',
        'none',
        '--os-endpoint',
        endpoint,
        *args,
    ]
    if openstack_fork.enabled():
        return openstack_fork.run(argv, env, 120)
    return subprocess.run(
        argv, capture_output=True, text=True, env=env, timeout=120
    )


def cli_json(endpoint: str, *args: str) -> Any:
    done = cli(endpoint, *args, '-f', 'json')
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_cli_builds_a_network_a_subnet_and_ports(endpoint):
    network = cli_json(endpoint, 'network', 'create', 'web')
    assert network['status'] == 'ACTIVE' and network['mtu'] == 1500
    subnet = cli_json(
        endpoint,
        'subnet',
        'create',
        '--network',
        'web',
        '--subnet-range',
        '192.168.5.0/24',
        '--dns-nameserver',
        '192.0.2.53',
        '--allocation-pool',
        'start=192.168.5.10,end=192.168.5.20',
        'web-v4',
    )
    assert subnet['gateway_ip'] == '192.168.5.1'
    assert subnet['allocation_pools'] == [
        {'start': '192.168.5.10', 'end': '192.168.5.20'}
    ]
    chosen = cli_json(
        endpoint,
        'port',
        'create',
        '--network',
        'web',
        '--fixed-ip',
        'subnet=web-v4,ip-address=192.168.5.15',
        'chosen',
    )
    assert chosen['fixed_ips'] == [
        {'subnet_id': subnet['id'], 'ip_address': '192.168.5.15'}
    ]
    assert chosen['mac_address'].startswith('fa:16:3e:')
    other = cli_json(endpoint, 'port', 'create', '--network', 'web', 'other')
    (address,) = [ip['ip_address'] for ip in other['fixed_ips']]
    assert address != '192.168.5.15'
    listed = cli_json(endpoint, 'port', 'list', '--network', 'web')
    assert {p['Name'] for p in listed} == {'chosen', 'other'}
    taken = cli(
        endpoint,
        'port',
        'create',
        '--network',
        'web',
        '--fixed-ip',
        'ip-address=192.168.5.15',
        'again',
    )
    assert taken.returncode == 1
    assert 'IP address 192.168.5.15 already allocated' in taken.stderr
    done = cli(endpoint, 'network', 'delete', 'web')
    assert done.returncode == 1 and 'in use' in done.stderr
    for port in ('chosen', 'other'):
        assert cli(endpoint, 'port', 'delete', port).returncode == 0
    assert cli(endpoint, 'network', 'delete', 'web').returncode == 0
    assert cli_json(endpoint, 'network', 'list', '--name', 'web') == []


def test_the_cli_manages_security_groups(endpoint):
    groups = cli_json(endpoint, 'security', 'group', 'list')
    assert [g['Name'] for g in groups] == ['default']
    web = cli_json(
        endpoint, 'security', 'group', 'create', '--description', 'web', 'web'
    )
    rule = cli_json(
        endpoint,
        'security',
        'group',
        'rule',
        'create',
        '--protocol',
        'tcp',
        '--dst-port',
        '80:81',
        '--remote-ip',
        '192.0.2.0/24',
        'web',
    )
    assert (rule['port_range_min'], rule['port_range_max']) == (80, 81)
    assert rule['remote_ip_prefix'] == '192.0.2.0/24'
    shown = cli_json(endpoint, 'security', 'group', 'show', 'web')
    assert len(shown['rules']) == 3  # two egress and the new one
    again = cli(
        endpoint,
        'security',
        'group',
        'rule',
        'create',
        '--protocol',
        'tcp',
        '--dst-port',
        '80:81',
        '--remote-ip',
        '192.0.2.0/24',
        'web',
    )
    assert again.returncode == 1
    assert 'Security group rule already exists' in again.stderr
    cli_json(endpoint, 'network', 'create', 'sg-net')
    port = cli_json(
        endpoint,
        'port',
        'create',
        '--network',
        'sg-net',
        '--security-group',
        'web',
        'web-port',
    )
    assert port['security_group_ids'] == [web['id']]
    assert cli(endpoint, 'port', 'delete', 'web-port').returncode == 0
    assert cli(endpoint, 'security', 'group', 'delete', 'web').returncode == 0


def test_openstacksdk_network_proxy_and_cloud_layer(endpoint):
    conn = openstack.connect(auth_type='none', endpoint=endpoint)
    network = conn.network.create_network(name='sdk', is_shared=False)
    subnet = conn.network.create_subnet(
        network_id=network.id, ip_version=6, cidr='2001:db8:5::/64'
    )
    port = conn.network.create_port(network_id=network.id)
    assert port.fixed_ips[0]['subnet_id'] == subnet.id
    assert port.fixed_ips[0]['ip_address'].startswith('2001:db8:5::')
    # Pagination as the SDK walks it.
    for _ in range(3):
        conn.network.create_port(network_id=network.id)
    pages = list(conn.network.ports(network_id=network.id, limit=2))
    assert len(pages) == 4
    # The cloud layer (what Ansible's modules call).
    cloud_net = conn.create_network('cloud-net')
    conn.create_subnet(
        cloud_net['id'], cidr='10.20.0.0/24', subnet_name='cloud-sub'
    )
    assert conn.get_subnet('cloud-sub')['cidr'] == '10.20.0.0/24'
    assert [
        n['name'] for n in conn.list_networks(filters={'name': 'sdk'})
    ] == ['sdk']
    conn.network.set_tags(network, ['blue', 'green'])
    assert conn.network.get_network(network.id).tags == ['blue', 'green']
