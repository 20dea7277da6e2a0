"""The RPC endpoint, called directly (real SQLite, real worker pool).

The RPC round trip itself is covered by
``ironic_lite/tests/functional/test_conductor.py``.
"""

import datetime
import json
import threading
import time
import uuid

from oslo_messaging.rpc import dispatcher
import pytest

from ironic_lite import exception
from ironic_lite.common import states
from ironic_lite.conductor import manager as conductor_manager
from ironic_lite.conductor import periodics
from ironic_lite.db import conductors as db_conductors
from ironic_lite.db import node_locks
from ironic_lite.db import nodes as db_nodes
from ironic_lite.drivers import fake
from ironic_lite.tests.unit import make_conf
from ironic_lite.tests.unit import test_task_manager as fixtures
from ironic_lite.tests.unit.test_task_manager import HOLDER
from ironic_lite.tests.unit.test_task_manager import HOST
from ironic_lite.tests.unit.test_task_manager import another
from ironic_lite.tests.unit.test_task_manager import holder  # noqa: F401
from ironic_lite.tests.unit.test_task_manager import make_node
from ironic_lite.tests.unit.test_task_manager import wait_for
from ironic_lite.tests.unit.test_task_manager import wait_state

ERASE = {'interface': 'deploy', 'step': 'erase_devices'}

# The shared fixtures (configuration, worker pool); the DB file, ``ctx``,
# comes from conftest.py.
conf = fixtures.conf
pool = fixtures.pool


class Unwrapped:
    """The manager as the RPC client sees it: refusals arrive as
    themselves (the RPC server unwraps ``ExpectedException``)."""

    def __init__(self, manager):
        self.manager = manager

    def __getattr__(self, name):
        method = getattr(self.manager, name)

        def call(*args, **kwargs):
            try:
                return method(*args, **kwargs)
            except dispatcher.ExpectedException as exc:
                raise exc.exc_info[1] from None

        return call


@pytest.fixture
def mgr(conf, pool):
    return Unwrapped(conductor_manager.ConductorManager(conf, HOLDER, pool))


def test_refusals_are_expected_exceptions(ctx, conf, pool):
    """The RPC server logs them at debug level, not with a traceback."""
    manager = conductor_manager.ConductorManager(conf, HOLDER, pool)
    with pytest.raises(dispatcher.ExpectedException) as info:
        manager.destroy_node(ctx, str(uuid.uuid4()))
    assert isinstance(info.value.exc_info[1], exception.NodeNotFound)


def state(ctx, node):
    return db_nodes.node_get(ctx, node['id'])['provision_state']


# -- create / update / destroy


def test_create_node_in_enroll(ctx, mgr):
    values = {
        'uuid': str(uuid.uuid4()),
        'driver': 'fake-hardware',
        'name': 'bm-0',
        'properties': {'cpus': 2},
    }
    node = mgr.create_node(ctx, values)
    assert node['provision_state'] == states.ENROLL
    assert node['power_state'] is None
    assert node['reservation'] is None
    json.dumps(node)  # RPC-safe: the timestamps are strings
    assert datetime.datetime.fromisoformat(node['created_at']).tzinfo
    assert db_nodes.node_get(ctx, 'bm-0')['uuid'] == values['uuid']


@pytest.mark.parametrize(
    'values,error',
    [
        ({'driver': 'ipmi'}, exception.HardwareTypeNotEnabled),
        ({'deploy_interface': 'direct'}, exception.InterfaceNotEnabled),
        ({'provision_state': 'active'}, exception.InvalidParameterValue),
        ({'reservation': 'me'}, exception.InvalidParameterValue),
        ({'colour': 'blue'}, exception.InvalidParameterValue),
    ],
)
def test_create_node_refusals(ctx, mgr, values, error):
    with pytest.raises(error) as info:
        mgr.create_node(
            ctx,
            {'uuid': str(uuid.uuid4()), 'driver': 'fake-hardware', **values},
        )
    assert info.value.code == 400
    assert db_nodes.node_list(ctx) == []


