"""The node lock as a task, on a real SQLite file.

The fixtures and helpers at the top are shared by the conductor's unit
tests (test_cleaning, test_manager, test_periodics import them); the DB
file, ``ctx``, is the fixture of conftest.py.
"""

import datetime
import threading
import time
import uuid

from oslo_db import exception as db_exc
import pytest
import sqlalchemy as sa

from ironic_lite import exception
from ironic_lite.common import interfaces
from ironic_lite.common import states
from ironic_lite.common.conductor_identity import ConductorIdentity
from ironic_lite.conductor import locks
from ironic_lite.conductor import task_manager
from ironic_lite.conductor import workers
from ironic_lite.db import api as db_api
from ironic_lite.db import conductors as db_conductors
from ironic_lite.db import models
from ironic_lite.db import node_locks
from ironic_lite.db import nodes as db_nodes
from ironic_lite.tests.unit import make_conf
from lite_common import db as lite_db

HOST = 'conductor-1'
#: This test process as the conductor process of HOST.
HOLDER = ConductorIdentity(HOST, '11111111-1111-4111-8111-111111111111')


def hold_name(ctx, identity=HOLDER):
    """``identity`` holds its host name, out of the ring (offline, as
    while stopping: not alive, not dead), so that its locks count;
    returns ``identity``."""
    db_conductors.register(ctx, identity, ['fake-hardware'])
    db_conductors.heartbeat(ctx, identity, online=False)
    return identity


def another(ctx, host):
    """Another conductor process (holding ``host``)."""
    return hold_name(ctx, ConductorIdentity.new(host))


@pytest.fixture(autouse=True)
def holder(ctx):
    """HOLDER holds conductor-1 (every test of the modules importing
    this fixture)."""
    return hold_name(ctx)


@pytest.fixture
def conf():
    return make_conf(host=HOST, fake__step_delay=0.0)


@pytest.fixture
def pool():
    result = workers.WorkerPool(3)
    yield result
    result.shutdown(wait=True)


def make_node(ctx, **values):
    return db_nodes.node_create(
        ctx, {'uuid': str(uuid.uuid4()), 'driver': 'fake-hardware', **values}
    )


def wait_for(ctx, node, predicate, timeout=5.0):
    """The node row once ``predicate(row)`` and its lock is released."""
    deadline = time.monotonic() + timeout
    while True:
        row = db_nodes.node_get(ctx, node['id'])
        if predicate(row) and row['reservation'] is None:
            return row
        assert time.monotonic() < deadline, row
        time.sleep(0.01)


def wait_state(ctx, node, state, timeout=5.0):
    return wait_for(
        ctx, node, lambda r: r['provision_state'] == state, timeout
    )


# -- the lock


def test_acquire_locks_and_releases(ctx, conf):
    node = make_node(ctx)
    with task_manager.acquire(ctx, conf, node['uuid'], HOLDER, 'test') as task:
        assert task.node.reservation == HOST
        assert set(task.interfaces) == set(interfaces.INTERFACE_TYPES)
        assert task.driver.power is task.interfaces['power']
        with pytest.raises(exception.NodeLocked) as info:
            task_manager.acquire(
                ctx, conf, node['id'], another(ctx, 'other'), 'test'
            )
        assert info.value.code == 409
        assert HOST in str(info.value)
    assert db_nodes.node_get(ctx, node['id'])['reservation'] is None


def test_an_error_in_the_block_releases(ctx, conf):
    node = make_node(ctx)
    with pytest.raises(ValueError):
        with task_manager.acquire(ctx, conf, node['id'], HOLDER, 'test'):
            raise ValueError('refused')
    assert db_nodes.node_get(ctx, node['id'])['reservation'] is None


def test_shared_task_takes_no_lock_and_cannot_save(ctx, conf):
    node = make_node(ctx, name='bm-0')
    node_locks.reserve(ctx, another(ctx, 'other'), node['id'])
    with task_manager.acquire(
        ctx, conf, 'bm-0', HOLDER, 'read', shared=True
    ) as task:
        assert task.node.uuid == node['uuid']
        with pytest.raises(RuntimeError):
            task.update(name='bm-1')
    assert db_nodes.node_get(ctx, node['id'])['reservation'] == 'other'


def test_unloadable_driver_releases_the_lock(ctx, conf):
    node = make_node(ctx, power_interface='ipmitool')
    with pytest.raises(exception.InterfaceNotEnabled):
        task_manager.acquire(ctx, conf, node['id'], HOLDER, 'test')
    assert db_nodes.node_get(ctx, node['id'])['reservation'] is None


