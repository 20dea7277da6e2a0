"""The real clients against ironic-lite-api served by waitress.

``openstack baremetal ...`` (python-ironicclient's plugin, which
negotiates the version with ``latest``: 1.115, the server's maximum with
``[api]advertise_incomplete_versions``, which the ``endpoint`` fixture
sets, and the last the client knows) and openstacksdk, against the
``endpoint`` fixture of conftest.py.
"""

import json
import shutil
import time

import openstack

from ironic_lite.api import microversion as mv
from ironic_lite.tests.functional import fixtures
from ironic_lite.tests.functional.clients import OPENSTACK
from ironic_lite.tests.functional.clients import cli
from ironic_lite.tests.functional.clients import cli_json
from lite_common.tests import hostile
from lite_common.wsgi import server


def test_openstack_baremetal_cli(endpoint: str) -> None:
    # tools/setup-venv.sh installs the clients: missing is a failure.
    assert shutil.which(str(OPENSTACK)), f'{OPENSTACK} is not installed'
    node = cli_json(
        endpoint,
        'node',
        'create',
        '--driver',
        'fake-hardware',
        '--name',
        'cli-1',
        '--property',
        'cpus=4',
    )
    assert node['provision_state'] == 'enroll'
    assert node['properties'] == {'cpus': 4}

    listed = cli_json(endpoint, 'node', 'list')
    assert [row['name'] for row in listed] == ['cli-1'], listed

    done = cli(endpoint, 'node', 'manage', 'cli-1', '--wait', '30')
    assert done.returncode == 0, done.stderr
    shown = cli_json(endpoint, 'node', 'show', 'cli-1')
    assert shown['provision_state'] == 'manageable'
    assert shown['uuid'] == node['uuid']

    done = cli(
        endpoint,
        'node',
        'clean',
        'cli-1',
        '--clean-steps',
        '[{"interface": "deploy", "step": "no_such_step"}]',
    )
    assert done.returncode != 0
    assert 'no_such_step' in done.stderr and 'HTTP 400' in done.stderr

    done = cli(endpoint, 'node', 'show', 'nope')
    assert 'Node nope could not be found. (HTTP 404)' in done.stderr

    done = cli(endpoint, 'node', 'delete', 'cli-1')
    assert done.returncode == 0, done.stderr


def test_openstacksdk(endpoint: str) -> None:
    conn = openstack.connect(
        auth_type='none', baremetal_endpoint_override=endpoint + '/v1'
    )
    try:
        node = conn.baremetal.create_node(
            driver='fake-hardware',
            name='sdk-1',
            driver_info={'ipmi_password': 'secret'},
        )
        assert node.provision_state == 'enroll'
        assert node.driver_info == {'ipmi_password': '******'}
        node = conn.baremetal.set_node_provision_state(
            node, 'manage', wait=True, timeout=30
        )
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
    conn = openstack.connect(
        auth_type='none', baremetal_endpoint_override=endpoint + '/v1'
    )
    try:
        created = [
            conn.baremetal.create_node(
                driver='fake-hardware',
                name=f'page-{i}',
                properties={'cpus': i},
            )
            for i in range(3)
        ]
        found = list(conn.baremetal.nodes(details=True, limit=1))
        assert [n.name for n in found] == ['page-0', 'page-1', 'page-2']
        assert [n.properties for n in found] == [
            {'cpus': 0},
            {'cpus': 1},
            {'cpus': 2},
        ]
    finally:
        for node in created:
            conn.baremetal.delete_node(node)
        conn.close()


