"""Servicing (API 1.87) through the RPC endpoint and the flow, on real
SQLite with the real worker pool and the fake-hardware interfaces."""

import datetime
import time
import uuid

import pytest

from ironic_lite import exception
from ironic_lite.common import states
from ironic_lite.conductor import manager as conductor_manager
from ironic_lite.conductor import periodics
from ironic_lite.conductor import provisioning
from ironic_lite.conductor import servicing
from ironic_lite.db import conductors as db_conductors
from ironic_lite.db import node_history as db_history
from ironic_lite.db import nodes as db_nodes
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

WORK = {
    'interface': 'deploy',
    'step': 'repeatable_work',
    'args': {'seconds': 0},
}
ONE_SHOT = {
    'interface': 'deploy',
    'step': 'one_shot_work',
    'args': {'seconds': 0},
}
FAIL = {
    'interface': 'deploy',
    'step': 'fail_step',
    'args': {'message': 'BMC said no'},
}
WAIT_A_BIT = {
    'interface': 'deploy',
    'step': 'wait_a_bit',
    'args': {'seconds': 600},
}
HOLD = {'interface': 'deploy', 'step': 'hold'}
POWER_OFF = {'interface': 'power', 'step': 'power_off'}
REBOOT = {'interface': 'power', 'step': 'reboot'}


@pytest.fixture
def mgr(conf, pool):
    return Unwrapped(conductor_manager.ConductorManager(conf, HOLDER, pool))


def active_node(ctx, **values):
    return make_node(
        ctx,
        **{
            'provision_state': states.ACTIVE,
            'power_state': states.POWER_ON,
            'instance_uuid': str(uuid.uuid4()),
            **values,
        },
    )


def service(ctx, mgr, node, steps, **kwargs):
    mgr.do_provisioning_action(
        ctx, node['uuid'], 'service', None, service_steps=steps, **kwargs
    )


def test_steps_run_in_order_and_the_node_is_active_again(ctx, mgr):
    node = active_node(ctx)
    service(ctx, mgr, node, [WORK, ONE_SHOT, POWER_OFF])
    row = wait_state(ctx, node, states.ACTIVE)
    assert steps_run(row) == ['repeatable_work', 'one_shot_work']
    assert row['power_state'] == states.POWER_OFF
    assert row['service_step'] == {}
    assert row['target_provision_state'] is None
    assert row['last_error'] is None
    # The instance stays; nothing of the servicing remains.
    assert row['instance_uuid'] == node['instance_uuid']
    assert not set(servicing.SERVICING_KEYS) & set(row['driver_internal_info'])
    events = [e['event_type'] for e in db_history.list_page(ctx, node['id'])]
    assert events == ['servicing_start', 'servicing_end']


def test_a_reserved_power_step_needs_no_interface_of_its_own(ctx, mgr):
    node = active_node(ctx)
    service(
        ctx, mgr, node, [{'interface': 'deploy', 'step': 'power_off'}, REBOOT]
    )
    row = wait_state(ctx, node, states.ACTIVE)
    assert row['power_state'] == states.POWER_ON


@pytest.mark.parametrize(
    'steps,message',
    [
        (
            [{'interface': 'deploy', 'step': 'no_such_step'}],
            'no service step "no_such_step" on its deploy interface',
        ),
        # A clean step that is not a service step.
        (
            [{'interface': 'deploy', 'step': 'erase_devices'}],
            'no service step "erase_devices"',
        ),
        ([{**WORK, 'args': {'seconds': -1}}], 'invalid value of argument'),
        ([{**WORK, 'args': {'colour': 'red'}}], 'does not accept'),
        ([{'interface': 'deploy', 'step': 'wait'}], 'needs the argument'),
        (
            [
                {
                    'interface': 'deploy',
                    'step': 'wait',
                    'args': {'seconds': 'x'},
                }
            ],
            'invalid value',
        ),
        (
            [{'interface': 'power', 'step': 'reboot', 'args': {'hard': True}}],
            'does not accept',
        ),
    ],
)
def test_bad_steps_are_refused_and_the_node_is_unchanged(
    ctx, mgr, steps, message
):
    node = active_node(ctx)
    with pytest.raises(exception.InvalidParameterValue, match=message):
        service(ctx, mgr, node, steps)
    row = db_nodes.node_get(ctx, node['id'])
    assert (row['provision_state'], row['reservation']) == (
        states.ACTIVE,
        None,
    )
    assert row['driver_internal_info'] == node['driver_internal_info']


def test_disable_ramdisk_refuses_a_step_that_needs_one(ctx, mgr):
    node = active_node(ctx)
    step = {'interface': 'vendor', 'step': 'trigger_servicewait'}
    with pytest.raises(
        exception.InvalidParameterValue, match='requires booting a ramdisk'
    ):
        service(ctx, mgr, node, [step], disable_ramdisk=True)
    service(ctx, mgr, node, [WORK], disable_ramdisk=True)
    wait_state(ctx, node, states.ACTIVE)


