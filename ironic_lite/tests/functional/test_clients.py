"""The real clients against ironic-lite-api served by waitress.

``openstack baremetal ...`` (python-ironicclient's plugin, which
negotiates the version with ``latest``: 1.115, the server's maximum and
the last the client knows) and openstacksdk, against the ``endpoint``
fixture of conftest.py.
"""

import shutil
import time

import openstack

from ironic_lite.tests.functional.clients import OPENSTACK
from ironic_lite.tests.functional.clients import cli
from ironic_lite.tests.functional.clients import cli_json


def test_openstack_baremetal_cli(endpoint: str) -> None:
    # tools/setup-venv.sh installs the clients: missing is a failure.
    assert shutil.which(str(OPENSTACK)), f'{OPENSTACK} is not installed'
    node = cli_json(endpoint, 'node', 'create', '--driver', 'fake-hardware',
                 '--name', 'cli-1', '--property', 'cpus=4')
    assert node['provision_state'] == 'enroll'
    assert node['properties'] == {'cpus': 4}

    listed = cli_json(endpoint, 'node', 'list')
    assert [row['name'] for row in listed] == ['cli-1'], listed

    done = cli(endpoint, 'node', 'manage', 'cli-1', '--wait', '30')
    assert done.returncode == 0, done.stderr
    shown = cli_json(endpoint, 'node', 'show', 'cli-1')
    assert shown['provision_state'] == 'manageable'
    assert shown['uuid'] == node['uuid']

    done = cli(endpoint, 'node', 'clean', 'cli-1', '--clean-steps',
                '[{"interface": "deploy", "step": "no_such_step"}]')
    assert done.returncode != 0
    assert 'no_such_step' in done.stderr and 'HTTP 400' in done.stderr

    done = cli(endpoint, 'node', 'show', 'nope')
    assert 'Node nope could not be found. (HTTP 404)' in done.stderr

    done = cli(endpoint, 'node', 'delete', 'cli-1')
    assert done.returncode == 0, done.stderr


def test_openstacksdk(endpoint: str) -> None:
    conn = openstack.connect(auth_type='none',
                             baremetal_endpoint_override=endpoint + '/v1')
    try:
        node = conn.baremetal.create_node(
            driver='fake-hardware', name='sdk-1',
            driver_info={'ipmi_password': 'secret'})
        assert node.provision_state == 'enroll'
        assert node.driver_info == {'ipmi_password': '******'}
        node = conn.baremetal.set_node_provision_state(
            node, 'manage', wait=True, timeout=30)
        assert node.provision_state == 'manageable'
        node = conn.baremetal.update_node(node, extra={'rack': 'r2'})
        assert node.extra == {'rack': 'r2'}
        conn.baremetal.set_node_maintenance(node, reason='sdk')
        found = list(conn.baremetal.nodes(details=True, maintenance=True))
        assert [n.name for n in found] == ['sdk-1']
        assert found[0].maintenance_reason == 'sdk'
        conn.baremetal.unset_node_maintenance(node)
        conn.baremetal.delete_node(node)
        assert conn.baremetal.find_node('sdk-1') is None
    finally:
        conn.close()


def test_sdk_pages_through_detailed_lists(endpoint: str) -> None:
    """openstacksdk follows ``next``: it must stay on /nodes/detail."""
    conn = openstack.connect(auth_type='none',
                             baremetal_endpoint_override=endpoint + '/v1')
    try:
        created = [conn.baremetal.create_node(
            driver='fake-hardware', name=f'page-{i}',
            properties={'cpus': i}) for i in range(3)]
        found = list(conn.baremetal.nodes(details=True, limit=1))
        assert [n.name for n in found] == ['page-0', 'page-1', 'page-2']
        assert [n.properties for n in found] == [
            {'cpus': 0}, {'cpus': 1}, {'cpus': 2}]
    finally:
        for node in created:
            conn.baremetal.delete_node(node)
        conn.close()


