"""The fake interfaces, and the asynchronous clean step contract."""

import json
import time

import pytest

from ironic_lite import exception
from ironic_lite.common import states
from ironic_lite.drivers import fake
from ironic_lite.tests.unit import FakeNode
from ironic_lite.tests.unit import FakeTask
from ironic_lite.tests.unit import make_conf


@pytest.fixture
def conf():
    return make_conf()


@pytest.fixture
def task():
    return FakeTask()


def _run(iface, task, name, **args):
    return iface.execute_clean_step(
        task, {'interface': iface.interface_type, 'step': name, 'args': args}
    )


def test_power_kept_in_node(conf, task):
    power = fake.FakePower(conf)
    assert power.get_power_state(task) == states.POWER_OFF
    power.set_power_state(task, states.POWER_ON)
    assert task.node.power_state == states.POWER_ON
    assert power.get_power_state(task) == states.POWER_ON
    power.set_power_state(task, states.POWER_OFF)
    power.reboot(task)
    assert task.node.power_state == states.POWER_ON


def test_power_unknown_node_state_reads_as_off(conf):
    task = FakeTask(node=FakeNode(power_state=None))
    assert fake.FakePower(conf).get_power_state(task) == states.POWER_OFF


def test_power_rejects_unknown_state(conf, task):
    with pytest.raises(exception.InvalidParameterValue, match='sleep'):
        fake.FakePower(conf).set_power_state(task, 'sleep')
    assert task.node.power_state == states.POWER_OFF


def test_power_delay(task):
    power = fake.FakePower(make_conf(fake__power_delay=0.05))
    start = time.monotonic()
    power.set_power_state(task, states.POWER_ON)
    assert time.monotonic() - start >= 0.05


def test_boot_device(conf, task):
    management = fake.FakeManagement(conf)
    assert management.get_boot_device(task) == {
        'boot_device': 'pxe',
        'persistent': False,
    }
    assert management.get_supported_boot_devices(task) == ['pxe']
    management.set_boot_device(task, 'pxe', persistent=True)
    assert management.get_boot_device(task) == {
        'boot_device': 'pxe',
        'persistent': True,
    }
    with pytest.raises(
        exception.InvalidParameterValue, match='Invalid boot device disk'
    ):
        management.set_boot_device(task, 'disk')


@pytest.mark.parametrize(
    'properties',
    [
        {},
        {'cpus': 4, 'memory_mb': '8192', 'local_gb': 100},
        {'cpus': 1, 'vendor': 'none'},
    ],
)
def test_verify_properties_accepts(conf, properties):
    task = FakeTask(node=FakeNode(properties=properties))
    assert _run(fake.FakeManagement(conf), task, 'verify_properties') is None
    assert task.node.driver_internal_info[fake.STEPS_RUN_KEY] == [
        'verify_properties'
    ]


@pytest.mark.parametrize(
    'properties',
    [
        {'cpus': 0},
        {'memory_mb': 'lots'},
        {'local_gb': -1},
        {'cpus': True},
        {'local_gb': 1.5},
    ],
)
def test_verify_properties_rejects(conf, properties):
    task = FakeTask(node=FakeNode(properties=properties))
    with pytest.raises(exception.NodeCleaningFailure) as err:
        _run(fake.FakeManagement(conf), task, 'verify_properties')
    # The conductor names the node in last_error: not twice.
    assert task.node.uuid not in str(err.value)
    assert next(iter(properties)) in str(err.value)


def test_sync_steps_record_order(conf, task):
    deploy = fake.FakeDeploy(conf)
    assert _run(deploy, task, 'erase_devices_metadata') is None
    assert _run(deploy, task, 'erase_devices', passes=2) is None
    assert task.node.driver_internal_info[fake.STEPS_RUN_KEY] == [
        'erase_devices_metadata',
        'erase_devices',
    ]


@pytest.mark.parametrize('passes', [0, '2', True])
def test_erase_devices_rejects_bad_passes(conf, task, passes):
    with pytest.raises(exception.InvalidParameterValue, match='passes'):
        _run(fake.FakeDeploy(conf), task, 'erase_devices', passes=passes)


def test_fail_step_fails(conf, task):
    with pytest.raises(exception.NodeCleaningFailure, match='boom'):
        _run(fake.FakeDeploy(conf), task, 'fail_step', message='boom')


def test_async_step_finishes_after_its_time(conf, task):
    deploy = fake.FakeDeploy(conf)
    before = time.time()
    assert _run(deploy, task, 'wait_a_bit', seconds=3600) == states.CLEANWAIT
    until = task.node.driver_internal_info[fake.WAIT_UNTIL_KEY]
    assert before + 3600 <= until <= time.time() + 3600
    assert deploy.poll_clean_step(task) is False
    assert deploy.poll_clean_step(task) is False
    # Time passes (as for a node taken over by another conductor).
    task.node.driver_internal_info[fake.WAIT_UNTIL_KEY] = time.time() - 1
    assert deploy.poll_clean_step(task) is True
    assert fake.WAIT_UNTIL_KEY not in task.node.driver_internal_info
    assert task.node.driver_internal_info[fake.STEPS_RUN_KEY] == ['wait_a_bit']


