"""The redfish hardware type against sushy-tools' Redfish emulator (a
real process, fake systems; power changes land 1 to 11 s later, as on a
real BMC), through the Bare Metal API and the conductor in process."""

import json
import time
from typing import Any

import jsonschema
import pytest

from ironic_lite.api import openapi
from ironic_lite.conductor import task_manager
from ironic_lite.tests.functional import redfish_support as support
from ironic_lite.tests.functional.redfish_support import call as _call
from lite_common import context as lite_context


@pytest.fixture(scope='module')
def emulator(tmp_path_factory):
    bmc = support.start_emulator(tmp_path_factory.mktemp('redfish'), 3)
    yield bmc
    bmc.stop()


@pytest.fixture(scope='module')
def stack():
    stack = support.start_stack(
        inspect=['fake', 'no-inspect', 'redfish'],
        boot=['fake', 'redfish-virtual-media'],
        raid=['fake', 'no-raid', 'redfish'],
    )
    yield stack
    stack.stop()


@pytest.fixture(scope='module')
def images(tmp_path_factory):
    directory = tmp_path_factory.mktemp('images')
    (directory / 'boot.iso').write_bytes(b'\0' * 4096)
    server = support.ImageServer(directory)
    yield server
    server.stop()


def _node(stack, emulator, index: int, **info: Any) -> dict[str, Any]:
    return support.create_node(stack, emulator, index, **info)


def _settled(stack, uuid: str, timeout: float = 60) -> dict[str, Any]:
    """The node once its power change has ended (well or not)."""
    deadline = time.monotonic() + timeout
    while True:
        node = _call(stack, 'GET', f'/v1/nodes/{uuid}')[1]
        if node['target_power_state'] is None:
            return node
        assert time.monotonic() < deadline, node
        time.sleep(0.2)


def _wait_power(stack, uuid: str, wanted: str) -> dict[str, Any]:
    node = _settled(stack, uuid)
    assert node['power_state'] == wanted, node
    return node


def _power(stack, uuid: str, target: str) -> None:
    status, body = _call(
        stack, 'PUT', f'/v1/nodes/{uuid}/states/power', {'target': target}
    )
    assert status == 202, body


def test_power_through_the_bmc(stack, emulator):
    node = _node(stack, emulator, 0)
    assert node['power_interface'] == 'redfish'
    assert node['driver_info']['redfish_password'] == '******'
    _power(stack, node['uuid'], 'power on')
    _wait_power(stack, node['uuid'], 'power on')
    assert emulator.power_state(0) == 'On'
    _power(stack, node['uuid'], 'rebooting')
    _wait_power(stack, node['uuid'], 'power on')
    _power(stack, node['uuid'], 'soft power off')
    _wait_power(stack, node['uuid'], 'power off')
    assert emulator.power_state(0) == 'Off'
    # The other system was never touched.
    assert emulator.power_state(1) == 'Off'


def test_boot_device_mode_and_nmi(stack, emulator):
    uuid = _node(stack, emulator, 1)['uuid']
    path = f'/v1/nodes/{uuid}/management/boot_device'
    status, supported = _call(stack, 'GET', path + '/supported')
    assert status == 200
    assert supported['supported_boot_devices'] == [
        'cdrom',
        'disk',
        'pxe',
        'uefi-http',
    ]
    status, _ = _call(
        stack, 'PUT', path, {'boot_device': 'pxe', 'persistent': True}
    )
    assert status == 204
    status, shown = _call(stack, 'GET', path)
    assert shown == {'boot_device': 'pxe', 'persistent': True}
    status, _ = _call(stack, 'PUT', path, {'boot_device': 'cdrom'})
    assert status == 204
    # (The emulator keeps every override "Continuous": it does not model
    # a one-time override.)
    assert _call(stack, 'GET', path)[1]['boot_device'] == 'cdrom'
    status, body = _call(stack, 'PUT', path, {'boot_device': 'floppy'})
    assert status == 400, body
    assert 'supports cdrom, disk, pxe, uefi-http' in json.dumps(body)
    # The emulator's fake systems list Nmi among their reset types but
    # refuse it (501): the BMC's refusal is a 503 that says so.
    status, body = _call(
        stack, 'PUT', f'/v1/nodes/{uuid}/management/inject_nmi', {}
    )
    assert status == 503, body
    assert 'Injecting an NMI failed' in json.dumps(body)
    status, _ = _call(
        stack, 'PUT', f'/v1/nodes/{uuid}/states/boot_mode', {'target': 'bios'}
    )
    assert status == 202
    deadline = time.monotonic() + 30
    while _call(stack, 'GET', f'/v1/nodes/{uuid}')[1]['boot_mode'] != 'bios':
        assert time.monotonic() < deadline
        time.sleep(0.2)


