"""The conductor service end to end, in one process.

A real SQLite file, the in-process RPC bus (``inproc://``), the real
:func:`ironic_lite.service.conductor_service` and the real RPC client
(:class:`ironic_lite.conductor.rpcapi.ConductorAPI`); the fake hardware
type with tiny delays. Nothing of ironic_lite is mocked: a dead
conductor is played by stopping one without unregistering it and
ageing its heartbeat.
"""

import datetime
import time
import uuid

from oslo_config import cfg
import pytest
import sqlalchemy as sa

from ironic_lite import exception
from ironic_lite import service
from ironic_lite.common import hash_ring
from ironic_lite.common import states
from ironic_lite.conductor import rpcapi
from ironic_lite.conductor import steps as conductor_steps
from ironic_lite.conductor import task_manager
from ironic_lite.db import api as db_api
from ironic_lite.db import conductors as db_conductors
from ironic_lite.db import models
from ironic_lite.db import nodes as db_nodes
from ironic_lite.tests import db_fixture
from ironic_lite.tests.unit import FakeTask
from ironic_lite.tests.unit import make_conf
from lite_common import context as lite_context
from lite_common import db as lite_db
from lite_common import rpc

ERASE = {'interface': 'deploy', 'step': 'erase_devices', 'args': {'passes': 1}}
VERIFY = {'interface': 'management', 'step': 'verify_properties'}
AUTOMATED_RUN = ['erase_devices_metadata', 'verify_properties']


class Cloud:
    """Conductors of one test, the client and helpers."""

    def __init__(self, tmp_path) -> None:
        self.exchange = f'test-{uuid.uuid4()}'
        self.ctx = lite_context.get_admin_context()
        self.services: list[service.ConductorService] = []
        self.conf = self.new_conf('conductor-1')
        self.api = rpcapi.ConductorAPI(self.conf, timeout=10)

    def new_conf(self, host: str, **overrides) -> cfg.ConfigOpts:
        options = {
            'host': host,
            'transport_url': rpc.INPROC_URL,
            'control_exchange': self.exchange,
            'conductor__heartbeat_interval': 1,
            'conductor__clean_step_poll_interval': 1,
            'conductor__workers_pool_size': 3,
            'fake__step_delay': 0.01,
        }
        return make_conf(**{**options, **overrides})

    def start(
        self, conf: cfg.ConfigOpts | None = None
    ) -> service.ConductorService:
        svc = service.conductor_service(conf or self.conf)
        svc.start()
        self.services.append(svc)
        return svc

    def stop(self) -> None:
        while self.services:
            self.services.pop().stop()

    # -- nodes

    def create(self, **values) -> dict:
        return self.api.create_node(
            self.ctx,
            {'uuid': str(uuid.uuid4()), 'driver': 'fake-hardware', **values},
        )

    def get(self, node: dict) -> dict:
        return db_nodes.node_get(self.ctx, node['uuid'])

    def act(self, node: dict, action: str, clean_steps=None) -> None:
        self.api.do_provisioning_action(
            self.ctx, node, action, clean_steps=clean_steps
        )

    def wait(self, node: dict, state: str, timeout: float = 10) -> dict:
        """The node once in ``state`` with its lock released."""
        deadline = time.monotonic() + timeout
        while True:
            row = self.get(node)
            if row['provision_state'] == state and row['reservation'] is None:
                return row
            if time.monotonic() > deadline:
                raise AssertionError(
                    f'node not {state} after {timeout} s: '
                    f'{row["provision_state"]}, reservation '
                    f'{row["reservation"]}, last_error {row["last_error"]}'
                )
            time.sleep(0.02)

    def power(self, node: dict, target: str, timeout: float = 10) -> dict:
        """Change the power and wait until it is done."""
        self.api.change_power_state(self.ctx, node, target)
        deadline = time.monotonic() + timeout
        while True:
            row = self.get(node)
            if (
                row['reservation'] is None
                and row['target_power_state'] is None
            ):
                return row
            assert time.monotonic() < deadline, row
            time.sleep(0.02)

    def manageable(self, **values) -> dict:
        node = self.create(**values)
        self.act(node, 'manage')
        return self.wait(node, states.MANAGEABLE)

    def available(self) -> dict:
        node = self.manageable()
        self.act(node, 'provide')
        return self.wait(node, states.AVAILABLE)


