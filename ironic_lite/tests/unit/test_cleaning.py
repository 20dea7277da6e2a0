"""The cleaning flow, called directly on a locked node (real SQLite)."""

import time

import pytest

from ironic_lite import exception
from ironic_lite.common import states
from ironic_lite.conductor import clean_state
from ironic_lite.conductor import clean_wait
from ironic_lite.conductor import cleaning
from ironic_lite.conductor import provisioning
from ironic_lite.conductor import task_manager
from ironic_lite.db import nodes as db_nodes
from ironic_lite.drivers import base
from ironic_lite.drivers import fake
from ironic_lite.tests.unit import make_conf
from ironic_lite.tests.unit import test_task_manager as fixtures
from ironic_lite.tests.unit.test_task_manager import HOLDER
from ironic_lite.tests.unit.test_task_manager import holder  # noqa: F401
from ironic_lite.tests.unit.test_task_manager import make_node
from ironic_lite.tests.unit.test_task_manager import wait_state

WAIT = {
    'interface': 'deploy',
    'step': 'wait_a_bit',
    'args': {'seconds': 0},
    'abortable': True,
    'priority': 0,
}
VERIFY = {
    'interface': 'management',
    'step': 'verify_properties',
    'args': {},
    'abortable': False,
    'priority': 80,
}
FAIL = {
    'interface': 'deploy',
    'step': 'fail_step',
    'args': {'message': 'disk 3 is gone'},
    'abortable': False,
    'priority': 0,
}

# The shared fixtures (configuration, worker pool); the DB file, ``ctx``,
# comes from conftest.py.
conf = fixtures.conf
pool = fixtures.pool


def steps_run(row):
    return row['driver_internal_info'].get('fake_steps_run', [])


def cleaning_node(ctx, target=states.AVAILABLE, **values):
    node = make_node(
        ctx,
        provision_state=states.CLEANING,
        target_provision_state=target,
        **values,
    )
    return node


def lock(ctx, conf, node):
    return task_manager.acquire(ctx, conf, node['id'], HOLDER, 'test')


def test_automated_cleaning_runs_steps_in_order(ctx, conf):
    node = cleaning_node(ctx)
    with lock(ctx, conf, node) as task:
        cleaning.do_node_clean(task)
    row = db_nodes.node_get(ctx, node['id'])
    assert row['provision_state'] == states.AVAILABLE
    assert steps_run(row) == ['erase_devices_metadata', 'verify_properties']
    assert row['clean_step'] == {}
    assert not set(clean_state.CLEANING_KEYS) & set(
        row['driver_internal_info']
    )


@pytest.mark.parametrize('option,node_value', [(False, None), (True, False)])
def test_automated_cleaning_disabled(ctx, option, node_value):
    conf = make_conf(conductor__automated_clean=option)
    node = cleaning_node(ctx, automated_clean=node_value)
    with lock(ctx, conf, node) as task:
        cleaning.do_node_clean(task)
    row = db_nodes.node_get(ctx, node['id'])
    assert row['provision_state'] == states.AVAILABLE
    assert steps_run(row) == []


def test_node_setting_overrides_disabled_option(ctx):
    conf = make_conf(conductor__automated_clean=False)
    node = cleaning_node(ctx, automated_clean=True)
    with lock(ctx, conf, node) as task:
        cleaning.do_node_clean(task)
    assert steps_run(db_nodes.node_get(ctx, node['id'])) == [
        'erase_devices_metadata',
        'verify_properties',
    ]


def test_manual_cleaning_ends_manageable(ctx, conf):
    node = cleaning_node(ctx, target=states.MANAGEABLE)
    with lock(ctx, conf, node) as task:
        cleaning.do_node_clean(task, [VERIFY])
    row = db_nodes.node_get(ctx, node['id'])
    assert row['provision_state'] == states.MANAGEABLE
    assert steps_run(row) == ['verify_properties']


def test_failing_step_fails_cleaning_with_maintenance(ctx, conf):
    node = cleaning_node(
        ctx, target=states.MANAGEABLE, power_state=states.POWER_ON
    )
    with lock(ctx, conf, node) as task:
        cleaning.do_node_clean(task, [VERIFY, FAIL, VERIFY])
    row = db_nodes.node_get(ctx, node['id'])
    assert row['provision_state'] == states.CLEANFAIL
    assert row['target_provision_state'] is None
    assert row['maintenance'] is True
    assert row['fault'] == clean_state.CLEAN_FAILURE
    assert 'deploy.fail_step' in row['last_error']
    assert 'disk 3 is gone' in row['last_error']
    assert steps_run(row) == ['verify_properties']
    assert row['clean_step'] == {}
    assert not set(clean_state.CLEANING_KEYS) & set(
        row['driver_internal_info']
    )
    # Not powered off (as upstream): the operator may want to look.
    assert row['power_state'] == states.POWER_ON
    assert row['reservation'] is None