def test_validation_says_what_is_missing(stack, emulator):
    status, node = _call(
        stack,
        'POST',
        '/v1/nodes',
        {'driver': 'redfish', 'driver_info': {'redfish_verify_ca': 'maybe'}},
    )
    assert status == 201
    status, result = _call(stack, 'GET', f'/v1/nodes/{node["uuid"]}/validate')
    assert result['power']['result'] is False
    assert (
        'Missing the following Redfish properties in node '
        f'{node["uuid"]} driver_info: redfish_address'
        in result['power']['reason']
    )
    _call(
        stack,
        'PATCH',
        f'/v1/nodes/{node["uuid"]}',
        [
            {
                'op': 'add',
                'path': '/driver_info/redfish_address',
                'value': emulator.address,
            }
        ],
    )
    status, result = _call(stack, 'GET', f'/v1/nodes/{node["uuid"]}/validate')
    assert 'redfish_verify_ca' in result['management']['reason']


def test_an_unknown_system_fails_the_power_change(stack, emulator):
    uuid = _node(
        stack,
        emulator,
        0,
        redfish_system_id=(
            '/redfish/v1/Systems/00000000-0000-0000-0000-000000000000'
        ),
    )['uuid']
    _power(stack, uuid, 'power on')
    node = _settled(stack, uuid, 30)
    assert 'was not found' in node['last_error'], node
    assert 's3cret' not in node['last_error']


def test_a_bmc_that_does_not_answer(stack, emulator):
    uuid = _node(stack, emulator, 1)['uuid']
    emulator.pause()
    try:
        _power(stack, uuid, 'power on')
        node = _settled(stack, uuid, 90)
    finally:
        emulator.resume()
    assert 'Redfish connection failed' in node['last_error'], node


def _last_error_or(stack, uuid: str, check: Any) -> Any:
    """Wait for ``check(node)``; fail at once on a last_error."""

    def done() -> Any:
        node = support.get_node(stack, uuid)
        assert not node['last_error'], node['last_error']
        return check(node)

    return support.wait_for('the change to land', done, 30)


def test_secure_boot_and_boot_mode(stack, emulator):
    uuid = _node(stack, emulator, 2)['uuid']
    path = f'/v1/nodes/{uuid}/states'
    status, body = _call(stack, 'PUT', path + '/secure_boot', {'target': True})
    assert status == 202, body
    _last_error_or(stack, uuid, lambda node: node['secure_boot'] is True)
    assert (
        emulator.get(emulator.system_path(2) + '/SecureBoot')[
            'SecureBootEnable'
        ]
        is True
    )
    # Secure boot needs UEFI: legacy BIOS mode is refused while it is on
    # the BMC, as upstream's check says.
    status, _ = _call(stack, 'PUT', path + '/secure_boot', {'target': False})
    assert status == 202
    _last_error_or(stack, uuid, lambda node: node['secure_boot'] is False)
    status, _ = _call(stack, 'PUT', path + '/boot_mode', {'target': 'bios'})
    _last_error_or(stack, uuid, lambda node: node['boot_mode'] == 'bios')
    status, _ = _call(stack, 'PUT', path + '/secure_boot', {'target': True})
    assert status == 202
    node = support.wait_for(
        'the refusal',
        lambda: (lambda n: n if n['last_error'] else None)(
            support.get_node(stack, uuid)
        ),
        30,
    )
    assert 'Configuring secure boot requires UEFI' in node['last_error']
    assert node['secure_boot'] is False
    system = emulator.get(emulator.system_path(2))
    assert system['Boot']['BootSourceOverrideMode'] == 'Legacy'