def test_create_refuses_duplicate_clean_step_priorities(ctx, pool):
    conf = make_conf(
        conductor__clean_step_priority_override=['deploy.erase_devices:99']
    )
    mgr = Unwrapped(conductor_manager.ConductorManager(conf, HOLDER, pool))
    with pytest.raises(exception.DuplicateCleanStepPriority) as info:
        mgr.create_node(
            ctx, {'uuid': str(uuid.uuid4()), 'driver': 'fake-hardware'}
        )
    assert '"erase_devices"' in str(info.value)
    assert '"erase_devices_metadata"' in str(info.value)
    assert db_nodes.node_list(ctx) == []


def test_update_node(ctx, mgr):
    node = make_node(
        ctx,
        maintenance=True,
        maintenance_reason='clean',
        fault='clean failure',
    )
    updated = mgr.update_node(ctx, node['uuid'], {'name': 'bm-1'})
    assert updated['name'] == 'bm-1'
    assert updated['fault'] == 'clean failure'
    updated = mgr.update_node(ctx, node['uuid'], {'maintenance': False})
    assert (
        updated['maintenance'],
        updated['maintenance_reason'],
        updated['fault'],
    ) == (False, None, None)
    json.dumps(updated)
    assert db_nodes.node_get(ctx, node['id'])['reservation'] is None


def test_update_node_at_a_revision(ctx, mgr):
    """Item 3: values computed from a node read at revision N are stored
    only while the node is still at N; nothing changes otherwise."""
    node = make_node(ctx, extra={'a': 1})
    updated = mgr.update_node(
        ctx,
        node['uuid'],
        {'extra': {'a': 1, 'b': 2}},
        expected_revision=node['revision'],
    )
    assert updated['revision'] == node['revision'] + 1
    with pytest.raises(exception.NodeChanged) as info:
        mgr.update_node(
            ctx,
            node['uuid'],
            {'extra': {'a': 1, 'c': 3}},
            expected_revision=node['revision'],
        )
    assert info.value.code == 409
    row = db_nodes.node_get(ctx, node['id'])
    assert (row['extra'], row['reservation']) == ({'a': 1, 'b': 2}, None)


def test_update_node_refusals(ctx, mgr):
    node = make_node(ctx)
    with pytest.raises(exception.InterfaceNotEnabled):
        mgr.update_node(ctx, node['uuid'], {'power_interface': 'ipmitool'})
    with pytest.raises(exception.InvalidParameterValue):
        mgr.update_node(ctx, node['uuid'], {'uuid': str(uuid.uuid4())})
    waiting = make_node(ctx, provision_state=states.CLEANWAIT)
    with pytest.raises(exception.InvalidState, match='clean wait'):
        mgr.update_node(ctx, waiting['uuid'], {'deploy_interface': 'fake'})
    node_locks.reserve(ctx, another(ctx, 'other'), node['id'])
    with pytest.raises(exception.NodeLocked):
        mgr.update_node(ctx, node['uuid'], {'name': 'x'})
    row = db_nodes.node_get(ctx, node['id'])
    assert row['power_interface'] is None
    assert row['name'] is None


@pytest.mark.parametrize(
    'provision_state', [states.ENROLL, states.MANAGEABLE, states.AVAILABLE]
)
def test_destroy_node_at_rest(ctx, mgr, provision_state):
    node = make_node(ctx, provision_state=provision_state)
    mgr.destroy_node(ctx, node['uuid'])
    with pytest.raises(exception.NodeNotFound):
        db_nodes.node_get(ctx, node['id'])


def test_destroy_node_refusals(ctx, mgr):
    node = make_node(ctx, provision_state=states.CLEANFAIL)
    with pytest.raises(exception.InvalidState) as info:
        mgr.destroy_node(ctx, node['uuid'])
    assert info.value.code == 409
    assert 'maintenance' in str(info.value)
    used = make_node(
        ctx, provision_state=states.AVAILABLE, instance_uuid=str(uuid.uuid4())
    )
    with pytest.raises(exception.NodeAssociated):
        mgr.destroy_node(ctx, used['uuid'])
    # Maintenance allows deleting a node in any state.
    db_nodes.node_update(ctx, node['id'], {'maintenance': True})
    mgr.destroy_node(ctx, node['uuid'])
    with pytest.raises(exception.NodeNotFound):
        mgr.destroy_node(ctx, node['uuid'])
    # A protected node is never deleted, and that is said first (403),
    # as upstream; in maintenance, a node with an instance is deleted.
    guarded = make_node(ctx, provision_state=states.CLEANFAIL, protected=True)
    with pytest.raises(exception.NodeProtected):
        mgr.destroy_node(ctx, guarded['uuid'])
    db_nodes.node_update(ctx, used['id'], {'maintenance': True})
    mgr.destroy_node(ctx, used['uuid'])