@pytest.fixture
def cloud(tmp_path):
    with db_fixture.migrated_db(f'sqlite:///{tmp_path / "ironic.db"}'):
        result = Cloud(tmp_path)
        try:
            yield result
        finally:
            result.stop()
            rpc.cleanup()


def steps_run(row: dict) -> list[str]:
    return list(row['driver_internal_info'].get('fake_steps_run', []))


# -- records


def test_create_update_destroy(cloud):
    cloud.start()
    node = cloud.create(name='bm-0', properties={'cpus': 4})
    assert node['provision_state'] == states.ENROLL
    assert node['power_state'] is None
    # Timestamps crossed the bus as ISO 8601 strings.
    assert datetime.datetime.fromisoformat(node['created_at'])
    with pytest.raises(exception.InterfaceNotEnabled):
        cloud.create(power_interface='ipmitool')
    updated = cloud.api.update_node(
        cloud.ctx,
        node,
        {'maintenance': True, 'maintenance_reason': 'broken fan'},
    )
    assert updated['maintenance'] is True
    assert isinstance(updated['updated_at'], str)
    with pytest.raises(exception.InvalidParameterValue):
        cloud.api.update_node(cloud.ctx, node, {'power_interface': 'ipmitool'})
    with pytest.raises(exception.InvalidParameterValue):
        cloud.api.update_node(cloud.ctx, node, {'provision_state': 'active'})
    cloud.api.destroy_node(cloud.ctx, node)
    with pytest.raises(exception.NodeNotFound):
        cloud.get(node)


def test_destroy_refused_while_active_unless_maintenance(cloud):
    cloud.start()
    node = cloud.available()
    cloud.act(node, 'deploy')
    cloud.wait(node, states.ACTIVE)
    with pytest.raises(exception.InvalidState) as info:
        cloud.api.destroy_node(cloud.ctx, node)
    assert info.value.code == 409
    assert 'active' in str(info.value)
    cloud.api.update_node(cloud.ctx, node, {'maintenance': True})
    cloud.api.destroy_node(cloud.ctx, node)
    with pytest.raises(exception.NodeNotFound):
        cloud.get(node)


# -- provisioning and cleaning


def test_manage_then_provide_runs_automated_cleaning(cloud):
    cloud.start()
    node = cloud.create()
    cloud.act(node, 'manage')
    row = cloud.wait(node, states.MANAGEABLE)
    assert row['power_state'] == states.POWER_OFF
    assert row['target_provision_state'] is None
    cloud.act(node, 'provide')
    row = cloud.wait(node, states.AVAILABLE)
    assert steps_run(row) == AUTOMATED_RUN
    assert row['clean_step'] == {}
    assert 'clean_steps' not in row['driver_internal_info']
    assert row['target_provision_state'] is None
    assert row['last_error'] is None


def test_clean_steps_of_a_node(cloud):
    cloud.start()
    node = cloud.create()
    result = cloud.api.get_clean_steps(cloud.ctx, node)
    assert [s['step'] for s in result['automated']] == AUTOMATED_RUN
    # The manual-only steps (priority 0); the automated ones are not
    # repeated there.
    assert sorted((s['interface'], s['step']) for s in result['manual']) == [
        ('bios', 'apply_configuration'),
        ('bios', 'cache_bios_settings'),
        ('bios', 'factory_reset'),
        ('deploy', 'erase_devices'),
        ('deploy', 'fail_step'),
        ('deploy', 'one_shot_work'),
        ('deploy', 'repeatable_work'),
        ('deploy', 'wait_a_bit'),
        ('deploy', 'wait_for_gate'),
        ('firmware', 'update'),
    ]
    assert {s['priority'] for s in result['manual']} == {0}
    for step in result['automated'] + result['manual']:
        assert set(step) == {
            'step',
            'priority',
            'interface',
            'abortable',
            'idempotent',
            'argsinfo',
        }