def test_indicators(stack, emulator):
    uuid = _node(stack, emulator, 0)['uuid']
    path = f'/v1/nodes/{uuid}/management/indicators'
    status, body = _call(stack, 'GET', path)
    assert status == 200, body
    names = {i['name']: i for i in body['indicators']}
    system_led = f'{emulator.systems[0]["uuid"]}@system'
    assert system_led in names
    assert '1:disk0@disk' in names
    assert any(name.endswith('@chassis') for name in names)
    assert names[system_led]['states'] == ['blinking', 'off', 'on']
    assert _call(stack, 'GET', f'{path}/{system_led}')[1] == {'state': 'on'}
    status, body = _call(
        stack, 'PUT', f'{path}/{system_led}', {'state': 'blinking'}
    )
    assert status == 204, body
    assert _call(stack, 'GET', f'{path}/{system_led}')[1] == {
        'state': 'blinking'
    }
    assert emulator.get(emulator.system_path(0))['IndicatorLED'] == (
        'Blinking'
    )
    status, body = _call(
        stack, 'PUT', f'{path}/{system_led}', {'state': 'dim'}
    )
    assert status == 400, body
    status, body = _call(stack, 'GET', f'{path}/nothing@system')
    assert status == 400
    assert 'Invalid indicator nothing specified' in json.dumps(body)


def _vmedia_schema() -> Any:
    """The documented answer of ``GET .../vmedia`` (the fuzz run's fake
    driver has no virtual media to check it with)."""
    doc = openapi.document()
    operation = doc['paths']['/v1/nodes/{node_ident}/vmedia']['get']
    return operation['responses']['200']['content']['application/json'][
        'schema'
    ]


def test_virtual_media(stack, emulator, images):
    uuid = _node(stack, emulator, 1)['uuid']
    path = f'/v1/nodes/{uuid}/vmedia'
    documented = jsonschema.Draft202012Validator(_vmedia_schema())
    status, body = _call(stack, 'GET', path)
    assert status == 200, body
    documented.validate(body)
    assert {
        'media_types': ['CD', 'DVD'],
        'inserted': False,
        'image': '',
    } in body
    status, body = _call(
        stack,
        'POST',
        path,
        {'device_type': 'cdrom', 'image_url': images.url('boot.iso')},
    )
    assert status == 204, body

    def inserted(node: dict[str, Any]) -> Any:
        media = _call(stack, 'GET', path)[1]
        return [m for m in media if m['inserted']]

    attached = _last_error_or(stack, uuid, inserted)
    documented.validate(_call(stack, 'GET', path)[1])
    assert attached == [
        {
            'media_types': ['CD', 'DVD'],
            'inserted': True,
            'image': images.url('boot.iso'),
        }
    ]
    status, body = _call(stack, 'DELETE', path + '?device_types=cdrom')
    assert status == 204, body
    _last_error_or(stack, uuid, lambda node: not inserted(node))
    # An image the BMC cannot download: the failure is the node's error.
    _call(
        stack,
        'POST',
        path,
        {'device_type': 'cdrom', 'image_url': images.url('missing.iso')},
    )
    node = support.wait_for(
        'the failure',
        lambda: (lambda n: n if n['last_error'] else None)(
            support.get_node(stack, uuid)
        ),
        30,
    )
    assert 'Could not attach device cdrom' in node['last_error']


def test_inspection_needs_memory_and_cpus(stack, emulator):
    """The stock fake driver reports no processors and no memory:
    inspection fails, naming what is missing (upstream's message)."""
    node = support.manageable(stack, emulator, 0)
    assert node['inspect_interface'] == 'redfish'
    support.provision(stack, node['uuid'], 'inspect')
    node = support.wait_provision(stack, node['uuid'], 'inspect failed')
    assert (
        'Failed to discover the following properties: cpu_arch, memory_mb'
    ) in node['last_error'], node


