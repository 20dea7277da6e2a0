"""The conductor's side of ramdisk agents: the agent token is made
once, checked on every heartbeat, and forgotten when the machine powers
off (real SQLite, the endpoint called directly)."""

import pytest

from ironic_lite import exception
from ironic_lite.common import agent_token
from ironic_lite.common import states
from ironic_lite.conductor import manager as conductor_manager
from ironic_lite.conductor import ramdisk
from ironic_lite.db import node_locks
from ironic_lite.db import nodes as db_nodes
from ironic_lite.tests.unit import test_task_manager as fixtures
from ironic_lite.tests.unit.test_manager import Unwrapped
from ironic_lite.tests.unit.test_task_manager import HOLDER
from ironic_lite.tests.unit.test_task_manager import HOST
from ironic_lite.tests.unit.test_task_manager import another
from ironic_lite.tests.unit.test_task_manager import holder  # noqa: F401
from ironic_lite.tests.unit.test_task_manager import make_node
from ironic_lite.tests.unit.test_task_manager import wait_for

conf = fixtures.conf
pool = fixtures.pool


@pytest.fixture
def agents(conf):
    return Unwrapped(ramdisk.RamdiskManager(conf, HOLDER))


def _info(ctx, node):
    return db_nodes.node_get(ctx, node['id'])['driver_internal_info']


def test_the_token_is_made_once(ctx, agents):
    node = make_node(ctx, provision_state=states.CLEANWAIT)
    first = agents.get_node_with_token(ctx, node['uuid'])
    token = first['driver_internal_info'][agent_token.TOKEN_KEY]
    assert len(token) >= 40 and token != agent_token.MASK
    assert _info(ctx, node)[agent_token.TOKEN_KEY] == token
    # A second machine claiming the node learns nothing.
    second = agents.get_node_with_token(ctx, node['uuid'])
    assert second['driver_internal_info'][agent_token.TOKEN_KEY] == (
        agent_token.MASK
    )
    assert _info(ctx, node)[agent_token.TOKEN_KEY] == token


def test_no_token_is_made_while_another_operation_holds_the_node(ctx, agents):
    node = make_node(ctx, provision_state=states.CLEANING)
    node_locks.reserve(ctx, another(ctx, 'other-conductor'), node['id'])
    with pytest.raises(exception.NodeLocked):
        agents.get_node_with_token(ctx, node['uuid'])
    assert agent_token.TOKEN_KEY not in _info(ctx, node)


def test_a_heartbeat_needs_the_token(ctx, agents):
    node = make_node(ctx, provision_state=states.CLEANWAIT)
    token = agents.get_node_with_token(ctx, node['uuid'])[
        'driver_internal_info'
    ][agent_token.TOKEN_KEY]
    for wrong in (None, '', 'x', agent_token.MASK):
        with pytest.raises(
            exception.InvalidParameterValue, match='agent token'
        ):
            agents.heartbeat(
                ctx, node['uuid'], 'http://127.0.0.1:1', '9.0', wrong
            )
    with pytest.raises(exception.InvalidParameterValue, match='version'):
        agents.heartbeat(ctx, node['uuid'], 'http://127.0.0.1:1', None, token)
    agents.heartbeat(ctx, node['uuid'], 'http://127.0.0.1:1', '9.0', token)
    # A status alone (an installer) is enough.
    agents.heartbeat(ctx, node['uuid'], '', None, token, agent_status='start')


def test_no_token_no_heartbeat(ctx, agents):
    node = make_node(ctx, provision_state=states.CLEANWAIT)
    with pytest.raises(exception.InvalidParameterValue):
        agents.heartbeat(ctx, node['uuid'], 'http://127.0.0.1:1', '9.0', None)