def test_manual_cleaning_back_to_manageable(cloud):
    cloud.start()
    node = cloud.manageable()
    cloud.act(node, 'clean', [{**ERASE, 'args': {'passes': 2}}, VERIFY])
    row = cloud.wait(node, states.MANAGEABLE)
    assert steps_run(row) == ['erase_devices', 'verify_properties']


HOLD = {'interface': 'conductor', 'step': 'hold'}


def test_hold_step_waits_for_unhold(cloud):
    cloud.start()
    node = cloud.manageable()
    cloud.act(node, 'clean', [ERASE, HOLD, VERIFY])
    row = cloud.wait(node, states.CLEANHOLD)
    # Held after the first step, showing the hold step, before the last.
    assert steps_run(row) == ['erase_devices']
    assert row['clean_step']['step'] == 'hold'
    assert row['target_provision_state'] == states.MANAGEABLE
    assert row['driver_internal_info']['clean_step_index'] == 1
    time.sleep(1.5)  # polls and takeover runs leave a held node alone
    assert cloud.get(node)['provision_state'] == states.CLEANHOLD
    cloud.act(node, 'unhold')
    row = cloud.wait(node, states.MANAGEABLE)
    assert steps_run(row) == ['erase_devices', 'verify_properties']
    assert row['clean_step'] == {}
    assert row['maintenance'] is False


def test_abort_from_clean_hold(cloud):
    cloud.start()
    node = cloud.manageable()
    cloud.act(node, 'clean', [HOLD, ERASE])
    cloud.wait(node, states.CLEANHOLD)
    cloud.act(node, 'abort')
    row = cloud.wait(node, states.CLEANFAIL)
    assert steps_run(row) == []
    assert 'abort' in row['last_error']
    assert row['maintenance'] is False  # an operator asked for it


def test_hold_step_takes_no_arguments_and_is_the_only_one(cloud):
    cloud.start()
    node = cloud.manageable()
    for steps, match in (
        ([{**HOLD, 'args': {'x': 1}}], 'no arguments'),
        ([{**HOLD, 'step': 'nap'}], 'offers: hold'),
    ):
        with pytest.raises(exception.InvalidParameterValue, match=match):
            cloud.act(node, 'clean', steps)
    assert cloud.get(node)['provision_state'] == states.MANAGEABLE


def test_invalid_manual_steps_change_nothing(cloud):
    cloud.start()
    node = cloud.manageable()
    with pytest.raises(exception.InvalidParameterValue, match='no_such_step'):
        cloud.act(
            node, 'clean', [{'interface': 'deploy', 'step': 'no_such_step'}]
        )
    with pytest.raises(exception.InvalidParameterValue, match='colour'):
        cloud.act(node, 'clean', [{**ERASE, 'args': {'colour': 1}}])
    with pytest.raises(exception.InvalidStateRequested) as info:
        cloud.act(node, 'deploy')
    assert info.value.code == 400
    row = cloud.get(node)
    assert row['provision_state'] == states.MANAGEABLE
    assert row['reservation'] is None


def test_failing_step_then_recovery(cloud):
    cloud.start()
    node = cloud.manageable()
    assert cloud.power(node, states.POWER_ON)['power_state'] == (
        states.POWER_ON
    )
    cloud.act(
        node,
        'clean',
        [
            {
                'interface': 'deploy',
                'step': 'fail_step',
                'args': {'message': 'disk 3 is gone'},
            }
        ],
    )
    row = cloud.wait(node, states.CLEANFAIL)
    assert row['maintenance'] is True
    assert row['fault'] == 'clean failure'
    assert 'deploy.fail_step' in row['last_error']
    assert 'disk 3 is gone' in row['last_error']
    assert row['power_state'] == states.POWER_ON
    # Power changes are allowed again, so is manage in maintenance...
    assert cloud.power(node, states.POWER_OFF)['power_state'] == (
        states.POWER_OFF
    )
    cloud.act(node, 'manage')
    row = cloud.wait(node, states.MANAGEABLE)
    # ...but not provide, until maintenance is unset.
    with pytest.raises(exception.NodeInMaintenance):
        cloud.act(node, 'provide')
    updated = cloud.api.update_node(cloud.ctx, node, {'maintenance': False})
    assert updated['fault'] is None
    assert updated['maintenance_reason'] is None
    cloud.act(node, 'provide')
    row = cloud.wait(node, states.AVAILABLE)
    assert row['maintenance'] is False
    assert row['power_state'] == states.POWER_OFF
    assert steps_run(row)[-2:] == AUTOMATED_RUN