def test_async_step_with_zero_seconds_is_done_at_first_poll(conf, task):
    deploy = fake.FakeDeploy(conf)
    assert _run(deploy, task, 'wait_a_bit', seconds=0) == states.CLEANWAIT
    assert deploy.poll_clean_step(task) is True


def test_poll_without_running_step_fails(conf, task):
    with pytest.raises(exception.NodeCleaningFailure, match='no async'):
        fake.FakeDeploy(conf).poll_clean_step(task)


def test_abort_forgets_the_step(conf, task):
    deploy = fake.FakeDeploy(conf)
    _run(deploy, task, 'wait_a_bit', seconds=3600)
    deploy.abort_clean_step(task)
    assert fake.WAIT_UNTIL_KEY not in task.node.driver_internal_info
    with pytest.raises(exception.NodeCleaningFailure):
        deploy.poll_clean_step(task)


def test_wait_a_bit_is_abortable_and_manual(conf, task):
    step = {s['step']: s for s in fake.FakeDeploy(conf).get_clean_steps(task)}[
        'wait_a_bit'
    ]
    assert step['abortable'] is True
    assert step['priority'] == 0
    assert set(step['argsinfo']) == {'seconds'}


@pytest.mark.parametrize('seconds', [-1, 'soon', None])
def test_wait_a_bit_rejects_bad_seconds(conf, task, seconds):
    with pytest.raises(exception.InvalidParameterValue, match='seconds'):
        _run(fake.FakeDeploy(conf), task, 'wait_a_bit', seconds=seconds)
    assert fake.WAIT_UNTIL_KEY not in task.node.driver_internal_info


def test_deploy_and_tear_down(conf, task):
    deploy = fake.FakeDeploy(conf)
    assert deploy.deploy(task) is None
    assert deploy.tear_down(task) is None


class LosingTask(FakeTask):
    """Loses its node's lock at the ``lose_at``-th checkpoint."""

    lose_at = 3

    def checkpoint(self) -> None:
        super().checkpoint()
        if self.checkpoints >= self.lose_at:
            raise exception.NodeNotLocked(
                node=self.node.uuid, host='me', holder='other'
            )


def _records(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_run_log_records_runs_by_conductor(tmp_path):
    conf = make_conf(
        host='conductor-7', fake__run_log=str(tmp_path / 'runs.jsonl')
    )
    deploy = fake.FakeDeploy(conf)
    done = FakeTask()
    _run(deploy, done, 'one_shot_work', seconds=0.3, tag='t1')
    assert done.checkpoints >= 2  # units of work between checkpoints
    lost = LosingTask()
    with pytest.raises(exception.NodeNotLocked):
        _run(deploy, lost, 'repeatable_work', seconds=5, tag='t2')
    # A step that lost its node stops at once, and records nothing else.
    assert lost.checkpoints == LosingTask.lose_at
    assert 'repeatable_work' not in lost.node.driver_internal_info.get(
        fake.STEPS_RUN_KEY, []
    )
    start, end, start2, end2 = _records(tmp_path / 'runs.jsonl')
    assert (start['event'], start['tag'], start['conductor']) == (
        'start',
        't1',
        'conductor-7',
    )
    assert (end['event'], end['outcome'], end['run']) == (
        'end',
        'done',
        start['run'],
    )
    assert end['time'] >= start['time'] + 0.3
    assert (end2['outcome'], end2['tag']) == ('fenced', 't2')
    # Fenced: the end is the last moment the lock was seen held.
    assert start2['time'] < end2['time'] < start2['time'] + 1


def test_run_log_stops_at_its_size_limit(tmp_path):
    path = tmp_path / 'runs.jsonl'
    conf = make_conf(fake__run_log=str(path), fake__run_log_max_bytes=1024)
    deploy = fake.FakeDeploy(conf)
    for _ in range(20):
        _run(deploy, FakeTask(), 'repeatable_work', seconds=0)
    assert 0 < path.stat().st_size <= 1024


def test_steps_run_is_bounded(conf, task):
    deploy = fake.FakeDeploy(conf)
    for _ in range(fake.STEPS_RUN_LIMIT + 5):
        _run(deploy, task, 'erase_devices_metadata')
    assert len(task.node.driver_internal_info[fake.STEPS_RUN_KEY]) == (
        fake.STEPS_RUN_LIMIT
    )


def test_wait_for_gate(tmp_path):
    deploy = fake.FakeDeploy(make_conf(fake__gate_dir=str(tmp_path)))
    (tmp_path / 'open').touch()
    _run(deploy, FakeTask(), 'wait_for_gate', gate='open')
    with pytest.raises(exception.NodeCleaningFailure, match='did not open'):
        _run(deploy, FakeTask(), 'wait_for_gate', gate='shut', timeout=0.3)
    with pytest.raises(exception.InvalidParameterValue, match='gate'):
        _run(deploy, FakeTask(), 'wait_for_gate', gate='../etc')


def test_the_fake_management_cannot_inject_an_nmi(conf, task):
    with pytest.raises(
        exception.UnsupportedDriverExtension,
        match='does not support inject_nmi',
    ):
        fake.FakeManagement(conf).inject_nmi(task)