@pytest.mark.parametrize(
    'state',
    [states.AVAILABLE, states.MANAGEABLE, states.DEPLOYFAIL, states.RESCUE],
)
def test_only_an_active_node_is_serviced(ctx, mgr, state):
    node = make_node(ctx, provision_state=state)
    with pytest.raises(exception.InvalidStateRequested):
        service(ctx, mgr, node, [WORK])


def test_maintenance_refuses_servicing(ctx, mgr):
    node = active_node(ctx, maintenance=True)
    with pytest.raises(exception.NodeInMaintenance):
        service(ctx, mgr, node, [WORK])


def test_a_failing_step_fails_with_maintenance_and_abort_returns(ctx, mgr):
    node = active_node(ctx)
    service(ctx, mgr, node, [WORK, FAIL, ONE_SHOT])
    row = wait_state(ctx, node, states.SERVICEFAIL)
    assert 'deploy.fail_step' in row['last_error']
    assert 'BMC said no' in row['last_error']
    assert (row['maintenance'], row['fault']) == (
        True,
        servicing.SERVICE_FAILURE,
    )
    assert steps_run(row) == ['repeatable_work']
    assert row['service_step'] == {}
    # abort from service failed: active again, the message kept.
    mgr.do_provisioning_action(ctx, node['uuid'], 'abort', None)
    row = wait_state(ctx, node, states.ACTIVE)
    assert 'service operation was aborted' in row['last_error']
    # service again from service failed works too (after maintenance).
    db_nodes.node_update(
        ctx,
        node['id'],
        {'provision_state': states.SERVICEFAIL, 'maintenance': False},
    )
    service(ctx, mgr, node, [ONE_SHOT])
    row = wait_state(ctx, node, states.ACTIVE)
    assert steps_run(row) == ['repeatable_work', 'one_shot_work']


def test_hold_then_unhold_goes_on_with_the_next_step(ctx, mgr):
    node = active_node(ctx)
    service(ctx, mgr, node, [WORK, HOLD, ONE_SHOT])
    row = wait_state(ctx, node, states.SERVICEHOLD)
    assert row['target_provision_state'] == states.ACTIVE
    assert row['service_step']['step'] == 'hold'
    assert steps_run(row) == ['repeatable_work']
    mgr.do_provisioning_action(ctx, node['uuid'], 'unhold', None)
    row = wait_state(ctx, node, states.ACTIVE)
    assert steps_run(row) == ['repeatable_work', 'one_shot_work']


def test_abort_in_service_hold_returns_to_active(ctx, mgr):
    node = active_node(ctx)
    service(ctx, mgr, node, [HOLD, ONE_SHOT])
    wait_state(ctx, node, states.SERVICEHOLD)
    mgr.do_provisioning_action(ctx, node['uuid'], 'abort', None)
    row = wait_state(ctx, node, states.ACTIVE)
    assert row['last_error'] == (
        'By request, the service operation was aborted during or after '
        'the completion of step "deploy.hold"'
    )
    assert steps_run(row) == []
    assert not set(servicing.SERVICING_KEYS) & set(row['driver_internal_info'])


def test_an_asynchronous_step_is_polled_then_servicing_goes_on(
    ctx, mgr, conf, pool
):
    node = active_node(ctx)
    service(ctx, mgr, node, [{**WAIT_A_BIT, 'args': {'seconds': 0.2}}, WORK])
    row = wait_state(ctx, node, states.SERVICEWAIT)
    assert row['service_step']['step'] == 'wait_a_bit'
    time.sleep(0.25)
    with lock(ctx, conf, node) as task:
        servicing.poll_async_step(task, pool)
    row = wait_state(ctx, node, states.ACTIVE)
    assert steps_run(row) == ['wait_a_bit', 'repeatable_work']


def test_the_reserved_wait_waits_without_a_worker(ctx, mgr, conf, pool):
    node = active_node(ctx)
    service(
        ctx,
        mgr,
        node,
        [
            {'interface': 'deploy', 'step': 'wait', 'args': {'seconds': 1}},
            WORK,
        ],
    )
    row = wait_state(ctx, node, states.SERVICEWAIT)
    assert row['reservation'] is None
    with lock(ctx, conf, node) as task:
        assert not servicing.step_finished(task)
    time.sleep(1.05)
    with lock(ctx, conf, node) as task:
        servicing.poll_async_step(task, pool)
    row = wait_state(ctx, node, states.ACTIVE)
    assert steps_run(row) == ['repeatable_work']


def test_a_wait_longer_than_the_maximum_is_cut(ctx, pool):
    conf = make_conf(
        host=HOST,
        fake__step_delay=0.0,
        conductor__max_conductor_wait_step_seconds=0,
    )
    mgr = Unwrapped(conductor_manager.ConductorManager(conf, HOLDER, pool))
    node = active_node(ctx)
    service(
        ctx,
        mgr,
        node,
        [{'interface': 'deploy', 'step': 'wait', 'args': {'seconds': 3600}}],
    )
    wait_state(ctx, node, states.SERVICEWAIT)
    with lock(ctx, conf, node) as task:
        servicing.poll_async_step(task, pool)
    wait_state(ctx, node, states.ACTIVE)
    events = [e['event'] for e in db_history.list_page(ctx, node['id'])]
    assert any('Holding for 0, got 3600' in e for e in events), events