def test_asynchronous_step_completes_by_polling(cloud):
    cloud.start()
    node = cloud.manageable()
    # Two seconds: a step finished at once may be polled and done (the
    # poll runs every second) before the test sees it waiting (seen
    # under CI load with 0 s).
    cloud.act(
        node,
        'clean',
        [
            {
                'interface': 'deploy',
                'step': 'wait_a_bit',
                'args': {'seconds': 2},
            },
            VERIFY,
        ],
    )
    row = cloud.wait(node, states.CLEANWAIT)
    assert row['clean_step']['step'] == 'wait_a_bit'
    assert row['target_provision_state'] == states.MANAGEABLE
    row = cloud.wait(node, states.MANAGEABLE, timeout=10)
    assert steps_run(row) == ['wait_a_bit', 'verify_properties']


def test_callback_continues_cleaning(cloud):
    cloud.start()
    node = cloud.manageable()
    cloud.act(
        node,
        'clean',
        [
            {
                'interface': 'deploy',
                'step': 'wait_a_bit',
                'args': {'seconds': 600},
            },
            VERIFY,
        ],
    )
    cloud.wait(node, states.CLEANWAIT)
    cloud.api.continue_node_clean(cloud.ctx, node)
    row = cloud.wait(node, states.MANAGEABLE)
    assert steps_run(row) == ['verify_properties']


def test_abort_of_an_asynchronous_step(cloud):
    cloud.start()
    node = cloud.manageable()
    cloud.act(
        node,
        'clean',
        [
            {
                'interface': 'deploy',
                'step': 'wait_a_bit',
                'args': {'seconds': 600},
            }
        ],
    )
    cloud.wait(node, states.CLEANWAIT)
    cloud.act(node, 'abort')
    row = cloud.wait(node, states.CLEANFAIL)
    assert 'abort' in row['last_error']
    assert row['maintenance'] is False
    assert 'clean_wait_until' not in row['driver_internal_info']
    with pytest.raises(exception.InvalidStateRequested):
        cloud.act(node, 'abort')


def test_clean_callback_timeout(cloud):
    cloud.start(
        cloud.new_conf('conductor-1', conductor__clean_callback_timeout=1)
    )
    node = cloud.manageable()
    cloud.act(
        node,
        'clean',
        [
            {
                'interface': 'deploy',
                'step': 'wait_a_bit',
                'args': {'seconds': 600},
            }
        ],
    )
    cloud.wait(node, states.CLEANWAIT)
    row = cloud.wait(node, states.CLEANFAIL, timeout=10)
    assert 'Timeout' in row['last_error']
    assert 'deploy.wait_a_bit' in row['last_error']
    assert row['fault'] == 'clean failure'


def test_deploy_and_undeploy_run_tear_down_cleaning(cloud):
    cloud.start()
    node = cloud.available()
    cloud.api.update_node(
        cloud.ctx, node, {'instance_uuid': str(uuid.uuid4())}
    )
    cloud.act(node, 'active')
    row = cloud.wait(node, states.ACTIVE)
    assert row['power_state'] == states.POWER_ON
    with pytest.raises(exception.InvalidStateRequested):
        cloud.act(node, 'provide')
    cloud.act(node, 'deleted')
    row = cloud.wait(node, states.AVAILABLE)
    assert steps_run(row) == AUTOMATED_RUN * 2
    assert row['power_state'] == states.POWER_OFF
    assert row['instance_uuid'] is None


