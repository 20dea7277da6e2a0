"""The redfish BIOS interface against sushy-emulator, with the fake
systems driver extended by a BIOS (:mod:`ironic_lite.tests.
redfish_fake_plus`: the stock one has none): settings cached at
``manage``, applied and reset by clean steps that reboot the node and
wait until the BMC reports them (the emulator applies pending BIOS
settings when the system powers on)."""

import json

import pytest

from ironic_lite.tests.functional import redfish_support as support

STEP = {'interface': 'bios', 'step': 'apply_configuration'}


@pytest.fixture(scope='module')
def emulator(tmp_path_factory):
    bmc = support.start_emulator(
        tmp_path_factory.mktemp('redfish'), 2, plus=True
    )
    yield bmc
    bmc.stop()


@pytest.fixture(scope='module')
def stack():
    stack = support.start_stack(bios=['fake', 'no-bios', 'redfish'])
    yield stack
    stack.stop()


def _settings(stack, uuid: str) -> dict[str, str]:
    status, body = support.call(stack, 'GET', f'/v1/nodes/{uuid}/bios')
    assert status == 200, body
    return {s['name']: s['value'] for s in body['bios']}


def _bmc_bios(emulator, index: int) -> dict[str, str]:
    return dict(
        emulator.get(emulator.system_path(index) + '/BIOS')['Attributes']
    )


def test_settings_cached_applied_and_reset(stack, emulator):
    node = support.manageable(stack, emulator, 0)
    uuid = node['uuid']
    assert node['bios_interface'] == 'redfish'
    cached = _settings(stack, uuid)
    assert cached['ProcTurboMode'] == 'Enabled'
    assert cached == _bmc_bios(emulator, 0)
    # With the fields of the BMC's attribute registry (API 1.74).
    status, setting = support.call(
        stack, 'GET', f'/v1/nodes/{uuid}/bios/NumCores'
    )
    assert setting['NumCores']['read_only'] is True, setting
    assert setting['NumCores']['attribute_type'] == 'Integer'
    assert setting['NumCores']['upper_bound'] == 20

    node = support.clean(
        stack,
        uuid,
        [
            {
                **STEP,
                'args': {
                    'settings': [
                        {'name': 'ProcTurboMode', 'value': 'Disabled'},
                        {'name': 'NicBoot1', 'value': 'Disabled'},
                    ]
                },
            }
        ],
    )
    assert node['last_error'] is None, node
    assert node['power_state'] == 'power on'
    assert _bmc_bios(emulator, 0)['ProcTurboMode'] == 'Disabled'
    cached = _settings(stack, uuid)
    assert (cached['ProcTurboMode'], cached['NicBoot1']) == (
        'Disabled',
        'Disabled',
    )
    assert 'redfish_bios_state' not in node['driver_internal_info']

    node = support.clean(
        stack, uuid, [{'interface': 'bios', 'step': 'factory_reset'}]
    )
    assert node['last_error'] is None, node
    assert _settings(stack, uuid)['ProcTurboMode'] == 'Enabled'
    assert _bmc_bios(emulator, 0)['NicBoot1'] == 'NetworkBoot'


def test_settings_already_set_need_no_reboot(stack, emulator):
    uuid = support.manageable(stack, emulator, 1)['uuid']
    node = support.clean(
        stack,
        uuid,
        [
            {
                **STEP,
                'args': {
                    'settings': [{'name': 'ProcTurboMode', 'value': 'Enabled'}]
                },
            }
        ],
    )
    assert node['last_error'] is None, node
    # Never powered on: nothing was rebooted.
    assert node['power_state'] == 'power off'
    assert emulator.power_state(1) == 'Off'


def test_bad_arguments_are_refused(stack, emulator):
    uuid = support.manageable(stack, emulator, 1)['uuid']
    status, body = support.call(
        stack,
        'PUT',
        f'/v1/nodes/{uuid}/states/provision',
        {
            'target': 'clean',
            'clean_steps': [{**STEP, 'args': {'settings': {'name': 'x'}}}],
        },
    )
    assert status == 400, body
    assert 'invalid value of argument settings' in json.dumps(body)
    node = support.clean(
        stack,
        uuid,
        [{**STEP, 'args': {'settings': [{'name': 'ProcTurboMode'}]}}],
        wanted='clean failed',
    )
    assert 'needs a "name" and a "value"' in node['last_error']
    # The registry says NumCores is read-only (upstream's check).
    support.call(stack, 'DELETE', f'/v1/nodes/{uuid}/maintenance')
    support.provision(stack, uuid, 'manage')
    support.wait_provision(stack, uuid, 'manageable')
    node = support.clean(
        stack,
        uuid,
        [
            {
                **STEP,
                'args': {'settings': [{'name': 'NumCores', 'value': '12'}]},
            }
        ],
        wanted='clean failed',
    )
    assert 'invalid value for setting(s): NumCores' in node['last_error']