def test_cli_node_fields(endpoint: str) -> None:
    """The fields of 1.46 .. 1.104 as the openstack CLI sends them
    (booleans as the strings "True"/"False")."""
    parent = cli_json(
        endpoint,
        'node',
        'create',
        '--driver',
        'fake-hardware',
        '--name',
        'cli-parent',
        '--owner',
        'p1',
        '--lessee',
        'p2',
        '--shard',
        'shard-1',
    )
    assert (parent['owner'], parent['lessee'], parent['shard']) == (
        'p1',
        'p2',
        'shard-1',
    )
    assert parent['conductor_group'] == ''
    child = cli_json(
        endpoint,
        'node',
        'create',
        '--driver',
        'fake-hardware',
        '--name',
        'cli-child',
        '--owner',
        'p1',
        '--parent-node',
        'cli-parent',
    )
    assert child['parent_node'] == parent['uuid']
    try:
        done = cli(
            endpoint,
            'node',
            'set',
            'cli-parent',
            '--retired',
            '--retired-reason',
            'old',
            '--instance-name',
            'vm-1',
        )
        assert done.returncode == 0, done.stderr
        shown = cli_json(endpoint, 'node', 'show', 'cli-parent')
        assert (
            shown['retired'],
            shown['retired_reason'],
            shown['instance_name'],
        ) == (True, 'old', 'vm-1')
        done = cli(endpoint, 'node', 'set', 'cli-parent', '--protected')
        assert 'can only be made protected' in done.stderr
        assert 'HTTP 409' in done.stderr
        listed = cli_json(endpoint, 'node', 'list', '--owner', 'p1')
        assert [row['name'] for row in listed] == ['cli-parent']
        listed = cli_json(
            endpoint, 'node', 'list', '--include-children', '--sort', 'name'
        )
        assert [row['name'] for row in listed] == ['cli-child', 'cli-parent']
        children = cli_json(endpoint, 'node', 'children', 'list', 'cli-parent')
        assert children == {'children': [child['uuid']]}
        shards = cli_json(endpoint, 'shard', 'list')
        assert {row['name']: row['count'] for row in shards} == {
            'shard-1': 1,
            'None': 1,
        }
        done = cli(endpoint, 'node', 'unset', 'cli-parent', '--retired')
        assert done.returncode == 0, done.stderr
        assert (
            cli_json(endpoint, 'node', 'show', 'cli-parent')['retired_reason']
            is None
        )
    finally:
        for name in ('cli-child', 'cli-parent'):
            cli(endpoint, 'node', 'delete', name)


def test_cli_and_sdk_conductors(endpoint: str) -> None:
    """``openstack baremetal conductor list/show`` and the SDK's
    conductors (API 1.49)."""
    # python-ironicclient 6.x names list columns by their field names.
    listed = cli_json(endpoint, 'conductor', 'list', '--long')
    assert [(c['hostname'], c['alive']) for c in listed] == [
        ('conductor-1', True)
    ], listed
    assert listed[0]['drivers'] == ['fake-hardware']
    shown = cli_json(endpoint, 'conductor', 'show', 'conductor-1')
    assert shown['alive'] is True and shown['conductor_group'] == ''
    done = cli(endpoint, 'conductor', 'show', 'nowhere')
    assert 'Conductor nowhere could not be found. (HTTP 404)' in done.stderr
    conn = openstack.connect(
        auth_type='none', baremetal_endpoint_override=endpoint + '/v1'
    )
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
    cli_json(
        endpoint,
        'node',
        'create',
        '--driver',
        'fake-hardware',
        '--name',
        'traits-1',
    )
    done = cli(
        endpoint,
        'node',
        'add',
        'trait',
        'traits-1',
        'CUSTOM_A',
        'HW_CPU_X86_AVX2',
    )
    assert done.returncode == 0, done.stderr
    listed = cli_json(endpoint, 'node', 'trait', 'list', 'traits-1')
    assert sorted(row['traits'] for row in listed) == [
        'CUSTOM_A',
        'HW_CPU_X86_AVX2',
    ], listed
    done = cli(endpoint, 'node', 'remove', 'trait', 'traits-1', 'CUSTOM_B')
    assert done.returncode != 0 and 'CUSTOM_B' in done.stderr
    done = cli(endpoint, 'node', 'remove', 'trait', 'traits-1', 'CUSTOM_A')
    assert done.returncode == 0, done.stderr
    conn = openstack.connect(
        auth_type='none', baremetal_endpoint_override=endpoint + '/v1'
    )
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
    chassis = cli_json(
        endpoint,
        'chassis',
        'create',
        '--description',
        'r1',
        '--extra',
        'row=a',
    )
    assert chassis['description'] == 'r1' and chassis['extra'] == {'row': 'a'}
    node = cli_json(
        endpoint,
        'node',
        'create',
        '--driver',
        'fake-hardware',
        '--name',
        'racked',
        '--chassis-uuid',
        chassis['uuid'],
    )
    assert node['chassis_uuid'] == chassis['uuid']
    listed = cli_json(endpoint, 'chassis', 'list')
    assert [c['uuid'] for c in listed] == [chassis['uuid']], listed
    done = cli(
        endpoint, 'chassis', 'set', chassis['uuid'], '--description', 'r2'
    )
    assert done.returncode == 0, done.stderr
    shown = cli_json(endpoint, 'chassis', 'show', chassis['uuid'])
    assert shown['description'] == 'r2'
    racked = cli_json(endpoint, 'node', 'list', '--chassis', chassis['uuid'])
    assert [n['name'] for n in racked] == ['racked']
    done = cli(endpoint, 'chassis', 'delete', chassis['uuid'])
    assert done.returncode != 0 and 'contains nodes' in done.stderr
    conn = openstack.connect(
        auth_type='none', baremetal_endpoint_override=endpoint + '/v1'
    )
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
    node = cli_json(
        endpoint,
        'node',
        'create',
        '--driver',
        'fake-hardware',
        '--name',
        'cli-boot',
    )
    assert cli_json(
        endpoint, 'node', 'boot', 'device', 'show', 'cli-boot', '--supported'
    ) == {'supported_boot_devices': 'pxe'}  # (the CLI joins the list)
    done = cli(
        endpoint,
        'node',
        'boot',
        'device',
        'set',
        'cli-boot',
        'pxe',
        '--persistent',
    )
    assert done.returncode == 0, done.stderr
    assert cli_json(
        endpoint, 'node', 'boot', 'device', 'show', 'cli-boot'
    ) == {'boot_device': 'pxe', 'persistent': True}
    done = cli(endpoint, 'node', 'boot', 'device', 'set', 'cli-boot', 'cdrom')
    assert done.returncode != 0 and 'Invalid boot device' in done.stderr
    with openstack.connect(
        auth_type='none', baremetal_endpoint_override=endpoint + '/v1'
    ) as conn:
        assert conn.baremetal.get_node_boot_device(node['uuid']) == {
            'boot_device': 'pxe',
            'persistent': True,
        }
        # (openstacksdk returns the response body)
        assert conn.baremetal.get_node_supported_boot_devices(
            node['uuid']
        ) == {'supported_boot_devices': ['pxe']}
    assert cli(endpoint, 'node', 'delete', 'cli-boot').returncode == 0