def test_powering_off_forgets_the_agent(ctx, conf, pool):
    mgr = Unwrapped(conductor_manager.ConductorManager(conf, HOLDER, pool))
    node = make_node(
        ctx,
        provision_state=states.MANAGEABLE,
        power_state=states.POWER_ON,
        driver_internal_info={
            agent_token.TOKEN_KEY: 'secret',
            agent_token.URL_KEY: 'http://127.0.0.1:1',
            'kept': 1,
        },
    )
    mgr.change_power_state(ctx, node['uuid'], states.POWER_OFF)
    row = wait_for(ctx, node, lambda r: r['target_power_state'] is None)
    assert row['power_state'] == states.POWER_OFF
    assert row['driver_internal_info'] == {'kept': 1}


def test_a_pregenerated_token_survives_a_power_off():
    info = {
        agent_token.TOKEN_KEY: 's',
        agent_token.PREGENERATED_KEY: True,
        agent_token.URL_KEY: 'u',
        agent_token.VERIFY_CA_KEY: 'c',
    }
    agent_token.wipe_on_power_off(info)
    assert info == {
        agent_token.TOKEN_KEY: 's',
        agent_token.PREGENERATED_KEY: True,
    }
    agent_token.wipe_token_and_url(info)
    assert info == {}


# -- continue_inspection (1.84): with the fake inspect interface (which
# takes no agent data, as upstream's) and with one that does.

INVENTORY = {
    'interfaces': [{'mac_address': '52:54:00:12:34:56'}],
    'cpu': {'count': 2},
}


def test_the_fake_interface_takes_no_agent_data(ctx, agents):
    node = make_node(
        ctx,
        provision_state=states.INSPECTWAIT,
        target_provision_state=states.MANAGEABLE,
    )
    with pytest.raises(exception.UnsupportedDriverExtension):
        agents.continue_inspection(ctx, node['uuid'], INVENTORY, {})
    row = db_nodes.node_get(ctx, node['id'])
    assert (row['provision_state'], row['reservation']) == (
        states.INSPECTWAIT,
        None,
    )


def test_only_a_waiting_node_takes_agent_data(ctx, agents):
    node = make_node(ctx, provision_state=states.MANAGEABLE)
    with pytest.raises(exception.InvalidStateRequested):
        agents.continue_inspection(ctx, node['uuid'], INVENTORY, {})


def test_an_interface_that_takes_the_data(ctx, agents, monkeypatch):
    """Done: the inventory is stored (logs aside), the token forgotten,
    the node manageable. Still processing: the node waits. A failure:
    inspect failed, with the reason."""
    from ironic_lite.db import node_inventory
    from ironic_lite.drivers import fake_standard

    answers = []

    def take(self, task, inventory, plugin_data):
        assert task.node.reservation == HOST
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    monkeypatch.setattr(fake_standard.FakeInspect, 'continue_inspection', take)
    node = make_node(
        ctx,
        provision_state=states.INSPECTWAIT,
        target_provision_state=states.MANAGEABLE,
        driver_internal_info={agent_token.TOKEN_KEY: 't' * 43},
    )
    answers.append(states.INSPECTWAIT)
    agents.continue_inspection(ctx, node['uuid'], INVENTORY, {})
    assert db_nodes.node_get(ctx, node['id'])['provision_state'] == (
        states.INSPECTWAIT
    )

    answers.append(None)
    agents.continue_inspection(
        ctx, node['uuid'], INVENTORY, {'logs': 'x' * 100, 'found': 1}
    )
    row = db_nodes.node_get(ctx, node['id'])
    assert row['provision_state'] == states.MANAGEABLE
    assert agent_token.TOKEN_KEY not in row['driver_internal_info']
    assert node_inventory.get(ctx, node['id'], node['uuid']) == {
        'inventory': INVENTORY,
        'plugin_data': {'found': 1},
    }

    other = make_node(
        ctx,
        provision_state=states.INSPECTWAIT,
        target_provision_state=states.MANAGEABLE,
    )
    answers.append(RuntimeError('disk on fire'))
    with pytest.raises(exception.HardwareInspectionFailure):
        agents.continue_inspection(ctx, other['uuid'], INVENTORY, {})
    row = db_nodes.node_get(ctx, other['id'])
    assert row['provision_state'] == states.INSPECTFAIL
    assert row['last_error'] == 'Failed to finish inspection: disk on fire'