# -- power


def test_change_power_state(ctx, mgr):
    node = make_node(
        ctx, provision_state=states.MANAGEABLE, power_state=states.POWER_OFF
    )
    mgr.change_power_state(ctx, node['uuid'], states.POWER_ON)
    row = wait_for(ctx, node, lambda r: r['target_power_state'] is None)
    assert row['power_state'] == states.POWER_ON
    mgr.change_power_state(ctx, node['uuid'], states.REBOOT)
    row = wait_for(ctx, node, lambda r: r['target_power_state'] is None)
    assert row['power_state'] == states.POWER_ON
    assert row['last_error'] is None


@pytest.mark.parametrize(
    'provision_state', [states.CLEANING, states.CLEANWAIT, states.VERIFYING]
)
def test_power_refused_while_the_conductor_drives_the_node(
    ctx, mgr, provision_state
):
    node = make_node(ctx, provision_state=provision_state)
    with pytest.raises(exception.InvalidStateRequested) as info:
        mgr.change_power_state(ctx, node['uuid'], states.POWER_ON)
    assert info.value.code == 400
    row = db_nodes.node_get(ctx, node['id'])
    assert row['target_power_state'] is None
    assert row['reservation'] is None


def test_power_refusals(ctx, mgr):
    node = make_node(ctx)
    with pytest.raises(exception.InvalidParameterValue):
        mgr.change_power_state(ctx, node['uuid'], 'sleep')
    node_locks.reserve(ctx, another(ctx, 'other'), node['id'])
    with pytest.raises(exception.NodeLocked):
        mgr.change_power_state(ctx, node['uuid'], states.POWER_ON)


def test_a_soft_target_the_power_interface_lacks_is_refused(
    ctx, mgr, monkeypatch
):
    monkeypatch.setattr(
        fake.FakePower,
        'get_supported_power_states',
        lambda self, task: [states.POWER_ON, states.POWER_OFF],
    )
    node = make_node(ctx)
    with pytest.raises(
        exception.InvalidParameterValue,
        match='does not support the power state',
    ):
        mgr.change_power_state(ctx, node['uuid'], states.SOFT_POWER_OFF)
    assert db_nodes.node_get(ctx, node['id'])['target_power_state'] is None


# -- provisioning actions


def test_manage_verifies_the_node(ctx, mgr):
    node = make_node(ctx)
    mgr.do_provisioning_action(ctx, node['uuid'], 'manage', None)
    row = wait_state(ctx, node, states.MANAGEABLE)
    assert row['power_state'] == states.POWER_OFF


def test_adopt_makes_a_manageable_node_active(ctx, mgr):
    node = make_node(
        ctx, provision_state=states.MANAGEABLE, instance_uuid=str(uuid.uuid4())
    )
    mgr.do_provisioning_action(ctx, node['uuid'], 'adopt', None)
    row = wait_state(ctx, node, states.ACTIVE)
    assert row['last_error'] is None
    # Nothing ran on the machine: no clean step, no deployment.
    assert 'fake_steps_run' not in row['driver_internal_info']


def test_a_failed_adoption_may_be_retried_or_deleted(ctx, mgr, monkeypatch):
    def refuse(self, task):
        raise exception.InvalidParameterValue(err='no image here')

    monkeypatch.setattr(fake.FakeDeploy, 'take_over', refuse)
    node = make_node(ctx, provision_state=states.MANAGEABLE)
    mgr.do_provisioning_action(ctx, node['uuid'], 'adopt', None)
    row = wait_state(ctx, node, states.ADOPTFAIL)
    assert row['last_error'] == (
        f'Error while attempting to adopt node {node["uuid"]}: no image here.'
    )
    monkeypatch.undo()
    mgr.do_provisioning_action(ctx, node['uuid'], 'adopt', None)
    wait_state(ctx, node, states.ACTIVE)
    other = make_node(ctx, provision_state=states.ADOPTFAIL)
    mgr.destroy_node(ctx, other['uuid'])