def test_missing_node(ctx, conf):
    with pytest.raises(exception.NodeNotFound):
        task_manager.acquire(ctx, conf, str(uuid.uuid4()), HOLDER, 'test')


# -- saving and the state machine


def test_save_writes_only_changes(ctx, conf):
    node = make_node(ctx)
    with task_manager.acquire(ctx, conf, node['id'], HOLDER, 'test') as task:
        assert task.node.changes() == {}
        task.node.driver_internal_info['x'] = 1
        assert task.node.changes() == {'driver_internal_info': {'x': 1}}
        task.save()
        assert task.node.changes() == {}
        with pytest.raises(AttributeError):
            task.node.colour = 'blue'
    row = db_nodes.node_get(ctx, node['id'])
    assert row['driver_internal_info'] == {'x': 1}


def test_process_event_targets(ctx, conf):
    node = make_node(ctx)
    with task_manager.acquire(ctx, conf, node['id'], HOLDER, 'test') as task:
        task.process_event('manage')
        assert (
            task.node.provision_state,
            task.node.target_provision_state,
        ) == (states.VERIFYING, states.MANAGEABLE)
        task.process_event('done', last_error=None)
        assert task.node.target_provision_state is None
        task.process_event('clean', target_state=states.MANAGEABLE)
        task.process_event('wait')
        assert (
            task.node.provision_state,
            task.node.target_provision_state,
        ) == (states.CLEANWAIT, states.MANAGEABLE)
        with pytest.raises(exception.InvalidStateRequested) as info:
            task.process_event('deploy')
        assert info.value.code == 400
        assert 'clean wait' in str(info.value)
    row = db_nodes.node_get(ctx, node['id'])
    assert row['provision_state'] == states.CLEANWAIT
    assert row['provision_updated_at'] is not None


def test_destroy_removes_node_and_lock(ctx, conf):
    node = make_node(ctx)
    with task_manager.acquire(ctx, conf, node['id'], HOLDER, 'test') as task:
        task.destroy()
    with pytest.raises(exception.NodeNotFound):
        db_nodes.node_get(ctx, node['id'])


# -- handing the lock to a worker


def test_spawn_after_runs_with_the_lock(ctx, conf, pool):
    node = make_node(ctx)
    seen = []
    go = threading.Event()

    def work(task, value):
        go.wait(5)
        seen.append((value, db_nodes.node_get(ctx, node['id'])['reservation']))
        task.process_event('manage')

    with task_manager.acquire(ctx, conf, node['id'], HOLDER, 'test') as task:
        task.spawn_after(pool, work, 'x')
    # The lock now belongs to the worker.
    assert db_nodes.node_get(ctx, node['id'])['reservation'] == HOST
    go.set()
    row = wait_state(ctx, node, states.VERIFYING)
    assert seen == [('x', HOST)]
    assert row['reservation'] is None


def test_spawn_after_is_cancelled_by_an_error(ctx, conf, pool):
    node = make_node(ctx)
    ran = []
    with pytest.raises(exception.InvalidStateRequested):
        with task_manager.acquire(
            ctx, conf, node['id'], HOLDER, 'test'
        ) as task:
            task.spawn_after(pool, lambda t: ran.append(t))
            task.process_event('provide')
    pool.shutdown(wait=True)
    assert ran == []
    assert db_nodes.node_get(ctx, node['id'])['reservation'] is None
    assert pool._free._value == 3


def test_full_pool_refuses_before_anything_changes(ctx, conf, pool):
    node = make_node(ctx)
    slots = [pool.reserve() for _ in range(3)]
    with pytest.raises(exception.NoFreeConductorWorker):
        with task_manager.acquire(
            ctx, conf, node['id'], HOLDER, 'test'
        ) as task:
            task.spawn_after(pool, lambda t: None)
            task.process_event('manage')
    row = db_nodes.node_get(ctx, node['id'])
    assert row['provision_state'] == states.ENROLL
    assert row['reservation'] is None
    for slot in slots:
        slot.cancel()


def test_a_failing_worker_releases_the_lock(ctx, conf, pool):
    node = make_node(ctx)

    def boom(task):
        raise RuntimeError('boom')

    with task_manager.acquire(ctx, conf, node['id'], HOLDER, 'test') as task:
        task.spawn_after(pool, boom)
    wait_for(ctx, node, lambda row: True)


# -- waiting for a lock, lost locks, locks taken over