def test_invalid_properties_fail_before_any_step_runs(ctx, conf):
    node = cleaning_node(ctx, properties={'cpus': 'many'})
    with lock(ctx, conf, node) as task:
        cleaning.do_node_clean(task)
    row = db_nodes.node_get(ctx, node['id'])
    assert row['provision_state'] == states.CLEANFAIL
    assert 'verify_properties' in row['last_error']
    assert "'many'" in row['last_error']


def test_asynchronous_step_waits_then_resumes_by_polling(ctx, conf, pool):
    node = cleaning_node(ctx, target=states.MANAGEABLE)
    with lock(ctx, conf, node) as task:
        cleaning.do_node_clean(
            task, [{**WAIT, 'args': {'seconds': 0.2}}, VERIFY]
        )
    row = db_nodes.node_get(ctx, node['id'])
    assert row['provision_state'] == states.CLEANWAIT
    assert row['target_provision_state'] == states.MANAGEABLE
    assert row['clean_step']['step'] == 'wait_a_bit'
    with lock(ctx, conf, node) as task:
        clean_wait.poll_async_step(task, pool)
    assert db_nodes.node_get(ctx, node['id'])['provision_state'] == (
        states.CLEANWAIT
    )
    time.sleep(0.25)
    with lock(ctx, conf, node) as task:
        clean_wait.poll_async_step(task, pool)
    row = wait_state(ctx, node, states.MANAGEABLE)
    assert steps_run(row) == ['wait_a_bit', 'verify_properties']


def test_callback_continues_with_the_next_step(ctx, conf, pool):
    node = cleaning_node(ctx, target=states.MANAGEABLE)
    with lock(ctx, conf, node) as task:
        cleaning.do_node_clean(
            task, [{**WAIT, 'args': {'seconds': 600}}, VERIFY]
        )
    with lock(ctx, conf, node) as task:
        clean_wait.continue_cleaning(task, pool)
    row = wait_state(ctx, node, states.MANAGEABLE)
    assert steps_run(row) == ['verify_properties']


def test_abort_of_an_abortable_step(ctx, conf, pool):
    node = cleaning_node(ctx, target=states.MANAGEABLE)
    with lock(ctx, conf, node) as task:
        cleaning.do_node_clean(task, [{**WAIT, 'args': {'seconds': 600}}])
    with lock(ctx, conf, node) as task:
        clean_wait.start_abort(task, pool)
    row = wait_state(ctx, node, states.CLEANFAIL)
    assert 'aborted' in row['last_error']
    assert row['maintenance'] is False
    assert 'clean_wait_until' not in row['driver_internal_info']


def test_abort_of_a_step_that_is_not_abortable_waits_for_it(ctx, conf, pool):
    node = cleaning_node(ctx, target=states.MANAGEABLE)
    with lock(ctx, conf, node) as task:
        cleaning.do_node_clean(
            task,
            [{**WAIT, 'abortable': False, 'args': {'seconds': 0}}, VERIFY],
        )
    with lock(ctx, conf, node) as task:
        clean_wait.start_abort(task, pool)
    row = db_nodes.node_get(ctx, node['id'])
    assert row['provision_state'] == states.CLEANWAIT
    assert row['driver_internal_info'][clean_state.ABORT_AFTER_KEY] is True
    with lock(ctx, conf, node) as task:
        clean_wait.poll_async_step(task, pool)
    row = wait_state(ctx, node, states.CLEANFAIL)
    assert 'after clean step deploy.wait_a_bit' in row['last_error']
    assert steps_run(row) == ['wait_a_bit']


def test_timeout_fails_and_aborts_the_step(ctx, conf):
    node = cleaning_node(ctx, target=states.MANAGEABLE)
    with lock(ctx, conf, node) as task:
        cleaning.do_node_clean(task, [{**WAIT, 'args': {'seconds': 600}}])
    with lock(ctx, conf, node) as task:
        clean_wait.fail_on_timeout(task)
    row = db_nodes.node_get(ctx, node['id'])
    assert row['provision_state'] == states.CLEANFAIL
    assert 'Timeout' in row['last_error']
    assert 'clean_callback_timeout' in row['last_error']
    assert 'clean_wait_until' not in row['driver_internal_info']


def test_rerunning_from_a_recorded_index(ctx, conf):
    node = cleaning_node(ctx)
    with lock(ctx, conf, node) as task:
        task.node.driver_internal_info[clean_state.STEPS_KEY] = [
            {
                **VERIFY,
                'step': 'erase_devices_metadata',
                'interface': 'deploy',
            },
            VERIFY,
        ]
        task.save()
        cleaning.do_next_clean_step(task, 1)
    row = db_nodes.node_get(ctx, node['id'])
    assert row['provision_state'] == states.AVAILABLE
    assert steps_run(row) == ['verify_properties']