def test_provide_and_manage_again(ctx, mgr):
    node = make_node(ctx, provision_state=states.MANAGEABLE)
    mgr.do_provisioning_action(ctx, node['uuid'], 'provide', None)
    row = wait_state(ctx, node, states.AVAILABLE)
    assert row['driver_internal_info']['fake_steps_run'] == [
        'erase_devices_metadata',
        'verify_properties',
    ]
    mgr.do_provisioning_action(ctx, node['uuid'], 'manage', None)
    assert state(ctx, node) == states.MANAGEABLE


def test_manual_clean(ctx, mgr):
    node = make_node(ctx, provision_state=states.MANAGEABLE)
    mgr.do_provisioning_action(
        ctx, node['uuid'], 'clean', [{**ERASE, 'args': {'passes': 2}}]
    )
    row = wait_state(ctx, node, states.MANAGEABLE)
    assert row['driver_internal_info']['fake_steps_run'] == ['erase_devices']


@pytest.mark.parametrize(
    'steps,match',
    [
        (None, 'clean_steps'),
        ([], 'clean_steps'),
        ([{'interface': 'deploy', 'step': 'nope'}], 'nope'),
        ([{**ERASE, 'args': {'colour': 1}}], 'colour'),
    ],
)
def test_manual_clean_refusals_change_nothing(ctx, mgr, steps, match):
    node = make_node(ctx, provision_state=states.MANAGEABLE)
    with pytest.raises(exception.InvalidParameterValue, match=match):
        mgr.do_provisioning_action(ctx, node['uuid'], 'clean', steps)
    row = db_nodes.node_get(ctx, node['id'])
    assert row['provision_state'] == states.MANAGEABLE
    assert row['reservation'] is None


@pytest.mark.parametrize(
    'provision_state,action',
    [
        (states.ENROLL, 'provide'),
        (states.AVAILABLE, 'clean'),
        (states.MANAGEABLE, 'deploy'),
        (states.MANAGEABLE, 'abort'),
        (states.ACTIVE, 'manage'),
    ],
)
def test_actions_refused_in_the_wrong_state(ctx, mgr, provision_state, action):
    node = make_node(ctx, provision_state=provision_state)
    with pytest.raises(exception.InvalidStateRequested) as info:
        mgr.do_provisioning_action(ctx, node['uuid'], action, [ERASE])
    assert info.value.code == 400
    assert state(ctx, node) == provision_state


def test_unknown_action(ctx, mgr):
    node = make_node(ctx)
    with pytest.raises(exception.InvalidParameterValue, match='explode'):
        mgr.do_provisioning_action(ctx, node['uuid'], 'explode', None)


@pytest.mark.parametrize(
    'provision_state,action',
    [
        (states.MANAGEABLE, 'provide'),
        (states.MANAGEABLE, 'clean'),
        (states.AVAILABLE, 'deploy'),
    ],
)
def test_maintenance_refuses(ctx, mgr, provision_state, action):
    node = make_node(ctx, provision_state=provision_state, maintenance=True)
    with pytest.raises(exception.NodeInMaintenance) as info:
        mgr.do_provisioning_action(ctx, node['uuid'], action, [ERASE])
    assert info.value.code == 400
    assert state(ctx, node) == provision_state


def test_maintenance_allows_manage(ctx, mgr):
    node = make_node(ctx, provision_state=states.CLEANFAIL, maintenance=True)
    mgr.do_provisioning_action(ctx, node['uuid'], 'manage', None)
    assert state(ctx, node) == states.MANAGEABLE


def test_deploy_and_undeploy(ctx, mgr):
    node = make_node(
        ctx,
        provision_state=states.AVAILABLE,
        instance_uuid=str(uuid.uuid4()),
        instance_info={'image_source': 'x'},
    )
    mgr.do_provisioning_action(ctx, node['uuid'], 'active', None)
    row = wait_state(ctx, node, states.ACTIVE)
    assert row['power_state'] == states.POWER_ON
    mgr.do_provisioning_action(ctx, node['uuid'], 'deleted', None)
    row = wait_state(ctx, node, states.AVAILABLE)
    assert row['power_state'] == states.POWER_OFF
    assert row['instance_uuid'] is None
    assert row['instance_info'] == {}
    assert row['driver_internal_info']['fake_steps_run'] == [
        'erase_devices_metadata',
        'verify_properties',
    ]