def test_patient_acquire_waits_for_the_lock(ctx, conf):
    node = make_node(ctx)
    api = another(ctx, 'api-call')
    node_locks.reserve(ctx, api, node['id'])
    timer = threading.Timer(0.3, node_locks.release, (ctx, api, node['id']))
    timer.start()
    with task_manager.acquire(
        ctx, conf, node['uuid'], HOLDER, 'callback', patience=5
    ) as task:
        assert task.node.reservation == HOST
    timer.join()
    node_locks.reserve(ctx, api, node['id'])
    started = time.monotonic()
    with pytest.raises(exception.NodeLocked, match='api-call'):
        task_manager.acquire(
            ctx, conf, node['id'], HOLDER, 'callback', patience=0.3
        )
    # It waited for its patience, and gave up: the upper bound only
    # catches a wait that ignores the patience (a loaded host has taken
    # 2.2 s for this 0.3), never how fast the lock is.
    assert 0.2 < time.monotonic() - started < 30


def test_claims_follow_the_locks(ctx, conf, pool):
    node, gone = make_node(ctx), make_node(ctx)
    assert node['uuid'] not in locks.claimed(HOLDER)
    with task_manager.acquire(ctx, conf, node['id'], HOLDER, 'test'):
        assert node['uuid'] in locks.claimed(HOLDER)
        assert node['uuid'] not in locks.claimed(
            ConductorIdentity.new('other')
        )
    assert node['uuid'] not in locks.claimed(HOLDER)
    with task_manager.acquire(ctx, conf, gone['id'], HOLDER, 'test') as task:
        task.destroy()
    assert gone['uuid'] not in locks.claimed(HOLDER)
    # Handed to a worker: held until the worker returns.
    go = threading.Event()
    with task_manager.acquire(ctx, conf, node['id'], HOLDER, 'test') as task:
        task.spawn_after(pool, lambda t: go.wait(5))
    assert node['uuid'] in locks.claimed(HOLDER)
    go.set()
    wait_for(ctx, node, lambda row: True)
    assert node['uuid'] not in locks.claimed(HOLDER)


def test_a_stale_task_keeps_its_conductor_from_locking_again(ctx, conf, pool):
    """Item 1: a conductor thought dead lost its lock while its worker
    still ran the node; the node is unlocked again. The same conductor
    may not lock it again until that worker noticed and stopped: two
    tasks of one host would both pass the lock check."""
    node = make_node(ctx)
    go = threading.Event()
    with task_manager.acquire(ctx, conf, node['uuid'], HOLDER, 'test') as task:
        task.spawn_after(pool, lambda t: (go.wait(5), t.checkpoint()))
    node_locks.clear_own(ctx, HOLDER)  # a takeover
    with pytest.raises(exception.NodeLocked):
        task_manager.acquire(ctx, conf, node['uuid'], HOLDER, 'takeover')
    assert db_nodes.node_get(ctx, node['id'])['reservation'] is None
    go.set()
    wait_for(ctx, node, lambda row: node['uuid'] not in locks.claimed(HOLDER))
    with task_manager.acquire(ctx, conf, node['uuid'], HOLDER, 'takeover'):
        pass


def test_checkpoint_fences_a_task_that_lost_its_lock(ctx, conf):
    node = make_node(ctx)
    with task_manager.acquire(ctx, conf, node['uuid'], HOLDER, 'test') as task:
        task.checkpoint()
        node_locks.clear_own(ctx, HOLDER)
        node_locks.reserve(ctx, another(ctx, 'conductor-2'), node['id'])
        with pytest.raises(exception.NodeNotLocked, match='conductor-2'):
            task.checkpoint()


def test_a_replaced_process_is_fenced_however_its_host_name(
    ctx, conf, pool, caplog
):
    """Another process took conductor-1 over (this one was frozen past
    the heartbeat timeout): the lock still names conductor-1, but no
    checkpoint, save or release of this process counts any more; the
    new process adopts the lock."""
    node = make_node(ctx)
    go = threading.Event()
    seen = []

    def work(task):
        go.wait(5)
        try:
            task.checkpoint()
        except exception.NodeNotLocked as exc:
            seen.append(exc)
        task.node.last_error = 'stale'
        task.save()

    with task_manager.acquire(ctx, conf, node['id'], HOLDER, 'test') as task:
        task.spawn_after(pool, work)
    age = datetime.timedelta(seconds=3600)
    with db_api.context_manager.writer.using(ctx) as session:
        session.execute(
            sa.update(models.Conductor).values(
                heartbeat_at=lite_db.utcnow() - age
            )
        )
    new = db_conductors.register(
        ctx,
        ConductorIdentity.new(HOST),
        ['fake-hardware'],
        heartbeat_timeout=60,
    )
    go.set()
    pool.shutdown(wait=True)
    assert len(seen) == 1 and new['incarnation'] in str(seen[0])
    row = db_nodes.node_get(ctx, node['id'])
    assert (row['last_error'], row['reservation']) == (None, HOST)
    assert 'its lock was taken over' in caplog.text
    replacement = ConductorIdentity(HOST, new['incarnation'])
    with task_manager.acquire(
        ctx, conf, node['id'], replacement, 'takeover'
    ) as task:
        task.update(last_error='new')
    assert db_nodes.node_get(ctx, node['id'])['last_error'] == 'new'