def test_cli_driver_properties(endpoint: str) -> None:
    # (upstream's fake vendor interface lists B1 and B2; the client
    # names the columns by field)
    rows = cli_json(endpoint, 'driver', 'property', 'list', 'fake-hardware')
    assert {row.get('property', row.get('Property')) for row in rows} == {
        'B1',
        'B2',
    }, rows
    done = cli(endpoint, 'driver', 'property', 'list', 'nothing-here')
    assert done.returncode != 0 and 'HTTP 404' in done.stderr, done.stderr


def _wait_power(endpoint: str, name: str, state: str) -> None:
    """Until the node is in power ``state`` with no change under way."""
    deadline = time.monotonic() + 30
    while True:
        shown = cli_json(
            endpoint,
            'node',
            'show',
            name,
            '--fields',
            'power_state',
            'target_power_state',
        )
        if shown['power_state'] == state and not shown['target_power_state']:
            return
        assert time.monotonic() < deadline, shown
        time.sleep(0.2)


def test_cli_soft_power(endpoint: str) -> None:
    cli_json(
        endpoint,
        'node',
        'create',
        '--driver',
        'fake-hardware',
        '--name',
        'cli-soft',
    )
    for args, state in (
        (['power', 'on'], 'power on'),
        (['power', 'off', '--soft'], 'power off'),
        (['reboot', '--soft'], 'power on'),
    ):
        done = cli(
            endpoint, 'node', *args, 'cli-soft', '--power-timeout', '30'
        )
        assert done.returncode == 0, done.stderr
        _wait_power(endpoint, 'cli-soft', state)
    assert cli(endpoint, 'node', 'delete', 'cli-soft').returncode == 0


def test_cli_inject_nmi(endpoint: str) -> None:
    cli_json(
        endpoint,
        'node',
        'create',
        '--driver',
        'fake-hardware',
        '--name',
        'cli-nmi',
    )
    done = cli(endpoint, 'node', 'inject', 'nmi', 'cli-nmi')
    assert (
        done.returncode != 0 and 'does not support inject_nmi' in done.stderr
    ), done.stderr
    assert cli(endpoint, 'node', 'delete', 'cli-nmi').returncode == 0


def test_cli_adopt(endpoint: str) -> None:
    cli_json(
        endpoint,
        'node',
        'create',
        '--driver',
        'fake-hardware',
        '--name',
        'cli-adopt',
    )
    for verb in ('manage', 'adopt'):
        done = cli(endpoint, 'node', verb, 'cli-adopt', '--wait', '60')
        assert done.returncode == 0, done.stderr
    shown = cli_json(
        endpoint,
        'node',
        'show',
        'cli-adopt',
        '--fields',
        'provision_state',
        'last_error',
    )
    assert shown == {'provision_state': 'active', 'last_error': None}