def test_full_pool_refuses_with_nothing_changed(ctx, mgr, pool):
    node = make_node(ctx, provision_state=states.MANAGEABLE)
    slots = [pool.reserve() for _ in range(3)]
    with pytest.raises(exception.NoFreeConductorWorker):
        mgr.do_provisioning_action(ctx, node['uuid'], 'provide', None)
    with pytest.raises(exception.NoFreeConductorWorker):
        mgr.change_power_state(ctx, node['uuid'], states.POWER_ON)
    row = db_nodes.node_get(ctx, node['id'])
    assert row['provision_state'] == states.MANAGEABLE
    assert row['target_power_state'] is None
    assert row['reservation'] is None
    for slot in slots:
        slot.cancel()


# -- cleaning helpers


def test_get_clean_steps(ctx):
    conf = make_conf(
        conductor__clean_step_priority_override=['deploy.erase_devices:10']
    )
    mgr = Unwrapped(conductor_manager.ConductorManager(conf, HOLDER, None))
    node = make_node(ctx)
    node_locks.reserve(ctx, another(ctx, 'other'), node['id'])  # shared
    result = mgr.get_clean_steps(ctx, node['uuid'])
    assert [s['step'] for s in result['automated']] == [
        'erase_devices_metadata',
        'verify_properties',
        'erase_devices',
    ]
    assert result['automated'][-1]['priority'] == 10  # the override
    # Manual-only steps: erase_devices left them with its override.
    manual = {s['step']: s for s in result['manual']}
    assert sorted(manual) == [
        'apply_configuration',
        'cache_bios_settings',
        'factory_reset',
        'fail_step',
        'one_shot_work',
        'repeatable_work',
        'update',
        'wait_a_bit',
        'wait_for_gate',
    ]
    assert {s['interface'] for s in result['manual']} == {
        'deploy',
        'bios',
        'firmware',
    }
    assert manual['wait_a_bit']['abortable'] is True
    assert manual['fail_step']['priority'] == 0


def test_continue_node_clean(ctx, mgr):
    node = make_node(ctx, provision_state=states.MANAGEABLE)
    # Wrong state: logged, not raised (a cast has nobody to answer).
    mgr.continue_node_clean(ctx, node['uuid'])
    mgr.continue_node_clean(ctx, str(uuid.uuid4()))
    mgr.do_provisioning_action(
        ctx,
        node['uuid'],
        'clean',
        [
            {
                'interface': 'deploy',
                'step': 'wait_a_bit',
                'args': {'seconds': 600},
            },
            {'interface': 'management', 'step': 'verify_properties'},
        ],
    )
    wait_state(ctx, node, states.CLEANWAIT)
    mgr.continue_node_clean(ctx, node['uuid'])
    row = wait_state(ctx, node, states.MANAGEABLE)
    assert row['driver_internal_info']['fake_steps_run'] == [
        'verify_properties'
    ]


def test_abort(ctx, mgr):
    node = make_node(ctx, provision_state=states.MANAGEABLE)
    mgr.do_provisioning_action(
        ctx,
        node['uuid'],
        'clean',
        [
            {
                'interface': 'deploy',
                'step': 'wait_a_bit',
                'args': {'seconds': 600},
            }
        ],
    )
    wait_state(ctx, node, states.CLEANWAIT)
    mgr.do_provisioning_action(ctx, node['uuid'], 'abort', None)
    row = wait_state(ctx, node, states.CLEANFAIL)
    assert 'aborted' in row['last_error']


def test_node_to_dict():
    when = datetime.datetime(2026, 1, 2, 3, 4, 5, 6)
    assert conductor_manager.node_to_dict({'a': when, 'b': 1}) == {
        'a': '2026-01-02T03:04:05.000006+00:00',
        'b': 1,
    }


# -- races