def test_virtual_media_boot(stack, emulator, images):
    """The boot interface, called as a deploy interface would (none
    calls it yet): the ISO attached as the CD, then the disk."""
    node = _node(stack, emulator, 2, deploy_iso=images.url('boot.iso'))
    uuid = node['uuid']
    status, _ = _call(
        stack,
        'PATCH',
        f'/v1/nodes/{uuid}',
        [
            {
                'op': 'replace',
                'path': '/boot_interface',
                'value': 'redfish-virtual-media',
            }
        ],
    )
    assert status == 200
    assert _call(stack, 'GET', f'/v1/nodes/{uuid}/validate')[1]['boot'] == {
        'result': True
    }
    cd = emulator.system_path(2) + '/VirtualMedia/Cd'
    with task_manager.acquire(
        lite_context.get_admin_context(),
        stack.conf,
        uuid,
        stack.conductor.identity,
        'test boot',
    ) as task:
        boot = task.interfaces['boot']
        boot.prepare_ramdisk(task, {})
        assert emulator.get(cd)['Image'] == images.url('boot.iso')
        assert (
            emulator.get(emulator.system_path(2))['Boot'][
                'BootSourceOverrideTarget'
            ]
            == 'Cd'
        )
        boot.prepare_instance(task)
        assert emulator.get(cd)['Inserted'] is False
        assert (
            emulator.get(emulator.system_path(2))['Boot'][
                'BootSourceOverrideTarget'
            ]
            == 'Hdd'
        )
    _call(
        stack,
        'PATCH',
        f'/v1/nodes/{uuid}',
        [{'op': 'remove', 'path': '/driver_info/deploy_iso'}],
    )
    result = _call(stack, 'GET', f'/v1/nodes/{uuid}/validate')[1]['boot']
    assert result['result'] is False
    assert 'missing driver_info/deploy_iso' in result['reason']


def test_raid_where_the_emulator_has_no_volumes(stack, emulator):
    """The emulator lists a storage controller and a drive per system,
    but its fake driver cannot list or create volumes (500): the RAID
    steps get as far as the BMC and fail with its answer."""
    node = support.manageable(stack, emulator, 1)
    uuid = node['uuid']
    assert node['raid_interface'] == 'redfish'
    path = f'/v1/nodes/{uuid}/states/raid'
    status, body = _call(
        stack,
        'PUT',
        path,
        {
            'logical_disks': [
                {'size_gb': 50, 'raid_level': '2', 'is_root_volume': True}
            ]
        },
    )
    assert status == 400, body
    assert 'RAID level 2 is not supported' in json.dumps(body)
    # No controller reports SupportedRAIDTypes: none is chosen.
    status, body = _call(
        stack,
        'PUT',
        path,
        {
            'logical_disks': [
                {'size_gb': 50, 'raid_level': '0', 'is_root_volume': True}
            ]
        },
    )
    assert status == 204, body
    step = {'interface': 'raid', 'step': 'create_configuration'}
    node = support.clean(stack, uuid, [step], wanted='clean failed')
    assert (
        'no storage controller offers RAID0 (storage: 1)'
        in (node['last_error'])
    )
    # Named, it is used, with the drive; the BMC refuses the volume.
    _call(stack, 'DELETE', f'/v1/nodes/{uuid}/maintenance')
    support.provision(stack, uuid, 'manage')
    support.wait_provision(stack, uuid, 'manageable')
    _call(
        stack,
        'PUT',
        path,
        {
            'logical_disks': [
                {
                    'size_gb': 50,
                    'raid_level': '0',
                    'controller': '1',
                    'physical_disks': ['disk0'],
                }
            ]
        },
    )
    node = support.clean(
        stack,
        uuid,
        [{**step, 'args': {'create_root_volume': False}}],
        wanted='clean failed',
    )
    assert 'Creating the RAID volumes failed' in node['last_error'], node
    assert 'returned code 500' in node['last_error']