def test_cli_and_sdk_interfaces(endpoint: str) -> None:
    node = cli_json(
        endpoint,
        'node',
        'create',
        '--driver',
        'fake-hardware',
        '--name',
        'cli-if',
        '--console-interface',
        'no-console',
        '--storage-interface',
        'fake',
    )
    assert (
        node['console_interface'],
        node['storage_interface'],
        node['boot_interface'],
        node['network_interface'],
    ) == ('no-console', 'fake', 'fake', 'noop')
    rows = cli_json(endpoint, 'node', 'validate', 'cli-if')
    results = {
        row['Interface']: (row['Result'], row['Reason']) for row in rows
    }
    assert results['power'] == (True, '')
    assert results['console'][0] is False
    assert 'does not support console' in results['console'][1]
    assert len(results) == 12, results
    driver = cli_json(endpoint, 'driver', 'show', 'fake-hardware')
    assert driver['default_console_interface'] == 'fake'
    # (the CLI joins the list)
    assert sorted(driver['enabled_console_interfaces'].split(', ')) == [
        'fake',
        'no-console',
    ]
    listed = cli_json(endpoint, 'driver', 'list', '--long')
    # (python-ironicclient names the columns by field here)
    assert listed[0]['default_storage_interface'] == 'noop', listed
    assert listed[0]['enabled_network_interfaces'] == 'noop, flat', listed
    done = cli(
        endpoint,
        'node',
        'set',
        'cli-if',
        '--driver',
        'fake-hardware',
        '--reset-interfaces',
    )
    assert done.returncode == 0, done.stderr
    with openstack.connect(
        auth_type='none', baremetal_endpoint_override=endpoint + '/v1'
    ) as conn:
        validated = conn.baremetal.validate_node(
            node['uuid'], required=('power',)
        )
        assert validated['power'].result is True
        assert validated['console'].result is False
        updated = conn.baremetal.update_node(
            node['uuid'], console_interface=None
        )
        assert updated.console_interface == 'fake'
    assert cli(endpoint, 'node', 'delete', 'cli-if').returncode == 0


def test_cli_console_and_passthru(endpoint: str) -> None:
    node = cli_json(
        endpoint,
        'node',
        'create',
        '--driver',
        'fake-hardware',
        '--name',
        'cli-cv',
    )
    done = cli(endpoint, 'node', 'console', 'enable', 'cli-cv')
    assert done.returncode == 0, done.stderr
    shown = cli_json(endpoint, 'node', 'console', 'show', 'cli-cv')
    assert shown['console_enabled'] is True, shown
    done = cli(endpoint, 'node', 'console', 'disable', 'cli-cv')
    assert done.returncode == 0, done.stderr
    assert (
        cli_json(endpoint, 'node', 'console', 'show', 'cli-cv')[
            'console_enabled'
        ]
        is False
    )
    methods = cli_json(endpoint, 'node', 'passthru', 'list', 'cli-cv')
    assert {row['Name'] for row in methods} == {
        'second_method',
        'third_method_sync',
        'fourth_method_shared_lock',
        'log_passthrough',
    }, methods
    # (python-ironicclient prints the answer's items: a method that
    # answers a boolean, as upstream's fake third_method_sync, fails in
    # the client; the asynchronous one answers nothing)
    done = cli(
        endpoint,
        'node',
        'passthru',
        'call',
        'cli-cv',
        'second_method',
        '--arg',
        'bar=kazoo',
    )
    assert done.returncode == 0, done
    done = cli(
        endpoint, 'node', 'passthru', 'call', 'cli-cv', 'third_method_sync'
    )
    assert done.returncode != 0 and 'HTTP 400' in done.stderr, done
    with openstack.connect(
        auth_type='none', baremetal_endpoint_override=endpoint + '/v1'
    ) as conn:
        conn.baremetal.enable_node_console(node['uuid'])
        assert (
            conn.baremetal.get_node_console(node['uuid'])['console_enabled']
            is True
        )
        # (openstacksdk returns the HTTP response)
        answer = conn.baremetal.call_node_vendor_passthru(
            node['uuid'], 'POST', 'third_method_sync', {'bar': 'woof'}
        )
        assert answer.status_code == 200 and answer.json() is False
        conn.baremetal.disable_node_console(node['uuid'])
    assert cli(endpoint, 'node', 'delete', 'cli-cv').returncode == 0


