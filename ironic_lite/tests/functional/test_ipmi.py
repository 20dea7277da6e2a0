"""The ipmi hardware type against a real IPMI 2.0 responder (pyghmi's
BMC server in its own process on 127.0.0.1), through the Bare Metal API
and the conductor in process."""

import json
import time
from typing import Any

import pytest
import webob

from ironic_lite.tests import ipmi_responder
from ironic_lite.tests.functional import fixtures

HEADERS = {
    'X-OpenStack-Ironic-API-Version': 'latest',
    'Content-Type': 'application/json',
}


@pytest.fixture(scope='module')
def bmc(tmp_path_factory):
    responder = ipmi_responder.Responder(
        tmp_path_factory.mktemp('ipmi')
    ).start()
    yield responder
    responder.stop()


@pytest.fixture(autouse=True)
def answering(bmc):
    bmc.unmute()
    yield
    bmc.unmute()


@pytest.fixture(scope='module')
def stack():
    stack = fixtures.Stack(
        overrides={
            'enabled_hardware_types': ['fake-hardware', 'ipmi'],
            'enabled_power_interfaces': ['fake', 'ipmi'],
            'enabled_management_interfaces': ['fake', 'ipmi'],
            'ipmi.command_retry_timeout': 1,
            'ipmi.min_command_interval': 0,
            'ipmi.operation_timeout': 10,
            'ipmi.power_state_poll_interval': 0.1,
        }
    ).start()
    yield stack
    stack.stop()


def _call(stack, method: str, path: str, body: Any = None) -> Any:
    request = webob.Request.blank(path, method=method, headers=HEADERS)
    if body is not None:
        request.body = json.dumps(body).encode()
    response = request.get_response(stack.app)
    return response.status_int, (response.json if response.body else None)


def _fault(body: dict[str, Any]) -> str:
    return str(json.loads(body['error_message'])['faultstring'])


def _node(stack, driver_info: dict[str, Any]) -> dict[str, Any]:
    status, node = _call(
        stack,
        'POST',
        '/v1/nodes',
        {'driver': 'ipmi', 'driver_info': driver_info},
    )
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
        time.sleep(0.1)


def _power(stack, uuid: str, target: str) -> dict[str, Any]:
    status, body = _call(
        stack, 'PUT', f'/v1/nodes/{uuid}/states/power', {'target': target}
    )
    assert status == 202, body
    return _settled(stack, uuid)


def test_enroll_and_validate(stack, bmc):
    node = _node(stack, bmc.driver_info())
    assert node['power_interface'] == 'ipmi'
    assert node['management_interface'] == 'ipmi'
    assert node['driver_info']['ipmi_password'] == '******'
    status, result = _call(stack, 'GET', f'/v1/nodes/{node["uuid"]}/validate')
    assert status == 200
    assert result['power'] == {'result': True}
    assert result['management'] == {'result': True}
    status, props = _call(stack, 'GET', '/v1/drivers/ipmi/properties')
    assert status == 200
    assert 'ipmi_address' in props and 'ipmi_password' in props


@pytest.mark.parametrize(
    'info, reason',
    [
        ({}, 'Missing the following IPMI credentials'),
        (
            {'ipmi_address': '127.0.0.1', 'ipmi_port': 'x'},
            'ipmi_port "x" is not a valid port',
        ),
        (
            {'ipmi_address': '127.0.0.1', 'ipmi_port': 70000},
            'ipmi_port "70000" is not a valid port',
        ),
        ({'ipmi_address': 'bad host!'}, 'Invalid IPMI address "bad host!"'),
        (
            {'ipmi_address': '127.0.0.1', 'ipmi_priv_level': 'ROOT'},
            'Invalid privilege level value:ROOT',
        ),
        (
            {'ipmi_address': '127.0.0.1', 'ipmi_protocol_version': '1.5'},
            'IPMI 2.0 (RMCP+) only',
        ),
        (
            {'ipmi_address': '127.0.0.1', 'ipmi_hex_kg_key': 'abc'},
            'ipmi_hex_kg_key characters is not even',
        ),
    ],
    ids=[
        'missing',
        'port-text',
        'port-range',
        'address',
        'priv-level',
        'protocol',
        'kg-key',
    ],
)  # gabbi's collector reads ':' in ids
def test_validation_says_what_is_wrong(stack, info, reason):
    uuid = _node(stack, info)['uuid']
    status, result = _call(stack, 'GET', f'/v1/nodes/{uuid}/validate')
    assert status == 200
    assert result['power']['result'] is False
    assert reason in result['power']['reason'], result
    status, body = _call(
        stack, 'PUT', f'/v1/nodes/{uuid}/states/power', {'target': 'power on'}
    )
    assert status == 400, body
    assert reason in _fault(body)