def test_cli_node_fields(endpoint: str) -> None:
    """The fields of 1.46 .. 1.104 as the openstack CLI sends them
    (booleans as the strings "True"/"False")."""
    parent = cli_json(endpoint, 'node', 'create', '--driver', 'fake-hardware',
                   '--name', 'cli-parent', '--owner', 'p1', '--lessee',
                   'p2', '--shard', 'shard-1')
    assert (parent['owner'], parent['lessee'], parent['shard']) == (
        'p1', 'p2', 'shard-1')
    assert parent['conductor_group'] == ''
    child = cli_json(endpoint, 'node', 'create', '--driver', 'fake-hardware',
                  '--name', 'cli-child', '--owner', 'p1', '--parent-node',
                  'cli-parent')
    assert child['parent_node'] == parent['uuid']
    try:
        done = cli(endpoint, 'node', 'set', 'cli-parent', '--retired',
                    '--retired-reason', 'old', '--instance-name', 'vm-1')
        assert done.returncode == 0, done.stderr
        shown = cli_json(endpoint, 'node', 'show', 'cli-parent')
        assert (shown['retired'], shown['retired_reason'],
                shown['instance_name']) == (True, 'old', 'vm-1')
        done = cli(endpoint, 'node', 'set', 'cli-parent', '--protected')
        assert 'can only be made protected' in done.stderr
        assert 'HTTP 409' in done.stderr
        listed = cli_json(endpoint, 'node', 'list', '--owner', 'p1')
        assert [row['name'] for row in listed] == ['cli-parent']
        listed = cli_json(endpoint, 'node', 'list', '--include-children',
                       '--sort', 'name')
        assert [row['name'] for row in listed] == ['cli-child',
                                                   'cli-parent']
        children = cli_json(endpoint, 'node', 'children', 'list',
                         'cli-parent')
        assert children == {'children': [child['uuid']]}
        shards = cli_json(endpoint, 'shard', 'list')
        assert {row['name']: row['count'] for row in shards} == {
            'shard-1': 1, 'None': 1}
        done = cli(endpoint, 'node', 'unset', 'cli-parent', '--retired')
        assert done.returncode == 0, done.stderr
        assert cli_json(endpoint, 'node', 'show', 'cli-parent')[
            'retired_reason'] is None
    finally:
        for name in ('cli-child', 'cli-parent'):
            cli(endpoint, 'node', 'delete', name)


def test_cli_and_sdk_conductors(endpoint: str) -> None:
    """``openstack baremetal conductor list/show`` and the SDK's
    conductors (API 1.49)."""
    # python-ironicclient 6.x names list columns by their field names.
    listed = cli_json(endpoint, 'conductor', 'list', '--long')
    assert [(c['hostname'], c['alive']) for c in listed] == [
        ('conductor-1', True)], listed
    assert listed[0]['drivers'] == ['fake-hardware']
    shown = cli_json(endpoint, 'conductor', 'show', 'conductor-1')
    assert shown['alive'] is True and shown['conductor_group'] == ''
    done = cli(endpoint, 'conductor', 'show', 'nowhere')
    assert 'Conductor nowhere could not be found. (HTTP 404)' in done.stderr
    conn = openstack.connect(auth_type='none',
                             baremetal_endpoint_override=endpoint + '/v1')
    try:
        # conductors(details=True) sends nothing (openstacksdk maps
        # "details" to no query parameter); the parameter is "detail".
        found = list(conn.baremetal.conductors(detail=True))
        assert [c.hostname for c in found] == ['conductor-1']
        assert found[0].alive and found[0].drivers == ['fake-hardware']
        assert conn.baremetal.get_conductor('conductor-1').alive
    finally:
        conn.close()


def test_cli_and_sdk_node_traits(endpoint: str) -> None:
    """``openstack baremetal node add/remove trait``, ``node trait
    list`` and the SDK's traits (API 1.37)."""
    cli_json(endpoint, 'node', 'create', '--driver', 'fake-hardware',
          '--name', 'traits-1')
    done = cli(endpoint, 'node', 'add', 'trait', 'traits-1', 'CUSTOM_A',
                'HW_CPU_X86_AVX2')
    assert done.returncode == 0, done.stderr
    listed = cli_json(endpoint, 'node', 'trait', 'list', 'traits-1')
    assert sorted(row['traits'] for row in listed) == [
        'CUSTOM_A', 'HW_CPU_X86_AVX2'], listed
    done = cli(endpoint, 'node', 'remove', 'trait', 'traits-1', 'CUSTOM_B')
    assert done.returncode != 0 and 'CUSTOM_B' in done.stderr
    done = cli(endpoint, 'node', 'remove', 'trait', 'traits-1', 'CUSTOM_A')
    assert done.returncode == 0, done.stderr
    conn = openstack.connect(auth_type='none',
                             baremetal_endpoint_override=endpoint + '/v1')
    try:
        node = conn.baremetal.get_node('traits-1')
        assert node.traits == ['HW_CPU_X86_AVX2']
        conn.baremetal.set_node_traits(node, ['CUSTOM_SDK'])
        assert conn.baremetal.get_node('traits-1').traits == ['CUSTOM_SDK']
        conn.baremetal.remove_node_trait(node, 'CUSTOM_SDK')
        assert conn.baremetal.get_node('traits-1').traits == []
        conn.baremetal.delete_node(node)
    finally:
        conn.close()