def test_cli_and_sdk_vifs(endpoint: str) -> None:
    node = cli_json(
        endpoint,
        'node',
        'create',
        '--driver',
        'fake-hardware',
        '--name',
        'cli-vif',
    )
    vif = '4f1c7e2a-1111-2222-3333-444455556666'
    done = cli(endpoint, 'node', 'vif', 'attach', 'cli-vif', vif)
    assert done.returncode == 0, done.stderr
    # The noop network interface records nothing (as upstream's).
    assert cli_json(endpoint, 'node', 'vif', 'list', 'cli-vif') == []
    done = cli(endpoint, 'node', 'vif', 'detach', 'cli-vif', vif)
    assert done.returncode == 0, done.stderr
    with openstack.connect(
        auth_type='none', baremetal_endpoint_override=endpoint + '/v1'
    ) as conn:
        conn.baremetal.attach_vif_to_node(node['uuid'], vif)
        assert conn.baremetal.list_node_vifs(node['uuid']) == []
        conn.baremetal.detach_vif_from_node(node['uuid'], vif)
    assert cli(endpoint, 'node', 'delete', 'cli-vif').returncode == 0


def test_cli_and_sdk_flat_vifs(endpoint: str) -> None:
    """On the flat network interface a VIF is bound to a port: the CLI
    and the SDK see it listed, on the port named (1.67), and gone after
    detach."""
    node = cli_json(
        endpoint,
        'node',
        'create',
        '--driver',
        'fake-hardware',
        '--name',
        'cli-flat',
        '--network-interface',
        'flat',
    )
    ports = [
        cli_json(
            endpoint,
            'port',
            'create',
            '--node',
            node['uuid'],
            f'52:54:00:00:03:0{n}',
        )
        for n in (1, 2)
    ]
    vif = '4f1c7e2a-1111-2222-3333-444455556666'
    done = cli(
        endpoint,
        'node',
        'vif',
        'attach',
        '--port-uuid',
        ports[1]['uuid'],
        'cli-flat',
        vif,
    )
    assert done.returncode == 0, done.stderr
    assert cli_json(endpoint, 'node', 'vif', 'list', 'cli-flat') == [
        {'id': vif}
    ]
    shown = cli_json(
        endpoint, 'port', 'show', ports[1]['uuid'], '--fields', 'internal_info'
    )
    assert shown['internal_info'] == {'tenant_vif_port_id': vif}
    with openstack.connect(
        auth_type='none', baremetal_endpoint_override=endpoint + '/v1'
    ) as conn:
        other = '5a2d7f3b-2222-3333-4444-555566667777'
        conn.baremetal.attach_vif_to_node(node['uuid'], other)
        assert sorted(conn.baremetal.list_node_vifs(node['uuid'])) == sorted(
            [vif, other]
        )
        conn.baremetal.detach_vif_from_node(node['uuid'], other)
    done = cli(endpoint, 'node', 'vif', 'detach', 'cli-flat', vif)
    assert done.returncode == 0, done.stderr
    assert cli_json(endpoint, 'node', 'vif', 'list', 'cli-flat') == []
    for port in ports:
        cli(endpoint, 'port', 'delete', port['uuid'])
    assert cli(endpoint, 'node', 'delete', 'cli-flat').returncode == 0


def test_cli_rescue(endpoint: str) -> None:
    cli_json(
        endpoint,
        'node',
        'create',
        '--driver',
        'fake-hardware',
        '--name',
        'cli-rs',
    )
    for verb in ('manage', 'provide', 'deploy'):
        done = cli(endpoint, 'node', verb, 'cli-rs', '--wait', '60')
        assert done.returncode == 0, (verb, done.stderr)
    done = cli(
        endpoint,
        'node',
        'rescue',
        'cli-rs',
        '--rescue-password',
        's3cret',
        '--wait',
        '60',
    )
    assert done.returncode == 0, done.stderr
    shown = cli_json(endpoint, 'node', 'show', 'cli-rs')
    assert shown['provision_state'] == 'rescue', shown
    assert shown['instance_info']['rescue_password'] == '******'
    done = cli(endpoint, 'node', 'unrescue', 'cli-rs', '--wait', '60')
    assert done.returncode == 0, done.stderr
    assert (
        cli_json(endpoint, 'node', 'show', 'cli-rs')['provision_state']
        == 'active'
    )
    done = cli(endpoint, 'node', 'undeploy', 'cli-rs', '--wait', '60')
    assert done.returncode == 0, done.stderr
    assert cli(endpoint, 'node', 'delete', 'cli-rs').returncode == 0