def test_power_through_the_bmc(stack, bmc):
    uuid = _node(stack, bmc.driver_info())['uuid']
    assert _power(stack, uuid, 'power on')['power_state'] == 'power on'
    assert bmc.state()['power'] == 'on'
    node = _power(stack, uuid, 'rebooting')
    assert node['power_state'] == 'power on', node
    assert bmc.state()['actions'][-2:] == ['off', 'on']
    node = _power(stack, uuid, 'soft rebooting')
    assert node['power_state'] == 'power on', node
    assert bmc.state()['actions'][-2:] == ['shutdown', 'on']
    node = _power(stack, uuid, 'soft power off')
    assert node['power_state'] == 'power off', node
    assert bmc.state()['actions'][-1] == 'shutdown'
    assert _power(stack, uuid, 'power off')['last_error'] is None


def test_boot_device_and_nmi(stack, bmc):
    uuid = _node(stack, bmc.driver_info())['uuid']
    path = f'/v1/nodes/{uuid}/management/boot_device'
    status, supported = _call(stack, 'GET', path + '/supported')
    assert status == 200
    assert sorted(supported['supported_boot_devices']) == [
        'bios',
        'cdrom',
        'disk',
        'pxe',
        'safe',
    ]
    status, _ = _call(
        stack, 'PUT', path, {'boot_device': 'pxe', 'persistent': True}
    )
    assert status == 204
    assert bmc.state()['boot_device'] == 'network'
    assert _call(stack, 'GET', path)[1] == {
        'boot_device': 'pxe',
        'persistent': True,
    }
    status, _ = _call(stack, 'PUT', path, {'boot_device': 'cdrom'})
    assert status == 204
    assert _call(stack, 'GET', path)[1] == {
        'boot_device': 'cdrom',
        'persistent': False,
    }
    status, body = _call(stack, 'PUT', path, {'boot_device': 'floppy'})
    assert status == 400, body
    assert 'supports pxe, disk, cdrom, bios, safe' in _fault(body)
    nmi = bmc.state()['nmi']
    status, body = _call(
        stack, 'PUT', f'/v1/nodes/{uuid}/management/inject_nmi', {}
    )
    assert status == 204, body
    assert bmc.state()['nmi'] == nmi + 1


def test_bad_credentials_are_a_clear_error(stack, bmc):
    uuid = _node(stack, bmc.driver_info(ipmi_password='wrong'))['uuid']
    node = _power(stack, uuid, 'power on')
    assert 'Incorrect password provided' in node['last_error'], node
    assert 'wrong' not in node['last_error']
    status, body = _call(
        stack, 'GET', f'/v1/nodes/{uuid}/management/boot_device'
    )
    assert status == 503, body
    assert f'IPMI call failed for node {uuid}' in _fault(body)
    uuid = _node(stack, bmc.driver_info(ipmi_username='nobody'))['uuid']
    node = _power(stack, uuid, 'power on')
    assert 'Unauthorized name' in node['last_error'], node


def test_a_bmc_that_does_not_answer(stack, bmc):
    uuid = _node(stack, bmc.driver_info())['uuid']
    bmc.mute()
    node = _power(stack, uuid, 'power on')
    assert 'did not answer IPMI' in node['last_error'], node
    assert f'127.0.0.1:{bmc.port}' in node['last_error']
    # The first attempt outlasts the 1 s budget; it is retried once.
    assert 'after 2 attempt(s)' in node['last_error'], node
    bmc.unmute()
    assert _power(stack, uuid, 'power on')['power_state'] == 'power on'