def test_abort_of_an_abortable_step_in_service_wait(ctx, mgr):
    node = active_node(ctx)
    service(ctx, mgr, node, [WAIT_A_BIT, WORK])
    wait_state(ctx, node, states.SERVICEWAIT)
    mgr.do_provisioning_action(ctx, node['uuid'], 'abort', None)
    row = wait_state(ctx, node, states.ACTIVE)
    assert 'deploy.wait_a_bit' in row['last_error']
    assert 'fake_wait_until' not in str(row['driver_internal_info'])
    assert steps_run(row) == []


def test_abort_waits_for_a_step_that_is_not_abortable(ctx, mgr, conf, pool):
    node = active_node(ctx)
    step = {'interface': 'vendor', 'step': 'trigger_servicewait'}
    service(ctx, mgr, node, [step, WORK])
    wait_state(ctx, node, states.SERVICEWAIT)
    mgr.do_provisioning_action(ctx, node['uuid'], 'abort', None)
    row = db_nodes.node_get(ctx, node['id'])
    assert row['provision_state'] == states.SERVICEWAIT
    assert row['driver_internal_info'][servicing.ABORT_AFTER_KEY] is True
    # The step never ends by itself: the callback timeout fails it.
    with lock(ctx, conf, node) as task:
        servicing.fail_on_timeout(task)
    row = db_nodes.node_get(ctx, node['id'])
    assert row['provision_state'] == states.SERVICEFAIL
    assert 'service_callback_timeout' in row['last_error']
    assert steps_run(row) == []


def test_undeploy_from_service_wait_forgets_the_servicing(ctx, mgr):
    node = active_node(ctx)
    service(ctx, mgr, node, [WAIT_A_BIT])
    wait_state(ctx, node, states.SERVICEWAIT)
    mgr.do_provisioning_action(ctx, node['uuid'], 'deleted', None)
    row = wait_state(ctx, node, states.AVAILABLE)
    assert row['service_step'] == {}
    assert not set(servicing.SERVICING_KEYS) & set(row['driver_internal_info'])


def test_takeover_between_steps_goes_on_and_never_reruns_a_step(ctx, conf):
    """A node left in servicing between two steps resumes at the next
    one; one left during a step fails (it is not run twice)."""
    between = active_node(ctx)
    during = active_node(ctx)
    steps = [
        {**ONE_SHOT, 'abortable': False, 'priority': 0},
        {**WORK, 'abortable': False, 'priority': 0},
    ]
    for node, step in ((between, {}), (during, steps[0])):
        db_nodes.node_update(
            ctx,
            node['id'],
            {
                'provision_state': states.SERVICING,
                'target_provision_state': states.ACTIVE,
                'service_step': step,
                'driver_internal_info': {
                    servicing.STEPS_KEY: steps,
                    servicing.INDEX_KEY: 1 if not step else 0,
                },
            },
        )
    for node in (between, during):
        with lock(ctx, conf, node) as task:
            provisioning.resume_node(task)
    row = db_nodes.node_get(ctx, between['id'])
    assert row['provision_state'] == states.ACTIVE
    assert steps_run(row) == ['repeatable_work']
    row = db_nodes.node_get(ctx, during['id'])
    assert row['provision_state'] == states.SERVICEFAIL
    assert 'not run a second time' in row['last_error']
    assert row['maintenance'] is True
    assert steps_run(row) == []


# -- the service wait periodic task


def _waiting(ctx, until, **values):
    step = {**WAIT_A_BIT, 'abortable': True, 'priority': 0}
    return active_node(
        ctx,
        provision_state=states.SERVICEWAIT,
        target_provision_state=states.ACTIVE,
        service_step=step,
        driver_internal_info={
            servicing.STEPS_KEY: [
                step,
                {**WORK, 'abortable': False, 'priority': 0},
            ],
            servicing.INDEX_KEY: 0,
            'clean_wait_until': until,
        },
        **values,
    )


def test_the_periodic_task_polls_and_times_out_service_wait(ctx, pool):
    conf = make_conf(
        host=HOST, fake__step_delay=0.0, conductor__service_callback_timeout=60
    )
    db_conductors.register(ctx, HOLDER, ['fake-hardware'])
    done = _waiting(ctx, 0)
    running = _waiting(ctx, time.time() + 600)
    late = _waiting(ctx, time.time() + 600)
    old = lite_db.utcnow() - datetime.timedelta(seconds=61)
    db_nodes.node_update(ctx, late['id'], {'provision_updated_at': old})
    periodics.ConductorPeriodics(
        conf, HOLDER, pool, ['fake-hardware']
    ).check_service_wait()
    row = wait_state(ctx, done, states.ACTIVE)
    assert steps_run(row) == ['wait_a_bit', 'repeatable_work']
    assert db_nodes.node_get(ctx, running['id'])['provision_state'] == (
        states.SERVICEWAIT
    )
    row = db_nodes.node_get(ctx, late['id'])
    assert row['provision_state'] == states.SERVICEFAIL
    assert 'service_callback_timeout' in row['last_error']
