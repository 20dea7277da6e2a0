"""The redfish hardware type against sushy-tools' Redfish emulator (a
real process, fake systems; power changes land 1 to 11 s later, as on a
real BMC), through the Bare Metal API and the conductor in process."""

import json
import time
from typing import Any

import pytest
import webob

from ironic_lite.tests import redfish_emulator
from ironic_lite.tests.functional import fixtures

HEADERS = {'X-OpenStack-Ironic-API-Version': 'latest',
           'Content-Type': 'application/json'}


@pytest.fixture(scope='module')
def emulator(tmp_path_factory):
    bmc = redfish_emulator.Emulator(
        tmp_path_factory.mktemp('redfish'),
        [redfish_emulator.system(1), redfish_emulator.system(2)]).start()
    yield bmc
    bmc.stop()


@pytest.fixture(scope='module')
def stack():
    stack = fixtures.Stack(overrides={
        'enabled_hardware_types': ['fake-hardware', 'redfish'],
        'enabled_power_interfaces': ['fake', 'redfish'],
        'enabled_management_interfaces': ['fake', 'redfish'],
        'redfish.power_state_change_timeout': 40,
        'redfish.power_state_poll_interval': 0.2,
        'redfish.connection_attempts': 2,
        'redfish.connection_retry_interval': 0,
        'redfish.read_timeout': 3,
        'redfish.server_side_retries': 1,
        'redfish.server_side_retries_delay': 0}).start()
    yield stack
    stack.stop()


def _call(stack, method: str, path: str, body: Any = None) -> Any:
    request = webob.Request.blank(path, method=method, headers=HEADERS)
    if body is not None:
        request.body = json.dumps(body).encode()
    response = request.get_response(stack.app)
    return response.status_int, (response.json if response.body else None)


def _node(stack, emulator, index: int, **info: Any) -> dict[str, Any]:
    status, node = _call(stack, 'POST', '/v1/nodes', {
        'driver': 'redfish', 'driver_info': {
            'redfish_address': emulator.address,
            'redfish_system_id': emulator.system_path(index),
            'redfish_username': 'admin', 'redfish_password': 's3cret',
            'redfish_verify_ca': 'false', **info}})
    assert status == 201, node
    return node


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
    status, body = _call(stack, 'PUT', f'/v1/nodes/{uuid}/states/power',
                         {'target': target})
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
        'cdrom', 'disk', 'pxe', 'uefi-http']
    status, _ = _call(stack, 'PUT', path, {'boot_device': 'pxe',
                                           'persistent': True})
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
    status, body = _call(stack, 'PUT',
                         f'/v1/nodes/{uuid}/management/inject_nmi', {})
    assert status == 503, body
    assert 'Injecting an NMI failed' in json.dumps(body)
    status, _ = _call(stack, 'PUT', f'/v1/nodes/{uuid}/states/boot_mode',
                      {'target': 'bios'})
    assert status == 202
    deadline = time.monotonic() + 30
    while _call(stack, 'GET', f'/v1/nodes/{uuid}')[1]['boot_mode'] != 'bios':
        assert time.monotonic() < deadline
        time.sleep(0.2)


def test_validation_says_what_is_missing(stack, emulator):
    status, node = _call(stack, 'POST', '/v1/nodes', {
        'driver': 'redfish', 'driver_info': {'redfish_verify_ca': 'maybe'}})
    assert status == 201
    status, result = _call(stack, 'GET',
                           f'/v1/nodes/{node["uuid"]}/validate')
    assert result['power']['result'] is False
    assert ('Missing the following Redfish properties in node '
            f'{node["uuid"]} driver_info: redfish_address'
            in result['power']['reason'])
    _call(stack, 'PATCH', f'/v1/nodes/{node["uuid"]}', [
        {'op': 'add', 'path': '/driver_info/redfish_address',
         'value': emulator.address}])
    status, result = _call(stack, 'GET',
                           f'/v1/nodes/{node["uuid"]}/validate')
    assert 'redfish_verify_ca' in result['management']['reason']


def test_an_unknown_system_fails_the_power_change(stack, emulator):
    uuid = _node(stack, emulator, 0, redfish_system_id=(
        '/redfish/v1/Systems/00000000-0000-0000-0000-000000000000'))['uuid']
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