def test_a_write_while_locked_is_merged_not_undone(ctx, conf):
    """Item 3: a save writes only what the task changed, and merges a
    write that came in between (an abort request) key by key."""
    node = make_node(
        ctx, driver_internal_info={'a': 1, 'b': 2}, extra={'k': 'v'}
    )
    with task_manager.acquire(ctx, conf, node['uuid'], HOLDER, 'test') as task:
        row = db_nodes.node_get(ctx, node['id'])
        db_nodes.node_update(
            ctx,
            node['id'],
            {
                'driver_internal_info': {'a': 1, 'b': 2, 'abort': True},
                'extra': {'k': 'v', 'k2': 'v2'},
            },
            expected_revision=row['revision'],
        )
        task.node.driver_internal_info['a'] = 10
        task.node.driver_internal_info.pop('b')
        task.node.last_error = 'x'
        task.save()
        assert task.node.driver_internal_info == {'a': 10, 'abort': True}
    row = db_nodes.node_get(ctx, node['id'])
    assert row['driver_internal_info'] == {'a': 10, 'abort': True}
    assert row['extra'] == {'k': 'v', 'k2': 'v2'}
    assert row['last_error'] == 'x'


def test_a_failed_release_is_logged_and_forgotten(
    ctx, conf, monkeypatch, caplog
):
    """The database is away when the lock goes: the node stays locked in
    the database, but no task holds it any more, so the takeover
    periodic task releases it (see test_periodics)."""
    node = make_node(ctx)

    def release(*args):
        raise db_exc.DBConnectionError('database gone')

    monkeypatch.setattr(node_locks, 'release', release)
    with task_manager.acquire(ctx, conf, node['id'], HOLDER, 'test'):
        pass
    assert db_nodes.node_get(ctx, node['id'])['reservation'] == HOST
    assert node['uuid'] not in locks.claimed(HOLDER)
    assert f'Could not release the lock of node {node["uuid"]}' in (
        caplog.text
    )


def test_save_refused_once_the_lock_was_taken_over(ctx, conf):
    """A slow conductor thought dead lost its lock: its flow must not
    overwrite the node another conductor drives now."""
    node = make_node(ctx)
    with task_manager.acquire(ctx, conf, node['id'], HOLDER, 'test') as task:
        node_locks.clear_own(ctx, HOLDER)
        node_locks.reserve(ctx, another(ctx, 'conductor-2'), node['id'])
        task.node.last_error = 'stale'
        with pytest.raises(exception.NodeNotLocked, match='conductor-2'):
            task.save()
    row = db_nodes.node_get(ctx, node['id'])
    assert row['last_error'] is None
    assert row['reservation'] == 'conductor-2'


def test_a_worker_whose_lock_was_taken_over_stops(ctx, conf, pool, caplog):
    node = make_node(ctx)
    go = threading.Event()

    def work(task):
        go.wait(5)
        task.process_event('manage')

    with task_manager.acquire(ctx, conf, node['id'], HOLDER, 'test') as task:
        task.spawn_after(pool, work)
    # This conductor is thought dead: its lock goes to conductor-2.
    node_locks.clear_own(ctx, HOLDER)
    node_locks.reserve(ctx, another(ctx, 'conductor-2'), node['id'])
    go.set()
    pool.shutdown(wait=True)
    row = db_nodes.node_get(ctx, node['id'])
    assert (row['provision_state'], row['reservation']) == (
        states.ENROLL,
        'conductor-2',
    )
    assert node['uuid'] not in locks.claimed(HOLDER)
    assert (
        f'Stopped processing node {node["uuid"]} (test): its lock '
        'was taken over' in caplog.text
    )