def test_cli_and_sdk_service(endpoint: str) -> None:
    """``openstack baremetal node service`` (1.87) and the SDK's
    service verb: steps on an active node, hold then unhold, and a
    refusal that leaves the node active."""
    cli_json(
        endpoint,
        'node',
        'create',
        '--driver',
        'fake-hardware',
        '--name',
        'cli-sv',
    )
    for verb in ('manage', 'provide', 'deploy'):
        done = cli(endpoint, 'node', verb, 'cli-sv', '--wait', '60')
        assert done.returncode == 0, (verb, done.stderr)
    steps = [
        {
            'interface': 'deploy',
            'step': 'repeatable_work',
            'args': {'seconds': 0},
        },
        {'interface': 'power', 'step': 'reboot'},
    ]
    done = cli(
        endpoint,
        'node',
        'service',
        'cli-sv',
        '--service-steps',
        json.dumps(steps),
        '--wait',
        '60',
    )
    assert done.returncode == 0, done.stderr
    shown = cli_json(endpoint, 'node', 'show', 'cli-sv')
    assert shown['provision_state'] == 'active', shown
    assert shown['driver_internal_info']['fake_steps_run'][-1] == (
        'repeatable_work'
    )
    done = cli(
        endpoint,
        'node',
        'service',
        'cli-sv',
        '--service-steps',
        json.dumps([{'interface': 'deploy', 'step': 'nope'}]),
    )
    assert done.returncode != 0
    assert 'no service step' in done.stderr, done.stderr
    conn = openstack.connect(
        auth_type='none', baremetal_endpoint_override=endpoint + '/v1'
    )
    node = conn.baremetal.get_node('cli-sv')
    # The proxy's set_node_provision_state takes no service_steps in
    # this openstacksdk; the node resource's does.
    node.set_provision_state(
        conn.baremetal,
        'service',
        service_steps=[{'interface': 'deploy', 'step': 'hold'}],
    )
    conn.baremetal.wait_for_nodes_provision_state(
        [node], 'service hold', timeout=60
    )
    conn.baremetal.set_node_provision_state(node, 'unhold')
    conn.baremetal.wait_for_nodes_provision_state([node], 'active', timeout=60)
    done = cli(endpoint, 'node', 'undeploy', 'cli-sv', '--wait', '60')
    assert done.returncode == 0, done.stderr


def test_cli_and_sdk_runbooks(endpoint: str) -> None:
    """``openstack baremetal runbook ...`` (1.92, traits 1.112) and
    the SDK's runbooks; a manual cleaning with a runbook."""
    steps = [
        {
            'interface': 'deploy',
            'step': 'one_shot_work',
            'args': {'seconds': 0},
            'order': 2,
        },
        {
            'interface': 'deploy',
            'step': 'repeatable_work',
            'args': {'seconds': 0},
            'order': 1,
        },
    ]
    created = cli_json(
        endpoint,
        'runbook',
        'create',
        '--name',
        'cli-rb',
        '--description',
        'two steps',
        '--steps',
        json.dumps(steps),
    )
    assert created['name'] == 'cli-rb', created
    assert created['description'] == 'two steps'
    done = cli(endpoint, 'runbook', 'trait', 'add', 'cli-rb', 'CUSTOM_RB')
    assert done.returncode == 0, done.stderr
    listed = cli_json(endpoint, 'runbook', 'trait', 'list', 'cli-rb')
    # ironicclient 6.x labels the one column with the field name
    # ('traits'), a known client quirk.
    assert [list(t.values()) for t in listed] == [['CUSTOM_RB']], listed
    cli_json(
        endpoint,
        'node',
        'create',
        '--driver',
        'fake-hardware',
        '--name',
        'cli-rb-node',
    )
    done = cli(endpoint, 'node', 'add', 'trait', 'cli-rb-node', 'CUSTOM_RB')
    assert done.returncode == 0, done.stderr
    done = cli(endpoint, 'node', 'manage', 'cli-rb-node', '--wait', '60')
    assert done.returncode == 0, done.stderr
    done = cli(
        endpoint,
        'node',
        'clean',
        'cli-rb-node',
        '--runbook',
        'cli-rb',
        '--wait',
        '60',
    )
    assert done.returncode == 0, done.stderr
    shown = cli_json(endpoint, 'node', 'show', 'cli-rb-node')
    assert shown['provision_state'] == 'manageable', shown
    assert shown['driver_internal_info']['fake_steps_run'] == [
        'repeatable_work',
        'one_shot_work',
    ]
    conn = openstack.connect(
        auth_type='none', baremetal_endpoint_override=endpoint + '/v1'
    )
    found = {rb.name: rb for rb in conn.baremetal.runbooks(details=True)}
    assert found['cli-rb'].traits == ['CUSTOM_RB']
    conn.baremetal.delete_runbook(found['cli-rb'])
    done = cli(endpoint, 'runbook', 'show', 'cli-rb')
    assert done.returncode != 0
    assert cli(endpoint, 'node', 'delete', 'cli-rb-node').returncode == 0


