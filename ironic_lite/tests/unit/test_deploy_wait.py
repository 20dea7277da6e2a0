"""Asynchronous deploy steps: ``wait call-back``, its polling, timeout,
abort (API 1.110) and undeploy, through the RPC endpoint and the flow on
real SQLite with the real worker pool and the fake-hardware interfaces."""

import dataclasses
import datetime
import time

import pytest

from ironic_lite import exception
from ironic_lite.common import states
from ironic_lite.conductor import deploy_steps
from ironic_lite.conductor import deploy_wait
from ironic_lite.conductor import manager as conductor_manager
from ironic_lite.conductor import periodics
from ironic_lite.db import conductors as db_conductors
from ironic_lite.db import node_history as db_history
from ironic_lite.db import nodes as db_nodes
from ironic_lite.drivers import fake
from ironic_lite.tests.unit import make_conf
from ironic_lite.tests.unit import test_task_manager as fixtures
from ironic_lite.tests.unit.test_cleaning import lock
from ironic_lite.tests.unit.test_cleaning import steps_run
from ironic_lite.tests.unit.test_manager import Unwrapped
from ironic_lite.tests.unit.test_task_manager import HOLDER
from ironic_lite.tests.unit.test_task_manager import HOST
from ironic_lite.tests.unit.test_task_manager import holder  # noqa: F401
from ironic_lite.tests.unit.test_task_manager import make_node
from ironic_lite.tests.unit.test_task_manager import wait_state
from lite_common import db as lite_db

conf = fixtures.conf
pool = fixtures.pool

#: Runs before the core step deploy.deploy (priority 100).
FIRST = 150
DEPLOY_KEYS = (
    deploy_steps.STEPS_KEY,
    deploy_steps.INDEX_KEY,
    deploy_steps.USER_STEPS_KEY,
)


def wait_a_bit(seconds, priority=90):
    return {
        'interface': 'deploy',
        'step': 'wait_a_bit',
        'args': {'seconds': seconds},
        'priority': priority,
    }


@pytest.fixture
def mgr(conf, pool):
    return Unwrapped(conductor_manager.ConductorManager(conf, HOLDER, pool))


@pytest.fixture
def not_abortable(monkeypatch):
    """wait_a_bit as a deploy step that may not be interrupted (as
    every upstream deploy step)."""
    info = fake.FakeDeploy.wait_a_bit._deploy_step
    monkeypatch.setattr(
        fake.FakeDeploy.wait_a_bit,
        '_deploy_step',
        dataclasses.replace(info, abortable=False),
    )


def deploy(ctx, mgr, steps):
    node = make_node(
        ctx, provision_state=states.AVAILABLE, power_state=states.POWER_OFF
    )
    mgr.do_provisioning_action(
        ctx, node['uuid'], 'active', None, deploy_steps=steps
    )
    return node


def no_deploy_info(row):
    return not set(DEPLOY_KEYS) & set(row['driver_internal_info'])


def test_an_asynchronous_step_waits_unlocked_then_the_deployment_goes_on(
    ctx, mgr, conf, pool
):
    node = deploy(ctx, mgr, [wait_a_bit(0.2)])
    row = wait_state(ctx, node, states.DEPLOYWAIT)
    assert row['deploy_step']['step'] == 'wait_a_bit'
    assert row['target_provision_state'] == states.ACTIVE
    assert row['reservation'] is None
    assert row['driver_internal_info'][deploy_steps.INDEX_KEY] == 1
    with lock(ctx, conf, node) as task:
        assert not deploy_wait.step_finished(task)
    time.sleep(0.25)
    with lock(ctx, conf, node) as task:
        deploy_wait.poll_async_step(task, pool)
    row = wait_state(ctx, node, states.ACTIVE)
    assert steps_run(row) == ['wait_a_bit']
    assert row['power_state'] == states.POWER_ON
    assert row['deploy_step'] == {}
    assert row['last_error'] is None
    assert no_deploy_info(row)


def test_steps_after_the_asynchronous_one_run_once_it_finished(
    ctx, mgr, conf, pool
):
    node = deploy(ctx, mgr, [wait_a_bit(0, FIRST)])
    row = wait_state(ctx, node, states.DEPLOYWAIT)
    # deploy.deploy (100) has not run yet: no power yet either.
    assert row['driver_internal_info'][deploy_steps.INDEX_KEY] == 0
    assert row['power_state'] == states.POWER_OFF
    with lock(ctx, conf, node) as task:
        deploy_wait.poll_async_step(task, pool)
    row = wait_state(ctx, node, states.ACTIVE)
    assert row['power_state'] == states.POWER_ON


def test_abort_stops_an_abortable_step_at_once(ctx, mgr):
    node = deploy(ctx, mgr, [wait_a_bit(600)])
    wait_state(ctx, node, states.DEPLOYWAIT)
    mgr.do_provisioning_action(ctx, node['uuid'], 'abort', None)
    row = db_nodes.node_get(ctx, node['id'])
    assert row['provision_state'] == states.DEPLOYFAIL
    assert row['last_error'] == (
        'By request, the deploy operation was aborted during or after '
        'the completion of step "deploy.wait_a_bit"'
    )
    assert row['deploy_step'] == {}
    assert fake.WAIT_UNTIL_KEY not in row['driver_internal_info']
    assert no_deploy_info(row)
    assert steps_run(row) == []
    events = [e['event'] for e in db_history.list_page(ctx, node['id'])]
    assert any('aborted' in e for e in events), events
    # deploy failed may be deployed again.
    mgr.do_provisioning_action(ctx, node['uuid'], 'active', None)
    wait_state(ctx, node, states.ACTIVE)