def test_callback_waits_for_a_lock_held_for_a_moment(ctx, mgr, conf, pool):
    """The periodic poll (or an API update) holds the node when the
    callback arrives: the callback waits instead of being lost."""
    node = make_node(ctx, provision_state=states.MANAGEABLE)
    mgr.do_provisioning_action(
        ctx,
        node['uuid'],
        'clean',
        [
            {
                'interface': 'deploy',
                'step': 'wait_a_bit',
                'args': {'seconds': 600},
            },
            {'interface': 'management', 'step': 'verify_properties'},
        ],
    )
    wait_state(ctx, node, states.CLEANWAIT)
    # Held under another name: a reservation of this conductor's own
    # name with no task of its own behind it is a stale one, taken over.
    api = another(ctx, 'api-call')
    node_locks.reserve(ctx, api, node['id'])
    released = []

    def release():
        node_locks.release(ctx, api, node['id'])
        released.append(True)

    timer = threading.Timer(0.3, release)
    timer.start()
    mgr.continue_node_clean(ctx, node['uuid'])
    timer.join()
    assert released == [True]
    row = wait_state(ctx, node, states.MANAGEABLE)
    assert row['driver_internal_info']['fake_steps_run'] == [
        'verify_properties'
    ]


def test_callback_gives_up_on_a_lock_held_too_long(ctx, conf, pool, caplog):
    manager = conductor_manager.ConductorManager(conf, HOLDER, pool)
    manager.callback_patience = 0.2
    node = make_node(
        ctx,
        provision_state=states.CLEANWAIT,
        target_provision_state=states.MANAGEABLE,
        reservation='api-call',
    )
    manager.continue_node_clean(ctx, node['uuid'])
    assert f'Cannot continue cleaning node {node["uuid"]}' in caplog.text
    assert 'api-call' in caplog.text
    assert state(ctx, node) == states.CLEANWAIT


@pytest.fixture
def gated(ctx, pool, tmp_path):
    """A manager whose fake steps may wait for gates in ``tmp_path``."""
    conf = make_conf(host=HOST, fake__gate_dir=str(tmp_path))
    return Unwrapped(conductor_manager.ConductorManager(conf, HOLDER, pool))


def gate(name):
    return {
        'interface': 'deploy',
        'step': 'wait_for_gate',
        'args': {'gate': name, 'timeout': 30},
    }


def wait_running(ctx, node, step):
    deadline = time.monotonic() + 10
    while True:
        row = db_nodes.node_get(ctx, node['id'])
        if row['clean_step'].get('step') == step:
            return row
        assert time.monotonic() < deadline, row
        time.sleep(0.02)


def test_abort_stops_an_abortable_running_step(ctx, gated, tmp_path):
    """Item 7: a synchronous manual clean can be stopped. The worker
    holds the lock, so the abort is a request it picks up at the next
    checkpoint of an abortable step; other actions are still refused
    (409) and ``manage`` has no transition from cleaning at all."""
    node = make_node(ctx, provision_state=states.MANAGEABLE)
    gated.do_provisioning_action(
        ctx, node['uuid'], 'clean', [ERASE, gate('g1'), ERASE]
    )
    wait_running(ctx, node, 'wait_for_gate')
    for action in ('manage', 'clean'):
        with pytest.raises(exception.NodeLocked) as info:
            gated.do_provisioning_action(ctx, node['uuid'], action, [ERASE])
        assert f'locked by host {HOST}' in str(info.value)
    gated.do_provisioning_action(ctx, node['uuid'], 'abort')
    row = wait_state(ctx, node, states.CLEANFAIL)
    assert (
        'aborted by request during clean step deploy.wait_for_gate'
        in (row['last_error'])
    )
    assert row['maintenance'] is False
    assert row['driver_internal_info']['fake_steps_run'] == ['erase_devices']
    assert not {'clean_steps', 'clean_step_index', 'abort_after_step'} & (
        set(row['driver_internal_info'])
    )


def test_abort_waits_for_a_step_that_is_not_abortable(ctx, gated):
    """The running step finishes; the next one never starts."""
    node = make_node(ctx, provision_state=states.MANAGEABLE)
    once = {
        'interface': 'deploy',
        'step': 'one_shot_work',
        'args': {'seconds': 1},
    }
    gated.do_provisioning_action(
        ctx, node['uuid'], 'clean', [ERASE, once, ERASE]
    )
    wait_running(ctx, node, 'one_shot_work')
    gated.do_provisioning_action(ctx, node['uuid'], 'abort')
    row = wait_state(ctx, node, states.CLEANFAIL)
    assert row['driver_internal_info']['fake_steps_run'] == [
        'erase_devices',
        'one_shot_work',
    ]
    assert 'before clean step deploy.erase_devices' in row['last_error']
    assert row['maintenance'] is False