def test_a_validate_error_fails_cleaning_before_any_step(
    ctx, conf, pool, monkeypatch
):
    def validate(self, task):
        raise exception.InvalidParameterValue(err='no BMC address')

    monkeypatch.setattr(fake.FakePower, 'validate', validate)
    node = cleaning_node(ctx, power_state=states.POWER_ON)
    with lock(ctx, conf, node) as task:
        task.spawn_after(pool, cleaning.do_node_clean)
    row = wait_state(ctx, node, states.CLEANFAIL)
    assert 'no BMC address' in row['last_error']
    assert node['uuid'] in row['last_error']
    # No step ran: no maintenance, no fault.
    assert (row['maintenance'], row['fault']) == (False, None)
    assert steps_run(row) == []
    assert row['power_state'] == states.POWER_ON


def test_progress_is_visible_during_cleaning_and_removed_after(
    ctx, conf, monkeypatch
):
    seen = []
    real_step = fake.FakeDeploy.erase_devices_metadata

    def step(self, task):
        seen.append(db_nodes.node_get(ctx, task.node.id))
        return real_step(self, task)

    monkeypatch.setattr(
        fake.FakeDeploy,
        'erase_devices_metadata',
        base.clean_step(priority=99)(step),
    )
    node = cleaning_node(ctx)
    with lock(ctx, conf, node) as task:
        cleaning.do_node_clean(task)
    [during] = seen
    assert during['provision_state'] == states.CLEANING
    assert during['clean_step']['step'] == 'erase_devices_metadata'
    info = during['driver_internal_info']
    assert info['clean_step_index'] == 0
    assert [s['step'] for s in info['clean_steps']] == [
        'erase_devices_metadata',
        'verify_properties',
    ]
    row = db_nodes.node_get(ctx, node['id'])
    assert row['provision_state'] == states.AVAILABLE
    assert row['clean_step'] == {}
    assert 'clean_step_index' not in row['driver_internal_info']
    assert 'clean_steps' not in row['driver_internal_info']


def test_a_stopping_conductor_leaves_the_node_before_the_next_step(
    ctx, conf, pool
):
    """stop() lets the running step finish; the node stays in cleaning,
    unlocked, at the next step, and is resumed from there."""
    node = cleaning_node(ctx, target=states.MANAGEABLE)
    with lock(ctx, conf, node) as task:
        task.reserve_worker(pool)
        step = VERIFY['step']
        real = fake.FakeManagement.verify_properties

        def stop_during(self, task):
            pool.stop_accepting()
            return real(self, task)

        fake.FakeManagement.verify_properties = base.clean_step(priority=80)(
            stop_during
        )
        try:
            cleaning.do_node_clean(task, [VERIFY, FAIL])
        finally:
            fake.FakeManagement.verify_properties = real
    row = db_nodes.node_get(ctx, node['id'])
    assert (row['provision_state'], row['reservation']) == (
        states.CLEANING,
        None,
    )
    assert row['clean_step'] == {}
    assert row['driver_internal_info']['clean_step_index'] == 1
    assert steps_run(row) == [step]
    assert row['last_error'] is None
    with lock(ctx, conf, node) as task:
        provisioning.resume_node(task)
    row = db_nodes.node_get(ctx, node['id'])
    # The next step (the failing one) ran, the finished one did not.
    assert row['provision_state'] == states.CLEANFAIL
    assert 'deploy.fail_step' in row['last_error']
    assert steps_run(row) == [step]


def test_last_error_names_the_node_once(ctx, conf, pool):
    """Item 9: last_error said "... on node U: Failed to clean node U:
    ..." for a failing step."""
    failing = cleaning_node(ctx, target=states.MANAGEABLE)
    bad_properties = cleaning_node(ctx, properties={'cpus': 0})
    timed_out = cleaning_node(ctx, target=states.MANAGEABLE)
    aborted = cleaning_node(ctx, target=states.MANAGEABLE)
    with lock(ctx, conf, failing) as task:
        cleaning.do_node_clean(task, [FAIL])
    with lock(ctx, conf, bad_properties) as task:
        cleaning.do_node_clean(task)
    for node in (timed_out, aborted):
        with lock(ctx, conf, node) as task:
            cleaning.do_node_clean(task, [{**WAIT, 'args': {'seconds': 600}}])
    with lock(ctx, conf, timed_out) as task:
        clean_wait.fail_on_timeout(task)
    with lock(ctx, conf, aborted) as task:
        clean_wait.start_abort(task, pool)
    wait_state(ctx, aborted, states.CLEANFAIL)
    for node in (failing, bad_properties, timed_out, aborted):
        row = db_nodes.node_get(ctx, node['id'])
        assert row['provision_state'] == states.CLEANFAIL
        assert row['last_error'].count(node['uuid']) == 1, row['last_error']