def test_abort_waits_for_a_step_that_is_not_abortable(
    ctx, mgr, conf, pool, not_abortable
):
    # A long step, ended by hand below: however slow the machine, the
    # aborts come while it runs.
    node = deploy(ctx, mgr, [wait_a_bit(600, FIRST)])
    wait_state(ctx, node, states.DEPLOYWAIT)
    mgr.do_provisioning_action(ctx, node['uuid'], 'abort', None)
    # Twice: the flag is set once, the node keeps waiting.
    mgr.do_provisioning_action(ctx, node['uuid'], 'abort', None)
    row = db_nodes.node_get(ctx, node['id'])
    assert row['provision_state'] == states.DEPLOYWAIT
    assert row['deploy_step'][deploy_wait.ABORT_AFTER] is True
    with lock(ctx, conf, node) as task:
        deploy_wait.poll_async_step(task, pool)
    row = db_nodes.node_get(ctx, node['id'])
    assert row['provision_state'] == states.DEPLOYWAIT
    db_nodes.node_update(
        ctx,
        node['id'],
        {
            'driver_internal_info': {
                **row['driver_internal_info'],
                fake.WAIT_UNTIL_KEY: time.time() - 1,
            }
        },
    )
    with lock(ctx, conf, node) as task:
        deploy_wait.poll_async_step(task, pool)
    row = db_nodes.node_get(ctx, node['id'])
    assert row['provision_state'] == states.DEPLOYFAIL
    assert (
        'after the completion of step "deploy.wait_a_bit"'
        in (row['last_error'])
    )
    # The step finished; the next one (deploy.deploy, then power on)
    # never ran.
    assert steps_run(row) == ['wait_a_bit']
    assert row['power_state'] == states.POWER_OFF
    assert no_deploy_info(row)


def test_a_failing_poll_fails_the_deployment(ctx, mgr, conf, pool):
    node = deploy(ctx, mgr, [wait_a_bit(600)])
    wait_state(ctx, node, states.DEPLOYWAIT)
    row = db_nodes.node_get(ctx, node['id'])
    info = dict(row['driver_internal_info'])
    del info[fake.WAIT_UNTIL_KEY]
    db_nodes.node_update(ctx, node['id'], {'driver_internal_info': info})
    with lock(ctx, conf, node) as task:
        deploy_wait.poll_async_step(task, pool)
    row = db_nodes.node_get(ctx, node['id'])
    assert row['provision_state'] == states.DEPLOYFAIL
    assert 'deploy step deploy.wait_a_bit failed' in row['last_error']
    assert no_deploy_info(row)


def test_undeploy_while_waiting_stops_the_step_and_cleans(ctx, mgr):
    node = deploy(ctx, mgr, [wait_a_bit(600)])
    wait_state(ctx, node, states.DEPLOYWAIT)
    mgr.do_provisioning_action(ctx, node['uuid'], 'deleted', None)
    row = wait_state(ctx, node, states.AVAILABLE)
    assert row['deploy_step'] == {}
    assert fake.WAIT_UNTIL_KEY not in row['driver_internal_info']
    assert no_deploy_info(row)


@pytest.mark.parametrize(
    'state', [states.AVAILABLE, states.DEPLOYFAIL, states.ACTIVE]
)
def test_nothing_to_abort_outside_wait_call_back(ctx, mgr, state):
    node = make_node(ctx, provision_state=state)
    with pytest.raises(exception.InvalidStateRequested):
        mgr.do_provisioning_action(ctx, node['uuid'], 'abort', None)


# -- the deploy wait periodic task


def _waiting(ctx, until, **values):
    step = wait_a_bit(1)
    return make_node(
        ctx,
        provision_state=states.DEPLOYWAIT,
        target_provision_state=states.ACTIVE,
        power_state=states.POWER_OFF,
        deploy_step=step,
        driver_internal_info={
            deploy_steps.STEPS_KEY: [
                step,
                {
                    'interface': 'deploy',
                    'step': 'deploy',
                    'args': {},
                    'priority': 100,
                },
            ],
            deploy_steps.INDEX_KEY: 0,
            fake.WAIT_UNTIL_KEY: until,
        },
        **values,
    )


def test_the_periodic_task_polls_and_times_out_wait_call_back(ctx, pool):
    """Nodes left waiting (by this conductor or one that died: the
    owner by the hash ring polls them) go on where they stopped."""
    conf = make_conf(
        host=HOST, fake__step_delay=0.0, conductor__deploy_callback_timeout=60
    )
    db_conductors.register(ctx, HOLDER, ['fake-hardware'])
    done = _waiting(ctx, 0, reservation=None)
    running = _waiting(ctx, time.time() + 600)
    late = _waiting(ctx, time.time() + 600)
    old = lite_db.utcnow() - datetime.timedelta(seconds=61)
    db_nodes.node_update(ctx, late['id'], {'provision_updated_at': old})
    periodics.ConductorPeriodics(
        conf, HOLDER, pool, ['fake-hardware']
    ).check_deploy_wait()
    row = wait_state(ctx, done, states.ACTIVE)
    assert steps_run(row) == ['wait_a_bit']
    assert row['power_state'] == states.POWER_ON
    assert no_deploy_info(row)
    assert db_nodes.node_get(ctx, running['id'])['provision_state'] == (
        states.DEPLOYWAIT
    )
    row = db_nodes.node_get(ctx, late['id'])
    assert row['provision_state'] == states.DEPLOYFAIL
    assert 'deploy_callback_timeout' in row['last_error']
    assert fake.WAIT_UNTIL_KEY not in row['driver_internal_info']