def test_power_refused_while_cleaning(cloud):
    cloud.start()
    node = cloud.manageable()
    cloud.act(
        node,
        'clean',
        [
            {
                'interface': 'deploy',
                'step': 'wait_a_bit',
                'args': {'seconds': 600},
            }
        ],
    )
    cloud.wait(node, states.CLEANWAIT)
    with pytest.raises(exception.InvalidStateRequested) as info:
        cloud.api.change_power_state(cloud.ctx, node, states.POWER_ON)
    assert info.value.code == 400
    with pytest.raises(exception.InvalidParameterValue):
        cloud.api.change_power_state(cloud.ctx, node, 'sleep')


def test_second_action_on_a_busy_node_is_locked(cloud):
    cloud.start(cloud.new_conf('conductor-1', fake__step_delay=0.05))
    node = cloud.manageable()
    cloud.act(node, 'clean', [{**ERASE, 'args': {'passes': 40}}])
    with pytest.raises(exception.NodeLocked) as info:
        cloud.act(node, 'clean', [ERASE])
    assert info.value.code == 409
    assert 'locked by host conductor-1' in str(info.value)
    # Locked by the worker, but the state is the better answer.
    with pytest.raises(exception.InvalidStateRequested, match='cleaning'):
        cloud.api.change_power_state(cloud.ctx, node, states.POWER_ON)
    row = cloud.wait(node, states.MANAGEABLE)
    assert steps_run(row) == ['erase_devices']


def test_full_worker_pool_refuses_and_changes_nothing(cloud):
    svc = cloud.start()
    node = cloud.manageable()
    slots = [svc.pool.reserve() for _ in range(3)]
    try:
        with pytest.raises(exception.NoFreeConductorWorker) as info:
            cloud.act(node, 'provide')
        assert info.value.code == 503
        row = cloud.get(node)
        assert row['provision_state'] == states.MANAGEABLE
        assert row['reservation'] is None
    finally:
        for slot in slots:
            slot.cancel()
    cloud.act(node, 'provide')
    cloud.wait(node, states.AVAILABLE)


# -- conductors going away


def _owner(cloud, node):
    alive = db_conductors.list_alive(cloud.ctx, 60)
    return hash_ring.ring_for_driver(alive, 'fake-hardware').get_host(
        node['uuid']
    )


def _age_heartbeat(host):
    old = lite_db.utcnow() - datetime.timedelta(hours=1)
    with db_api.context_manager.writer.using(
        lite_context.get_admin_context()
    ) as session:
        session.execute(
            sa.update(models.Conductor)
            .where(models.Conductor.hostname == host)
            .values(heartbeat_at=old)
        )


def _left_mid_step(cloud, node, host, index):
    """Put ``node`` where a conductor dying during automated clean step
    ``index`` leaves it: cleaning, the step recorded, locked by
    ``host``."""
    row = cloud.get(node)
    steps = conductor_steps.automated_steps(
        FakeTask(), task_manager.load_driver(cloud.conf, row), cloud.conf
    )
    db_nodes.node_update(
        cloud.ctx,
        node['uuid'],
        {
            'provision_state': states.CLEANING,
            'target_provision_state': states.AVAILABLE,
            'clean_step': steps[index],
            'driver_internal_info': {
                'clean_steps': steps,
                'clean_step_index': index,
            },
            'reservation': host,
        },
    )


def test_takeover_of_a_dead_conductors_nodes(cloud):
    cloud.start()
    dying = cloud.start(cloud.new_conf('conductor-2'))
    # Nodes until two map to conductor-2 (each does with one chance in
    # two: eight fixed nodes all missed it once in ~256 runs).
    nodes: list = []
    victims: list = []
    while len(victims) < 2 and len(nodes) < 40:
        nodes.append(cloud.manageable())
        if _owner(cloud, nodes[-1]) == 'conductor-2':
            victims.append(nodes[-1])
    assert victims, 'no node maps to conductor-2'
    dying.stop(unregister=False)
    waiting = victims.pop()
    db_nodes.node_update(
        cloud.ctx,
        waiting['uuid'],
        {
            'provision_state': states.CLEANWAIT,
            'target_provision_state': states.MANAGEABLE,
            'clean_step': {
                'interface': 'deploy',
                'step': 'wait_a_bit',
                'args': {},
                'abortable': True,
                'priority': 0,
            },
            'driver_internal_info': {
                'clean_steps': [{'interface': 'deploy', 'step': 'wait_a_bit'}],
                'clean_step_index': 0,
                'clean_wait_until': 0,
            },
            'reservation': 'conductor-2',
        },
    )
    for node in victims:
        _left_mid_step(cloud, node, 'conductor-2', 1)
    _age_heartbeat('conductor-2')
    for node in victims:
        row = cloud.wait(node, states.AVAILABLE)
        # The interrupted step (index 1) ran again; step 0 did not.
        assert steps_run(row) == ['verify_properties']
        assert row['maintenance'] is False
    row = cloud.wait(waiting, states.MANAGEABLE)
    assert steps_run(row) == ['wait_a_bit']