def test_cli_and_sdk_inspection_rules(endpoint: str) -> None:
    """``openstack baremetal inspection rule ...`` (1.96) and the SDK's
    inspection rules, unmodified."""
    conditions = [
        {
            'op': 'contains',
            'args': {
                'value': '{inventory[system_vendor][manufacturer]}',
                'regex': '(?i)dell',
            },
        }
    ]
    actions = [{'op': 'add-trait', 'args': {'name': 'CUSTOM_DELL'}}]
    # python-ironicclient 6.x sends --priority as a string, which
    # upstream Ironic 39 refuses as well (400): a client quirk.
    created = cli_json(
        endpoint,
        'inspection',
        'rule',
        'create',
        '--description',
        'dell',
        '--conditions',
        json.dumps(conditions),
        '--actions',
        json.dumps(actions),
    )
    assert created['priority'] == 0, created
    assert created['description'] == 'dell'
    assert created['actions'] == actions
    listed = cli_json(endpoint, 'inspection', 'rule', 'list', '--long')
    assert [r['UUID'] if 'UUID' in r else r['uuid'] for r in listed] == [
        created['uuid']
    ], listed
    conn = openstack.connect(
        auth_type='none', baremetal_endpoint_override=endpoint + '/v1'
    )
    rule = conn.baremetal.get_inspection_rule(created['uuid'])
    assert rule.conditions == conditions
    conn.baremetal.patch_inspection_rule(
        rule, [{'op': 'replace', 'path': '/priority', 'value': 7}]
    )
    shown = cli_json(endpoint, 'inspection', 'rule', 'show', created['uuid'])
    assert shown['priority'] == 7, shown
    secret = conn.baremetal.create_inspection_rule(
        sensitive=True, actions=[{'op': 'log', 'args': {'msg': 'x'}}]
    )
    assert secret.actions is None
    done = cli(endpoint, 'inspection', 'rule', 'delete', created['uuid'])
    assert done.returncode == 0, done.stderr
    conn.baremetal.delete_inspection_rule(secret)
    assert list(conn.baremetal.inspection_rules()) == []


def test_cli_and_sdk_allocations(endpoint: str) -> None:
    """openstack baremetal allocation create --wait / show / list /
    set / delete, and openstacksdk's allocations, unmodified."""
    node = cli_json(
        endpoint,
        'node',
        'create',
        '--driver',
        'fake-hardware',
        '--name',
        'cli-al',
        '--resource-class',
        'CUSTOM_CLI',
    )
    for verb in ('manage', 'provide'):
        done = cli(endpoint, 'node', verb, 'cli-al', '--wait', '60')
        assert done.returncode == 0, (verb, done.stderr)
    # A node whose power state was never read is not allocated
    # (upstream's rule).
    done = cli(
        endpoint, 'node', 'power', 'off', 'cli-al', '--power-timeout', '30'
    )
    assert done.returncode == 0, done.stderr
    created = cli_json(
        endpoint,
        'allocation',
        'create',
        '--resource-class',
        'CUSTOM_CLI',
        '--name',
        'cli-alloc',
        '--wait',
        '60',
    )
    assert created['state'] == 'active', created
    assert created['node_uuid'] == node['uuid'], created
    shown = cli_json(endpoint, 'node', 'show', 'cli-al')
    assert shown['allocation_uuid'] == created['uuid'], shown
    done = cli(endpoint, 'allocation', 'set', 'cli-alloc', '--extra', 'a=b')
    assert done.returncode == 0, done.stderr
    listed = cli_json(endpoint, 'allocation', 'list', '--long')
    assert [a['Name'] if 'Name' in a else a['name'] for a in listed] == [
        'cli-alloc'
    ], listed
    assert cli(endpoint, 'allocation', 'delete', 'cli-alloc').returncode == 0
    with openstack.connect(
        auth_type='none', baremetal_endpoint_override=endpoint + '/v1'
    ) as conn:
        allocation = conn.baremetal.create_allocation(
            resource_class='CUSTOM_CLI', name='sdk-alloc'
        )
        allocation = conn.baremetal.wait_for_allocation(allocation, timeout=60)
        assert allocation.node_id == node['uuid']
        conn.baremetal.delete_allocation(allocation)
    assert cli(endpoint, 'node', 'delete', 'cli-al').returncode == 0


