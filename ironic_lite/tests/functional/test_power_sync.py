"""The power state sync periodic of a conductor, against the IPMI
responder (a BMC that changes behind the conductor's back, then stops
answering and comes back); test_power_sync_db.py has the database
side."""

import time
from typing import Any

import pytest

from ironic_lite.conductor import power_sync
from ironic_lite.db import nodes as db_nodes
from ironic_lite.tests import ipmi_responder
from ironic_lite.tests.functional import fixtures
from ironic_lite.tests.functional import test_ipmi
from lite_common import context as lite_context

_call = test_ipmi._call


@pytest.fixture(scope='module')
def bmc(tmp_path_factory):
    responder = ipmi_responder.Responder(
        tmp_path_factory.mktemp('ipmi-sync')
    ).start()
    yield responder
    responder.stop()


@pytest.fixture(scope='module')
def stack():
    stack = fixtures.Stack(
        overrides={
            'enabled_hardware_types': ['fake-hardware', 'ipmi'],
            'enabled_power_interfaces': ['fake', 'ipmi'],
            'enabled_management_interfaces': ['fake', 'ipmi'],
            'conductor.sync_power_state_interval': 1,
            'conductor.power_failure_recovery_interval': 1,
            'conductor.power_state_sync_max_retries': 2,
            'ipmi.command_retry_timeout': 0,
            'ipmi.min_command_interval': 0,
            'ipmi.operation_timeout': 3,
            'ipmi.power_state_poll_interval': 0.1,
        }
    ).start()
    yield stack
    stack.stop()


def _wait(stack, uuid: str, done: Any, timeout: float = 90) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        node = _call(stack, 'GET', f'/v1/nodes/{uuid}')[1]
        if done(node):
            return node
        assert time.monotonic() < deadline, node
        time.sleep(0.2)


def _events(stack, uuid: str) -> list[dict[str, Any]]:
    status, body = _call(stack, 'GET', f'/v1/nodes/{uuid}/history?detail=true')
    assert status == 200, body
    return list(body['history'])


def _manageable(uuid: str, **values: Any) -> None:
    """Out of ``enroll`` (which the sync skips, as upstream's)."""
    db_nodes.node_update(
        lite_context.get_admin_context(),
        uuid,
        {'provision_state': 'manageable', **values},
    )


@pytest.fixture
def node_of(stack, bmc):
    """Makes nodes behind the BMC; deletes them after the test (the
    sync of one would fight the next test's over the one chassis)."""
    made: list[str] = []

    def make(**values: Any) -> str:
        uuid = test_ipmi._node(stack, bmc.driver_info())['uuid']
        made.append(uuid)
        _manageable(uuid, **values)
        return uuid

    yield make
    for uuid in made:
        _call(stack, 'PUT', f'/v1/nodes/{uuid}/maintenance', {})
        for _attempt in range(50):  # a power sync may hold the lock
            status, body = _call(stack, 'DELETE', f'/v1/nodes/{uuid}')
            if status != 409:
                break
            time.sleep(0.2)
        assert status == 204, body


def _powered_on_node(stack, bmc, node_of) -> str:
    bmc.set_power('off')
    uuid = node_of()
    assert test_ipmi._power(stack, uuid, 'power on')['power_state'] == (
        'power on'
    )
    return uuid


def test_sync_forces_the_recorded_state_then_follows_the_bmc(
    stack, bmc, node_of
):
    uuid = _powered_on_node(stack, bmc, node_of)
    bmc.set_power('off')  # someone pressed the button
    # (a sync every second; seconds apart on a loaded machine)
    deadline = time.monotonic() + 60
    while bmc.state()['power'] != 'on':
        assert time.monotonic() < deadline, bmc.state()
        time.sleep(0.2)
    assert any(
        'Changing hardware state to "power on"' in event['event']
        and event['event_type'] == 'monitoring'
        for event in _events(stack, uuid)
    )
    stack.conf.set_override(
        'force_power_state_during_sync', False, group='conductor'
    )
    try:
        bmc.set_power('off')
        node = _wait(
            stack, uuid, lambda node: node['power_state'] == 'power off', 60
        )
    finally:
        stack.conf.clear_override(
            'force_power_state_during_sync', group='conductor'
        )
    assert node['maintenance'] is False
    assert bmc.state()['power'] == 'off'
    assert any(
        'Updating recorded state to "power off"' in event['event']
        for event in _events(stack, uuid)
    )


def test_unanswered_bmc_means_maintenance_until_it_answers(
    stack, bmc, node_of
):
    uuid = _powered_on_node(stack, bmc, node_of)
    bmc.mute()
    try:
        node = _wait(stack, uuid, lambda node: node['maintenance'])
    finally:
        bmc.unmute()
    assert node['fault'] == 'power failure'
    assert node['power_state'] is None
    assert 'max retries exceeded' in node['maintenance_reason']
    assert 'did not answer IPMI' in node['maintenance_reason']
    errors = [
        event for event in _events(stack, uuid) if event['severity'] == 'ERROR'
    ]
    assert any('max retries exceeded' in event['event'] for event in errors)
    node = _wait(stack, uuid, lambda node: not node['maintenance'], 30)
    assert node['fault'] is None
    assert node['maintenance_reason'] is None
    assert node['power_state'] == 'power on'
    assert any(
        'recovered from power failure' in event['event']
        for event in _events(stack, uuid)
    )


def test_operator_maintenance_is_not_recovered(stack, bmc, node_of):
    uuid = node_of()
    status, _ = _call(
        stack, 'PUT', f'/v1/nodes/{uuid}/maintenance', {'reason': 'disk swap'}
    )
    assert status == 202
    sync = power_sync.PowerSync(stack.conf, stack.conductor.identity)
    sync.recover_power_failures()
    node = _call(stack, 'GET', f'/v1/nodes/{uuid}')[1]
    assert node['maintenance'] is True
    assert node['maintenance_reason'] == 'disk swap'


def test_a_node_without_power_state_gets_the_bmcs(stack, bmc, node_of):
    bmc.set_power('on')
    uuid = node_of()
    node = _wait(stack, uuid, lambda node: node['power_state'] is not None, 30)
    assert node['power_state'] == 'power on'
    assert bmc.state()['power'] == 'on'
