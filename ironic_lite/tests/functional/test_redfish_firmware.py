"""The redfish firmware interface against sushy-emulator (with the
fake systems driver extended by firmware versions:
:mod:`ironic_lite.tests.redfish_fake_plus`): components cached at
``manage``, the ``update`` clean step through the emulator's
UpdateService.SimpleUpdate and its task, polled by the conductor.

The emulator's SimpleUpdate bumps the system's BiosVersion (1.0.0 ->
1.1.0) and answers with a task that is complete at once; it refuses a
manager target, so a BMC update can only be seen failing here."""

import json

import pytest

from ironic_lite.tests.functional import redfish_support as support

STEP = {'interface': 'firmware', 'step': 'update'}


@pytest.fixture(scope='module')
def emulator(tmp_path_factory):
    bmc = support.start_emulator(
        tmp_path_factory.mktemp('redfish'), 2, plus=True
    )
    yield bmc
    bmc.stop()


@pytest.fixture(scope='module')
def stack():
    stack = support.start_stack(firmware=['fake', 'no-firmware', 'redfish'])
    yield stack
    stack.stop()


def _components(stack, uuid: str) -> dict[str, dict[str, str]]:
    status, body = support.call(stack, 'GET', f'/v1/nodes/{uuid}/firmware')
    assert status == 200, body
    return {c['component']: c for c in body['firmware']}


def test_components_cached_and_bios_updated(stack, emulator):
    node = support.manageable(stack, emulator, 0)
    uuid = node['uuid']
    assert node['firmware_interface'] == 'redfish'
    components = _components(stack, uuid)
    assert components['bios']['current_version'] == '1.0.0'
    assert components['bios']['initial_version'] == '1.0.0'
    assert components['bmc']['current_version'] == '1.00'

    node = support.clean(
        stack,
        uuid,
        [
            {
                **STEP,
                'args': {
                    'settings': [
                        {
                            'component': 'bios',
                            'url': 'http://127.0.0.1:1/bios-1.1.bin',
                        }
                    ]
                },
            }
        ],
    )
    assert node['last_error'] is None, node
    assert 'redfish_fw_updates' not in node['driver_internal_info']
    # A BIOS update is applied by a reboot.
    assert node['power_state'] == 'power on'
    assert emulator.get(emulator.system_path(0))['BiosVersion'] == '1.1.0'
    bios = _components(stack, uuid)['bios']
    assert (
        bios['initial_version'],
        bios['current_version'],
        bios['last_version_flashed'],
    ) == ('1.0.0', '1.1.0', '1.1.0')


def test_a_refused_update_fails_the_step(stack, emulator):
    uuid = support.manageable(stack, emulator, 1)['uuid']
    node = support.clean(
        stack,
        uuid,
        [
            {
                **STEP,
                'args': {
                    'settings': [
                        {
                            'component': 'bmc',
                            'url': 'http://127.0.0.1:1/bmc.bin',
                        }
                    ]
                },
            }
        ],
        wanted='clean failed',
    )
    assert 'Starting the bmc firmware update failed' in node['last_error']
    assert (
        'Manager is not currently a supported Target' in (node['last_error'])
    )
    assert _components(stack, uuid)['bmc']['current_version'] == '1.00'


def test_invalid_settings(stack, emulator):
    uuid = support.manageable(stack, emulator, 1)['uuid']
    support.call(stack, 'DELETE', f'/v1/nodes/{uuid}/maintenance')
    node = support.clean(
        stack,
        uuid,
        [
            {
                **STEP,
                'args': {
                    'settings': [
                        {'component': 'nic', 'url': 'http://x/nic.bin'}
                    ]
                },
            }
        ],
        wanted='clean failed',
    )
    assert 'Invalid firmware update' in node['last_error']
    assert "'nic' is not one of ['bios', 'bmc']" in json.dumps(
        node['last_error']
    )