def test_cli_boot_mode(endpoint: str) -> None:
    """openstack baremetal node boot mode set: accepted; the fake
    management interface cannot, and last_error says so (upstream's)."""
    cli_json(
        endpoint,
        'node',
        'create',
        '--driver',
        'fake-hardware',
        '--name',
        'cli-bm',
    )
    done = cli(endpoint, 'node', 'boot', 'mode', 'set', 'cli-bm', 'uefi')
    assert done.returncode == 0, done.stderr
    deadline = time.monotonic() + 30
    while True:
        shown = cli_json(endpoint, 'node', 'show', 'cli-bm')
        if shown['last_error'] or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert 'set_boot_mode' in (shown['last_error'] or ''), shown
    assert cli(endpoint, 'node', 'delete', 'cli-bm').returncode == 0


def test_cli_and_sdk_deploy_templates(endpoint: str) -> None:
    """openstack baremetal deploy template create/list/show/set/delete
    and openstacksdk's deploy templates, unmodified."""
    steps = json.dumps(
        [
            {
                'interface': 'bios',
                'step': 'factory_reset',
                'args': {},
                'priority': 120,
            }
        ]
    )
    created = cli_json(
        endpoint,
        'deploy',
        'template',
        'create',
        'CUSTOM_CLI_TEMPLATE',
        '--steps',
        steps,
    )
    assert created['name'] == 'CUSTOM_CLI_TEMPLATE', created
    listed = cli_json(endpoint, 'deploy', 'template', 'list')
    assert [t.get('Name', t.get('name')) for t in listed] == [
        'CUSTOM_CLI_TEMPLATE'
    ], listed
    done = cli(
        endpoint,
        'deploy',
        'template',
        'set',
        'CUSTOM_CLI_TEMPLATE',
        '--extra',
        'a=b',
    )
    assert done.returncode == 0, done.stderr
    shown = cli_json(
        endpoint, 'deploy', 'template', 'show', 'CUSTOM_CLI_TEMPLATE'
    )
    assert shown['extra'] == {'a': 'b'}, shown
    with openstack.connect(
        auth_type='none', baremetal_endpoint_override=endpoint + '/v1'
    ) as conn:
        template = conn.baremetal.get_deploy_template('CUSTOM_CLI_TEMPLATE')
        assert template.steps[0]['step'] == 'factory_reset'
        conn.baremetal.delete_deploy_template(template)
        assert list(conn.baremetal.deploy_templates()) == []


def test_clients_negotiate_the_complete_maximum_by_default() -> None:
    """With the default configuration the clients settle on the last
    version up to which every change is served, and work there."""
    stack = fixtures.Stack(
        overrides={'api.advertise_incomplete_versions': False}
    ).start()
    try:
        with hostile.serving(stack.app, server.Settings(threads=2)) as port:
            endpoint = f'http://127.0.0.1:{port}'
            done = cli(
                endpoint,
                '--debug',
                'node',
                'create',
                '--driver',
                'fake-hardware',
                '--name',
                'honest-1',
            )
            assert done.returncode == 0, done.stderr
            # ironicclient asks for its own maximum (1.115, upstream
            # Ironic 39's, as ours); an older Ironic's 406 naming a lower
            # maximum would make it negotiate down.
            assert (
                f'X-OpenStack-Ironic-API-Version: {mv.COMPLETE_VERSION}'
            ) in done.stderr
            assert '"POST /v1/nodes HTTP/1.1" 201' in done.stderr
            conn = openstack.connection.Connection(
                auth_type='none', baremetal_endpoint_override=endpoint
            )
            node = conn.baremetal.get_node('honest-1')
            assert node.provision_state == 'enroll'
            maximum = conn.baremetal.get_endpoint_data().max_microversion
            assert f'{maximum[0]}.{maximum[1]}' == mv.COMPLETE_VERSION
    finally:
        stack.stop()