def test_manage_is_refused_on_an_unlocked_cleaning_node(ctx, mgr):
    """Item 6: a node left in cleaning between steps (its conductor
    stopped) is not made manageable by the API verb ``manage`` (an
    internal transition); abort is how an operator stops it."""
    steps = [
        {
            **ERASE,
            'args': {},
            'abortable': False,
            'idempotent': True,
            'priority': 0,
        }
    ] * 2
    node = make_node(
        ctx,
        provision_state=states.CLEANING,
        target_provision_state=states.MANAGEABLE,
        driver_internal_info={'clean_steps': steps, 'clean_step_index': 1},
    )
    with pytest.raises(exception.InvalidStateRequested) as info:
        mgr.do_provisioning_action(ctx, node['uuid'], 'manage')
    assert info.value.code == 400
    row = db_nodes.node_get(ctx, node['id'])
    assert (row['provision_state'], row['reservation']) == (
        states.CLEANING,
        None,
    )
    mgr.do_provisioning_action(ctx, node['uuid'], 'abort')
    row = wait_state(ctx, node, states.CLEANFAIL)
    assert 'between two clean steps' in row['last_error']
    assert not {'clean_steps', 'clean_step_index'} & set(
        row['driver_internal_info']
    )
    mgr.do_provisioning_action(ctx, node['uuid'], 'manage')
    row = db_nodes.node_get(ctx, node['id'])
    assert row['provision_state'] == states.MANAGEABLE
    assert row['clean_step'] == {}


def test_full_pool_refuses_clean_and_abort_with_nothing_changed(
    ctx, mgr, pool
):
    node = make_node(ctx, provision_state=states.MANAGEABLE)
    waiting = make_node(
        ctx,
        provision_state=states.CLEANWAIT,
        target_provision_state=states.MANAGEABLE,
        clean_step={
            'interface': 'deploy',
            'step': 'wait_a_bit',
            'abortable': True,
            'args': {},
            'priority': 0,
        },
    )

    def rows():
        # updated_at moves with the lock taken and given back.
        return [
            {**db_nodes.node_get(ctx, n['id']), 'updated_at': None}
            for n in (node, waiting)
        ]

    before = rows()
    slots = [pool.reserve() for _ in range(3)]
    try:
        with pytest.raises(exception.NoFreeConductorWorker) as info:
            mgr.do_provisioning_action(ctx, node['uuid'], 'clean', [ERASE])
        assert info.value.code == 503
        with pytest.raises(exception.NoFreeConductorWorker):
            mgr.do_provisioning_action(ctx, waiting['uuid'], 'abort', None)
    finally:
        for slot in slots:
            slot.cancel()
    assert rows() == before


def test_callback_with_no_free_worker_is_not_lost(ctx, conf, mgr, pool):
    node = make_node(ctx, provision_state=states.MANAGEABLE)
    mgr.do_provisioning_action(
        ctx,
        node['uuid'],
        'clean',
        [
            {
                'interface': 'deploy',
                'step': 'wait_a_bit',
                'args': {'seconds': 600},
            },
            {'interface': 'management', 'step': 'verify_properties'},
        ],
    )
    # In clean wait with the worker gone (lock and worker slot free).
    wait_for(
        ctx,
        node,
        lambda r: (
            r['provision_state'] == states.CLEANWAIT
            and r['reservation'] is None
        ),
    )
    slots = []
    deadline = time.monotonic() + 5
    while len(slots) < 3:
        try:
            slots.append(pool.reserve())
        except exception.NoFreeConductorWorker:
            assert time.monotonic() < deadline, 'the worker never returned'
            time.sleep(0.01)
    mgr.continue_node_clean(ctx, node['uuid'])
    row = db_nodes.node_get(ctx, node['id'])
    assert row['provision_state'] == states.CLEANWAIT
    assert row['driver_internal_info']['clean_callback_received'] is True
    for slot in slots:
        slot.cancel()
    db_conductors.register(ctx, HOLDER, ['fake-hardware'])
    # The step would run for 600 s more: only the callback ends it.
    periodics.ConductorPeriodics(
        conf, HOLDER, pool, ['fake-hardware']
    ).check_clean_wait()
    row = wait_state(ctx, node, states.MANAGEABLE)
    assert row['driver_internal_info']['fake_steps_run'] == [
        'verify_properties'
    ]
    assert 'clean_callback_received' not in row['driver_internal_info']