def test_restart_under_the_same_name_resumes_its_nodes(cloud):
    svc = cloud.start()
    node = cloud.manageable()
    verifying = cloud.create()
    svc.stop()
    cloud.services.clear()
    _left_mid_step(cloud, node, 'conductor-1', 0)
    db_nodes.node_update(
        cloud.ctx,
        verifying['uuid'],
        {
            'provision_state': states.VERIFYING,
            'target_provision_state': states.MANAGEABLE,
            'reservation': 'conductor-1',
        },
    )
    cloud.start()
    row = cloud.wait(node, states.AVAILABLE)
    assert steps_run(row) == AUTOMATED_RUN
    cloud.wait(verifying, states.MANAGEABLE)
    assert db_conductors.get(cloud.ctx, 'conductor-1')['online'] is True


def test_stop_while_cleaning_then_restart_resumes(cloud):
    """stop() lets the running step finish and leaves the node before
    the next one; the conductor restarted under the same name goes on
    from there: no step is lost, none runs twice, no node fails."""
    conf = cloud.new_conf('conductor-1', fake__step_delay=0.3)
    svc = cloud.start(conf)
    nodes = [cloud.manageable() for _ in range(2)]
    for node in nodes:
        cloud.act(node, 'provide')
    deadline = time.monotonic() + 10
    while not all(
        cloud.get(node)['clean_step'].get('step') == 'erase_devices_metadata'
        for node in nodes
    ):
        assert time.monotonic() < deadline
        time.sleep(0.01)
    svc.stop()
    cloud.services.clear()
    assert db_conductors.get(cloud.ctx, 'conductor-1')['online'] is False
    for node in nodes:
        row = cloud.get(node)
        assert (row['provision_state'], row['reservation']) == (
            states.CLEANING,
            None,
        )
        assert row['driver_internal_info']['clean_step_index'] == 1
        assert steps_run(row) == ['erase_devices_metadata']
        assert row['last_error'] is None
    cloud.start(conf)
    for node in nodes:
        row = cloud.wait(node, states.AVAILABLE)
        assert steps_run(row) == AUTOMATED_RUN
        assert row['maintenance'] is False


# -- start-up refusals


def test_refuses_to_start_on_duplicate_clean_step_priorities(cloud):
    svc = service.conductor_service(
        cloud.new_conf(
            'conductor-1',
            conductor__clean_step_priority_override=[
                'deploy.erase_devices:99'
            ],
        )
    )
    with pytest.raises(exception.DuplicateCleanStepPriority) as info:
        svc.start()
    assert '"erase_devices"' in str(info.value)
    assert '"erase_devices_metadata"' in str(info.value)
    with pytest.raises(exception.ConductorNotFound):
        db_conductors.get(cloud.ctx, 'conductor-1')


def test_refuses_to_start_with_an_unloadable_interface(cloud):
    svc = service.conductor_service(
        cloud.new_conf('conductor-1', enabled_deploy_interfaces=['direct'])
    )
    with pytest.raises(exception.InvalidParameterValue, match='direct'):
        svc.start()


def test_stop_marks_the_conductor_offline(cloud):
    svc = cloud.start()
    row = db_conductors.get(cloud.ctx, 'conductor-1')
    assert row['online'] is True
    assert row['hardware_types'] == ['fake-hardware']
    svc.stop()
    cloud.services.clear()
    assert db_conductors.get(cloud.ctx, 'conductor-1')['online'] is False
