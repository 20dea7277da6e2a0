"""The conductor's side of ramdisk agents: the agent token is made
once, checked on every heartbeat, and forgotten when the machine powers
off (real SQLite, the endpoint called directly)."""

import pytest

from ironic_lite import exception
from ironic_lite.common import states
from ironic_lite.conductor import agent_token
from ironic_lite.conductor import manager as conductor_manager
from ironic_lite.conductor import ramdisk
from ironic_lite.db import nodes as db_nodes
from ironic_lite.tests.unit import test_task_manager as fixtures
from ironic_lite.tests.unit.test_manager import Unwrapped
from ironic_lite.tests.unit.test_task_manager import HOST
from ironic_lite.tests.unit.test_task_manager import make_node
from ironic_lite.tests.unit.test_task_manager import wait_for

conf = fixtures.conf
pool = fixtures.pool


@pytest.fixture
def agents(conf):
    return Unwrapped(ramdisk.RamdiskManager(conf, HOST))


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
        agent_token.MASK)
    assert _info(ctx, node)[agent_token.TOKEN_KEY] == token


def test_no_token_is_made_while_another_operation_holds_the_node(
        ctx, agents):
    node = make_node(ctx, provision_state=states.CLEANING)
    db_nodes.reserve(ctx, 'other-conductor', node['id'])
    with pytest.raises(exception.NodeLocked):
        agents.get_node_with_token(ctx, node['uuid'])
    assert agent_token.TOKEN_KEY not in _info(ctx, node)


def test_a_heartbeat_needs_the_token(ctx, agents):
    node = make_node(ctx, provision_state=states.CLEANWAIT)
    token = agents.get_node_with_token(ctx, node['uuid'])[
        'driver_internal_info'][agent_token.TOKEN_KEY]
    for wrong in (None, '', 'x', agent_token.MASK):
        with pytest.raises(exception.InvalidParameterValue,
                           match='agent token'):
            agents.heartbeat(ctx, node['uuid'], 'http://127.0.0.1:1',
                             '9.0', wrong)
    with pytest.raises(exception.InvalidParameterValue, match='version'):
        agents.heartbeat(ctx, node['uuid'], 'http://127.0.0.1:1', None,
                         token)
    agents.heartbeat(ctx, node['uuid'], 'http://127.0.0.1:1', '9.0', token)
    # A status alone (an installer) is enough.
    agents.heartbeat(ctx, node['uuid'], '', None, token,
                     agent_status='start')


def test_no_token_no_heartbeat(ctx, agents):
    node = make_node(ctx, provision_state=states.CLEANWAIT)
    with pytest.raises(exception.InvalidParameterValue):
        agents.heartbeat(ctx, node['uuid'], 'http://127.0.0.1:1', '9.0',
                         None)


def test_powering_off_forgets_the_agent(ctx, conf, pool):
    mgr = Unwrapped(conductor_manager.ConductorManager(conf, HOST, pool))
    node = make_node(ctx, provision_state=states.MANAGEABLE,
                     power_state=states.POWER_ON, driver_internal_info={
                         agent_token.TOKEN_KEY: 'secret',
                         agent_token.URL_KEY: 'http://127.0.0.1:1',
                         'kept': 1})
    mgr.change_power_state(ctx, node['uuid'], states.POWER_OFF)
    row = wait_for(ctx, node, lambda r: r['target_power_state'] is None)
    assert row['power_state'] == states.POWER_OFF
    assert row['driver_internal_info'] == {'kept': 1}


def test_a_pregenerated_token_survives_a_power_off():
    info = {agent_token.TOKEN_KEY: 's', agent_token.PREGENERATED_KEY: True,
            agent_token.URL_KEY: 'u', agent_token.VERIFY_CA_KEY: 'c'}
    agent_token.wipe_on_power_off(info)
    assert info == {agent_token.TOKEN_KEY: 's',
                    agent_token.PREGENERATED_KEY: True}
    agent_token.wipe_token_and_url(info)
    assert info == {}