def test_cli_and_sdk_chassis(endpoint: str) -> None:
    """``openstack baremetal chassis create/list/show/set/delete``, a
    node in a chassis, and the SDK's chassis (API 1.1)."""
    chassis = cli_json(endpoint, 'chassis', 'create', '--description', 'r1',
                    '--extra', 'row=a')
    assert chassis['description'] == 'r1' and chassis['extra'] == {
        'row': 'a'}
    node = cli_json(endpoint, 'node', 'create', '--driver', 'fake-hardware',
                 '--name', 'racked', '--chassis-uuid', chassis['uuid'])
    assert node['chassis_uuid'] == chassis['uuid']
    listed = cli_json(endpoint, 'chassis', 'list')
    assert [c['uuid'] for c in listed] == [chassis['uuid']], listed
    done = cli(endpoint, 'chassis', 'set', chassis['uuid'],
                '--description', 'r2')
    assert done.returncode == 0, done.stderr
    shown = cli_json(endpoint, 'chassis', 'show', chassis['uuid'])
    assert shown['description'] == 'r2'
    racked = cli_json(endpoint, 'node', 'list', '--chassis', chassis['uuid'])
    assert [n['name'] for n in racked] == ['racked']
    done = cli(endpoint, 'chassis', 'delete', chassis['uuid'])
    assert done.returncode != 0 and 'contains nodes' in done.stderr
    conn = openstack.connect(auth_type='none',
                             baremetal_endpoint_override=endpoint + '/v1')
    try:
        found = list(conn.baremetal.chassis(details=True))
        assert [c.description for c in found] == ['r2']
        conn.baremetal.update_node('racked', chassis_id=None)
        assert conn.baremetal.get_node('racked').chassis_id is None
        conn.baremetal.delete_chassis(chassis['uuid'])
        assert list(conn.baremetal.chassis()) == []
        conn.baremetal.delete_node('racked')
    finally:
        conn.close()


def test_cli_and_sdk_boot_device(endpoint: str) -> None:
    node = cli_json(endpoint, 'node', 'create', '--driver', 'fake-hardware',
                    '--name', 'cli-boot')
    assert cli_json(endpoint, 'node', 'boot', 'device', 'show',
                    'cli-boot', '--supported') == {
        'supported_boot_devices': 'pxe'}  # (the CLI joins the list)
    done = cli(endpoint, 'node', 'boot', 'device', 'set', 'cli-boot', 'pxe',
               '--persistent')
    assert done.returncode == 0, done.stderr
    assert cli_json(endpoint, 'node', 'boot', 'device', 'show',
                    'cli-boot') == {'boot_device': 'pxe', 'persistent': True}
    done = cli(endpoint, 'node', 'boot', 'device', 'set', 'cli-boot',
               'cdrom')
    assert done.returncode != 0 and 'Invalid boot device' in done.stderr
    with openstack.connect(auth_type='none',
                           baremetal_endpoint_override=endpoint + '/v1'
                           ) as conn:
        assert conn.baremetal.get_node_boot_device(node['uuid']) == {
            'boot_device': 'pxe', 'persistent': True}
        # (openstacksdk returns the response body)
        assert conn.baremetal.get_node_supported_boot_devices(
            node['uuid']) == {'supported_boot_devices': ['pxe']}
    assert cli(endpoint, 'node', 'delete', 'cli-boot').returncode == 0


def test_cli_driver_properties(endpoint: str) -> None:
    assert cli_json(endpoint, 'driver', 'property', 'list',
                    'fake-hardware') == []
    done = cli(endpoint, 'driver', 'property', 'list', 'nothing-here')
    assert done.returncode != 0 and 'HTTP 404' in done.stderr, done.stderr


def _wait_power(endpoint: str, name: str, state: str) -> None:
    """Until the node is in power ``state`` with no change under way."""
    deadline = time.monotonic() + 30
    while True:
        shown = cli_json(endpoint, 'node', 'show', name, '--fields',
                         'power_state', 'target_power_state')
        if shown['power_state'] == state and not shown[
                'target_power_state']:
            return
        assert time.monotonic() < deadline, shown
        time.sleep(0.2)


def test_cli_soft_power(endpoint: str) -> None:
    cli_json(endpoint, 'node', 'create', '--driver', 'fake-hardware',
             '--name', 'cli-soft')
    for args, state in ((['power', 'on'], 'power on'),
                        (['power', 'off', '--soft'], 'power off'),
                        (['reboot', '--soft'], 'power on')):
        done = cli(endpoint, 'node', *args, 'cli-soft', '--power-timeout',
                   '30')
        assert done.returncode == 0, done.stderr
        _wait_power(endpoint, 'cli-soft', state)
    assert cli(endpoint, 'node', 'delete', 'cli-soft').returncode == 0


def test_cli_inject_nmi(endpoint: str) -> None:
    cli_json(endpoint, 'node', 'create', '--driver', 'fake-hardware',
             '--name', 'cli-nmi')
    done = cli(endpoint, 'node', 'inject', 'nmi', 'cli-nmi')
    assert done.returncode != 0 and 'does not support inject_nmi' in \
        done.stderr, done.stderr
    assert cli(endpoint, 'node', 'delete', 'cli-nmi').returncode == 0


def test_cli_adopt(endpoint: str) -> None:
    cli_json(endpoint, 'node', 'create', '--driver', 'fake-hardware',
             '--name', 'cli-adopt')
    for verb in ('manage', 'adopt'):
        done = cli(endpoint, 'node', verb, 'cli-adopt', '--wait', '60')
        assert done.returncode == 0, done.stderr
    shown = cli_json(endpoint, 'node', 'show', 'cli-adopt', '--fields',
                     'provision_state', 'last_error')
    assert shown == {'provision_state': 'active', 'last_error': None}
