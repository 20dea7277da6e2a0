"""The periodic tasks of a conductor, called directly (real SQLite)."""

import datetime
import time
import uuid

import pytest
import sqlalchemy as sa

from ironic_lite import exception
from ironic_lite.common import hash_ring
from ironic_lite.common import states
from ironic_lite.common.conductor_identity import ConductorIdentity
from ironic_lite.conductor import clean_state
from ironic_lite.conductor import cleaning
from ironic_lite.conductor import periodics
from ironic_lite.conductor import provisioning
from ironic_lite.conductor import task_manager
from ironic_lite.conductor import workers
from ironic_lite.db import api as db_api
from ironic_lite.db import conductors as db_conductors
from ironic_lite.db import models
from ironic_lite.db import nodes as db_nodes
from ironic_lite.tests.unit import make_conf
from ironic_lite.tests.unit import test_task_manager as fixtures
from ironic_lite.tests.unit.test_task_manager import HOLDER
from ironic_lite.tests.unit.test_task_manager import HOST
from ironic_lite.tests.unit.test_task_manager import holder  # noqa: F401
from ironic_lite.tests.unit.test_task_manager import make_node
from ironic_lite.tests.unit.test_task_manager import wait_state
from lite_common import db as lite_db

# The shared fixtures (configuration, worker pool); the DB file, ``ctx``,
# comes from conftest.py.
conf = fixtures.conf
pool = fixtures.pool

OTHER = 'conductor-2'
HW = ['fake-hardware']
STEPS = [
    {
        'interface': 'deploy',
        'step': 'erase_devices_metadata',
        'args': {},
        'priority': 99,
        'abortable': False,
        'idempotent': True,
    },
    {
        'interface': 'management',
        'step': 'verify_properties',
        'args': {},
        'priority': 80,
        'abortable': False,
        'idempotent': True,
    },
]
ONCE = {
    'interface': 'deploy',
    'step': 'one_shot_work',
    'args': {'seconds': 0},
    'priority': 0,
    'abortable': False,
    'idempotent': False,
}
WAIT = {
    'interface': 'deploy',
    'step': 'wait_a_bit',
    'args': {},
    'priority': 0,
    'abortable': True,
    'idempotent': True,
}


def periodic(conf, pool):
    return periodics.ConductorPeriodics(conf, HOLDER, pool, HW)


def age(ctx, host, seconds=3600):
    old = lite_db.utcnow() - datetime.timedelta(seconds=seconds)
    with db_api.context_manager.writer.using(ctx) as session:
        session.execute(
            sa.update(models.Conductor)
            .where(models.Conductor.hostname == host)
            .values(heartbeat_at=old)
        )


def steps_run(row):
    return row['driver_internal_info'].get('fake_steps_run', [])


def node_owned_by(ctx, host, hosts, **values):
    """A node the ring of ``hosts`` maps to ``host``."""
    ring = hash_ring.HashRing(hosts)
    while True:
        node_uuid = str(uuid.uuid4())
        if ring.get_host(node_uuid) == host:
            return make_node(ctx, uuid=node_uuid, **values)


def mid_cleaning(index, reservation=None, target=states.AVAILABLE):
    return {
        'provision_state': states.CLEANING,
        'target_provision_state': target,
        'clean_step': STEPS[index],
        'driver_internal_info': {
            'clean_steps': STEPS,
            'clean_step_index': index,
        },
        'reservation': reservation,
    }


# -- ownership and heartbeat


def test_ownership_follows_the_ring(ctx):
    alive = [
        {'hostname': HOST, 'hardware_types': HW},
        {'hostname': OTHER, 'hardware_types': HW},
    ]
    mine = node_owned_by(ctx, HOST, [HOST, OTHER])
    theirs = node_owned_by(ctx, OTHER, [HOST, OTHER])
    owner = periodics.Ownership(HOST, alive)
    assert owner.owns(mine)
    assert not owner.owns(theirs)
    assert not owner.owns({**mine, 'driver': 'ipmi'})
    assert periodics.Ownership(HOST, alive[:1]).owns(theirs)


def test_heartbeat_registers_again_when_the_row_is_gone(ctx, conf, pool):
    task = periodic(conf, pool)
    task.heartbeat()
    assert db_conductors.get(ctx, HOST)['hardware_types'] == HW
    with db_api.context_manager.writer.using(ctx) as session:
        session.execute(sa.delete(models.Conductor))
    task.heartbeat()
    assert [c['hostname'] for c in db_conductors.list_alive(ctx, 60)] == [HOST]
    assert db_conductors.get(ctx, HOST)['incarnation'] == HOLDER.incarnation


def test_heartbeat_of_a_released_name_says_the_process_was_replaced(
    ctx, conf, pool
):
    task = periodic(conf, pool)
    task.heartbeat()
    db_conductors.release(ctx, HOST)
    with pytest.raises(exception.ConductorReplaced):
        task.heartbeat()
    assert db_conductors.get(ctx, HOST)['incarnation'] is None


# -- takeover


def test_takeover_resumes_a_dead_conductors_cleaning(ctx, conf, pool):
    db_conductors.register(ctx, HOLDER, HW)
    db_conductors.register(ctx, ConductorIdentity.new(OTHER), HW)
    node = node_owned_by(
        ctx, OTHER, [HOST, OTHER], **mid_cleaning(1, reservation=OTHER)
    )
    task = periodic(conf, pool)
    # Alive, and its node is not mine: nothing happens.
    task.take_over()
    assert db_nodes.node_get(ctx, node['id'])['reservation'] == OTHER
    age(ctx, OTHER)
    task.take_over()
    row = wait_state(ctx, node, states.AVAILABLE)
    # The step at the recorded index ran again, the one before did not.
    assert steps_run(row) == ['verify_properties']
    assert row['clean_step'] == {}


def test_takeover_skips_nodes_owned_by_another_alive_conductor(
    ctx, conf, pool
):
    db_conductors.register(ctx, HOLDER, HW)
    db_conductors.register(ctx, ConductorIdentity.new(OTHER), HW)
    db_conductors.register(ctx, ConductorIdentity.new('dead'), HW)
    age(ctx, 'dead')
    theirs = node_owned_by(
        ctx, OTHER, [HOST, OTHER], **mid_cleaning(0, reservation='dead')
    )
    periodic(conf, pool).take_over()
    row = db_nodes.node_get(ctx, theirs['id'])
    # The dead lock is gone; the owner (conductor-2) resumes the node.
    assert row['reservation'] is None
    assert row['provision_state'] == states.CLEANING


def test_resume_orphans_per_state(ctx, conf):
    pool = workers.WorkerPool(5)
    db_conductors.register(ctx, HOLDER, HW)
    cleaning_no_steps = make_node(
        ctx,
        provision_state=states.CLEANING,
        target_provision_state=states.AVAILABLE,
    )
    manual_no_steps = make_node(
        ctx,
        provision_state=states.CLEANING,
        target_provision_state=states.MANAGEABLE,
    )
    verifying = make_node(ctx, provision_state=states.VERIFYING)
    deploying = make_node(ctx, provision_state=states.DEPLOYING)
    deleting = make_node(
        ctx, provision_state=states.DELETING, instance_uuid=str(uuid.uuid4())
    )
    locked = make_node(ctx, **mid_cleaning(0, reservation='api-call'))
    waiting = make_node(ctx, provision_state=states.CLEANWAIT)
    task = periodic(conf, pool)
    # A full pool: nothing changes, the next run tries again.
    slots = [pool.reserve() for _ in range(5)]
    assert task.resume_orphans(ctx) == 0
    assert db_nodes.node_get(ctx, verifying['id'])['reservation'] is None
    for slot in slots:
        slot.cancel()
    assert task.resume_orphans(ctx) == 5
    wait_state(ctx, cleaning_no_steps, states.AVAILABLE)
    row = wait_state(ctx, manual_no_steps, states.CLEANFAIL)
    assert 'request the manual cleaning again' in row['last_error']
    assert row['maintenance'] is False
    row = wait_state(ctx, verifying, states.MANAGEABLE)
    assert row['power_state'] == states.POWER_OFF
    row = wait_state(ctx, deploying, states.DEPLOYFAIL)
    assert 'deploy the node again' in row['last_error']
    row = wait_state(ctx, deleting, states.AVAILABLE)
    assert row['instance_uuid'] is None
    assert steps_run(row) == ['erase_devices_metadata', 'verify_properties']
    assert db_nodes.node_get(ctx, locked['id'])['reservation'] == 'api-call'
    assert db_nodes.node_get(ctx, waiting['id'])['provision_state'] == (
        states.CLEANWAIT
    )
    pool.shutdown(wait=True)


def test_restart_releases_own_locks_then_resumes(ctx, conf, pool):
    db_conductors.register(ctx, HOLDER, HW)
    node = make_node(ctx, **mid_cleaning(0, reservation=HOST))
    task = periodic(conf, pool)
    assert task.release_own_locks(ctx) == [node['id']]
    assert task.resume_orphans(ctx) == 1
    row = wait_state(ctx, node, states.AVAILABLE)
    assert steps_run(row) == ['erase_devices_metadata', 'verify_properties']


def test_resume_node_of_a_stable_state_does_nothing(ctx, conf):
    node = make_node(ctx, provision_state=states.MANAGEABLE)
    with task_manager.acquire(ctx, conf, node['id'], HOLDER, 't') as task:
        provisioning.resume_node(task)
    assert db_nodes.node_get(ctx, node['id'])['provision_state'] == (
        states.MANAGEABLE
    )


# -- clean wait


def waiting_node(ctx, until, **values):
    return make_node(
        ctx,
        provision_state=states.CLEANWAIT,
        target_provision_state=states.MANAGEABLE,
        clean_step=WAIT,
        driver_internal_info={
            'clean_steps': [WAIT, STEPS[1]],
            'clean_step_index': 0,
            'clean_wait_until': until,
        },
        **values,
    )


def test_clean_wait_polling(ctx, conf, pool):
    db_conductors.register(ctx, HOLDER, HW)
    done = waiting_node(ctx, 0)
    running = waiting_node(ctx, time.time() + 600)
    locked = waiting_node(ctx, 0, reservation='api-call')
    periodic(conf, pool).check_clean_wait()
    row = wait_state(ctx, done, states.MANAGEABLE)
    assert steps_run(row) == ['wait_a_bit', 'verify_properties']
    row = db_nodes.node_get(ctx, running['id'])
    assert (row['provision_state'], row['reservation']) == (
        states.CLEANWAIT,
        None,
    )
    assert db_nodes.node_get(ctx, locked['id'])['provision_state'] == (
        states.CLEANWAIT
    )


def test_clean_wait_polls_only_owned_nodes(ctx, conf, pool):
    db_conductors.register(ctx, HOLDER, HW)
    db_conductors.register(ctx, ConductorIdentity.new(OTHER), HW)
    theirs = node_owned_by(
        ctx,
        OTHER,
        [HOST, OTHER],
        provision_state=states.CLEANWAIT,
        clean_step=WAIT,
        driver_internal_info={'clean_wait_until': 0},
    )
    periodic(conf, pool).check_clean_wait()
    assert db_nodes.node_get(ctx, theirs['id'])['provision_state'] == (
        states.CLEANWAIT
    )


def test_clean_callback_timeout(ctx, pool):
    conf = make_conf(host=HOST, conductor__clean_callback_timeout=60)
    db_conductors.register(ctx, HOLDER, HW)
    late = waiting_node(ctx, time.time() + 600)
    fresh = waiting_node(ctx, time.time() + 600)
    old = lite_db.utcnow() - datetime.timedelta(seconds=61)
    db_nodes.node_update(ctx, late['id'], {'provision_updated_at': old})
    periodic(conf, pool).check_clean_wait()
    row = db_nodes.node_get(ctx, late['id'])
    assert row['provision_state'] == states.CLEANFAIL
    assert 'Timeout' in row['last_error']
    assert row['fault'] == clean_state.CLEAN_FAILURE
    assert db_nodes.node_get(ctx, fresh['id'])['provision_state'] == (
        states.CLEANWAIT
    )


def test_zero_timeout_disables_it(ctx, pool):
    conf = make_conf(host=HOST, conductor__clean_callback_timeout=0)
    db_conductors.register(ctx, HOLDER, HW)
    node = waiting_node(ctx, time.time() + 600)
    old = lite_db.utcnow() - datetime.timedelta(days=1)
    db_nodes.node_update(ctx, node['id'], {'provision_updated_at': old})
    periodic(conf, pool).check_clean_wait()
    assert db_nodes.node_get(ctx, node['id'])['provision_state'] == (
        states.CLEANWAIT
    )


def test_inspect_wait_timeout(ctx, pool):
    conf = make_conf(host=HOST, conductor__inspect_wait_timeout=60)
    db_conductors.register(ctx, HOLDER, HW)
    long_ago = lite_db.utcnow() - datetime.timedelta(seconds=61)
    late, fresh, resting = (
        make_node(
            ctx,
            provision_state=states.INSPECTWAIT,
            target_provision_state=states.MANAGEABLE,
            inspection_started_at=started,
            maintenance=maintenance,
        )
        for started, maintenance in (
            (long_ago, False),
            (lite_db.utcnow(), False),
            (long_ago, True),
        )
    )
    periodic(conf, pool).check_inspect_wait()
    row = db_nodes.node_get(ctx, late['id'])
    assert row['provision_state'] == states.INSPECTFAIL
    assert row['target_provision_state'] is None
    assert row['last_error'] == 'timeout reached while inspecting the node'
    assert row['reservation'] is None
    # Not yet, and not in maintenance (as upstream).
    for node in (fresh, resting):
        assert db_nodes.node_get(ctx, node['id'])['provision_state'] == (
            states.INSPECTWAIT
        )
    conf = make_conf(host=HOST, conductor__inspect_wait_timeout=0)
    periodic(conf, pool).check_inspect_wait()
    assert db_nodes.node_get(ctx, resting['id'])['provision_state'] == (
        states.INSPECTWAIT
    )


# -- slow conductors, lost locks, failures mid-flow


def test_a_slow_conductor_keeps_its_nodes(ctx, conf, pool):
    """A heartbeat just within [conductor]heartbeat_timeout is alive:
    its locks stay, its nodes are not resumed twice."""
    db_conductors.register(ctx, HOLDER, HW)
    db_conductors.register(ctx, ConductorIdentity.new(OTHER), HW)
    timeout = conf.conductor.heartbeat_timeout
    age(ctx, OTHER, seconds=timeout - 5)
    node = node_owned_by(
        ctx, HOST, [HOST, OTHER], **mid_cleaning(0, reservation=OTHER)
    )
    task = periodic(conf, pool)
    task.take_over()
    row = db_nodes.node_get(ctx, node['id'])
    assert (row['reservation'], row['provision_state']) == (
        OTHER,
        states.CLEANING,
    )
    assert steps_run(row) == []
    age(ctx, OTHER, seconds=timeout + 5)
    task.take_over()
    assert steps_run(wait_state(ctx, node, states.AVAILABLE)) == [
        'erase_devices_metadata',
        'verify_properties',
    ]


def test_takeover_logs_the_uuids_of_the_nodes(ctx, conf, pool, caplog):
    """At INFO an operator can follow the node: every line names it."""
    caplog.set_level('INFO', logger='ironic_lite')
    db_conductors.register(ctx, HOLDER, HW)
    db_conductors.register(ctx, ConductorIdentity.new('dead'), HW)
    age(ctx, 'dead')
    node = make_node(ctx, **mid_cleaning(1, reservation='dead'))
    periodic(conf, pool).take_over()
    wait_state(ctx, node, states.AVAILABLE)
    assert (
        f'Released the locks of dead conductor(s) dead on nodes {node["uuid"]}'
    ) in caplog.text
    assert (
        f'Node {node["uuid"]}: resuming cleaning at step '
        'management.verify_properties (index 1)' in caplog.text
    )
    lines = [
        r.getMessage()
        for r in caplog.records
        if r.name.startswith('ironic_lite.conductor')
    ]
    assert len(lines) >= 6, lines
    assert all(node['uuid'] in line for line in lines), lines
    assert any(
        'running clean step management.verify_properties' in line
        for line in lines
    ), lines
    assert any(
        'Cleaning of node' in line and 'finished' in line for line in lines
    ), lines


def test_lost_locks_are_released_on_the_second_run(ctx, conf, pool):
    """A lock this conductor holds in the database that no task holds
    (its release failed) is released, and the node resumed."""
    db_conductors.register(ctx, HOLDER, HW)
    lost = make_node(ctx, **mid_cleaning(1, reservation=HOST))
    held = make_node(ctx, provision_state=states.MANAGEABLE)
    task = periodic(conf, pool)
    with task_manager.acquire(ctx, conf, held['id'], HOLDER, 'long work'):
        task.take_over()
        # Once could be a lock being taken this very moment: wait.
        assert db_nodes.node_get(ctx, lost['id'])['reservation'] == HOST
        task.take_over()
        row = wait_state(ctx, lost, states.AVAILABLE)
        assert steps_run(row) == ['verify_properties']
        # A lock a task holds is never touched.
        assert db_nodes.node_get(ctx, held['id'])['reservation'] == HOST


def refuse_updates(ctx, when, message):
    """Make the database refuse node updates matching ``when`` (an SQL
    condition on NEW), as MariaDB refuses a value too long for its
    column: a real database error, nothing of ironic_lite replaced."""
    with db_api.context_manager.writer.using(ctx) as session:
        session.execute(
            sa.text(
                f'CREATE TRIGGER refuse_update BEFORE UPDATE ON nodes '
                f"WHEN {when} BEGIN SELECT RAISE(ABORT, '{message}'); END"
            )
        )


def test_a_database_error_after_a_step_fails_the_node(ctx, conf, pool):
    """Item 2: the write after a step fails (here: what the step
    recorded is too long for its column). The node ends in clean failed
    with last_error; it is neither left in cleaning nor run again and
    again by the takeover periodic task."""
    db_conductors.register(ctx, HOLDER, HW)
    node = make_node(
        ctx,
        provision_state=states.CLEANING,
        target_provision_state=states.AVAILABLE,
    )
    refuse_updates(
        ctx,
        "NEW.driver_internal_info LIKE '%fake_steps_run%'",
        'Data too long for column driver_internal_info',
    )
    with task_manager.acquire(ctx, conf, node['id'], HOLDER, 'clean') as task:
        task.spawn_after(pool, cleaning.do_node_clean)
    row = wait_state(ctx, node, states.CLEANFAIL)
    assert 'Data too long' in row['last_error']
    assert row['last_error'].count(node['uuid']) == 1
    assert row['maintenance'] is True
    assert row['fault'] == clean_state.CLEAN_FAILURE
    assert not set(clean_state.CLEANING_KEYS) & set(
        row['driver_internal_info']
    )
    periodic(conf, pool).take_over()
    time.sleep(0.2)
    assert db_nodes.node_get(ctx, node['id'])['provision_state'] == (
        states.CLEANFAIL
    )


def interrupted(ctx, step, attempt, **values):
    """A node whose conductor died during ``step`` (its ``attempt``-th
    start); nobody holds it."""
    return make_node(
        ctx,
        provision_state=states.CLEANING,
        target_provision_state=states.MANAGEABLE,
        clean_step=step,
        driver_internal_info={
            'clean_steps': [step, STEPS[1]],
            'clean_step_index': 0,
            'clean_step_attempt': attempt,
        },
        **values,
    )


def test_an_interrupted_idempotent_step_runs_again_a_bounded_number_of_times(
    ctx, conf, pool
):
    db_conductors.register(ctx, HOLDER, HW)
    again = interrupted(ctx, STEPS[0], 2)
    spent = interrupted(ctx, STEPS[0], 3)
    assert periodic(conf, pool).resume_orphans(ctx) == 2
    row = wait_state(ctx, again, states.MANAGEABLE)
    assert steps_run(row) == ['erase_devices_metadata', 'verify_properties']
    row = wait_state(ctx, spent, states.CLEANFAIL)
    assert steps_run(row) == []
    assert 'interrupted 3 time(s)' in row['last_error']
    assert 'clean_step_max_attempts' in row['last_error']
    assert row['maintenance'] is True


def test_an_interrupted_step_that_is_not_idempotent_never_runs_again(
    ctx, conf, pool
):
    """As upstream Ironic does with every interrupted cleaning: clean
    failed, in maintenance (the hardware is in an unknown state)."""
    db_conductors.register(ctx, HOLDER, HW)
    node = interrupted(ctx, ONCE, 1)
    between = make_node(
        ctx,
        provision_state=states.CLEANING,
        target_provision_state=states.MANAGEABLE,
        driver_internal_info={'clean_steps': [ONCE], 'clean_step_index': 0},
    )
    periodic(conf, pool).take_over()
    row = wait_state(ctx, node, states.CLEANFAIL)
    assert (
        'deploy.one_shot_work was interrupted and is not idempotent'
        in (row['last_error'])
    )
    assert (row['maintenance'], row['fault']) == (
        True,
        clean_state.CLEAN_FAILURE,
    )
    assert steps_run(row) == []
    # Stopped before it started (a conductor stopping between steps):
    # it runs, once.
    row = wait_state(ctx, between, states.MANAGEABLE)
    assert steps_run(row) == ['one_shot_work']


def test_an_interrupted_cleaning_in_maintenance_is_not_resumed(
    ctx, conf, pool
):
    db_conductors.register(ctx, HOLDER, HW)
    node = interrupted(ctx, STEPS[0], 1, maintenance=True)
    periodic(conf, pool).take_over()
    row = wait_state(ctx, node, states.CLEANFAIL)
    assert 'the node is in maintenance' in row['last_error']
    assert steps_run(row) == []


def test_takeover_polls_clean_wait_nodes_of_the_dead_at_once(ctx, conf, pool):
    """Item 8: the step of a node in clean wait on a conductor that died
    finished long ago; the conductor that takes the node over polls it
    in the takeover run itself."""
    db_conductors.register(ctx, HOLDER, HW)
    db_conductors.register(ctx, ConductorIdentity.new(OTHER), HW)
    node = node_owned_by(
        ctx,
        OTHER,
        [HOST, OTHER],
        provision_state=states.CLEANWAIT,
        target_provision_state=states.MANAGEABLE,
        clean_step=WAIT,
        driver_internal_info={
            'clean_steps': [WAIT],
            'clean_step_index': 0,
            'clean_wait_until': 0,
        },
    )
    age(ctx, OTHER)
    periodic(conf, pool).take_over()
    row = wait_state(ctx, node, states.MANAGEABLE, timeout=2)
    assert steps_run(row) == ['wait_a_bit']


def test_clean_wait_of_a_down_conductor_is_polled_by_the_next(ctx, pool):
    """Item 8: a conductor that missed two heartbeats is down, though
    not dead yet: the next conductor of the ring polls its nodes in
    clean wait (under the lock, so a slow owner loses nothing)."""
    conf = make_conf(host=HOST, conductor__heartbeat_interval=10)
    db_conductors.register(ctx, HOLDER, HW)
    db_conductors.register(ctx, ConductorIdentity.new(OTHER), HW)
    node = node_owned_by(
        ctx,
        OTHER,
        [HOST, OTHER],
        provision_state=states.CLEANWAIT,
        target_provision_state=states.MANAGEABLE,
        clean_step=WAIT,
        driver_internal_info={
            'clean_steps': [WAIT],
            'clean_step_index': 0,
            'clean_wait_until': 0,
        },
    )
    age(ctx, OTHER, seconds=15)  # one heartbeat late: up
    periodic(conf, pool).check_clean_wait()
    assert db_nodes.node_get(ctx, node['id'])['provision_state'] == (
        states.CLEANWAIT
    )
    age(ctx, OTHER, seconds=25)  # two missed: down
    periodic(conf, pool).check_clean_wait()
    wait_state(ctx, node, states.MANAGEABLE)


# -- queries per run


class QueryCounter:
    def __init__(self):
        self.count = 0

    def __call__(self, *args):
        self.count += 1

    def run(self, func):
        engine = db_api.get_engine()
        self.count = 0
        sa.event.listen(engine, 'before_cursor_execute', self)
        try:
            func()
        finally:
            sa.event.remove(engine, 'before_cursor_execute', self)
        return self.count


def _add_nodes(ctx, count):
    for _ in range(count):
        # Owned, their asynchronous step still running.
        waiting_node(ctx, time.time() + 600)
        # Another alive conductor's, being cleaned or waiting.
        node_owned_by(
            ctx, OTHER, [HOST, OTHER], **mid_cleaning(0, reservation=OTHER)
        )
        node_owned_by(
            ctx,
            OTHER,
            [HOST, OTHER],
            provision_state=states.CLEANWAIT,
            clean_step=WAIT,
            driver_internal_info={'clean_wait_until': 0},
        )
        make_node(ctx, provision_state=states.AVAILABLE)


def test_periodic_tasks_make_a_constant_number_of_queries(ctx, conf, pool):
    db_conductors.register(ctx, HOLDER, HW)
    db_conductors.register(ctx, ConductorIdentity.new(OTHER), HW)
    task = periodic(conf, pool)
    counter = QueryCounter()
    counts = []
    for count in (2, 20):
        _add_nodes(ctx, count)
        counts.append(
            (
                counter.run(task.take_over),
                counter.run(task.check_clean_wait),
                counter.run(task.check_inspect_wait),
                counter.run(task.heartbeat),
            )
        )
    # SQL statements (one more per transaction: the connection check).
    assert counts[0] == counts[1], counts
    take_over, clean_wait, inspect_wait, heartbeat = counts[0]
    assert take_over <= 8 and clean_wait <= 4, counts
    assert inspect_wait <= 2 and heartbeat <= 2, counts


def test_an_orphaned_inspection_fails(ctx, conf):
    pool = workers.WorkerPool(5)
    db_conductors.register(ctx, HOLDER, HW)
    inspecting = make_node(
        ctx,
        provision_state=states.INSPECTING,
        target_provision_state=states.MANAGEABLE,
    )
    assert periodic(conf, pool).resume_orphans(ctx) == 1
    row = wait_state(ctx, inspecting, states.INSPECTFAIL)
    assert 'inspect it again' in row['last_error']
    assert row['target_provision_state'] is None
    pool.shutdown(wait=True)


def test_an_orphaned_adoption_fails(ctx, conf):
    pool = workers.WorkerPool(5)
    db_conductors.register(ctx, HOLDER, HW)
    adopting = make_node(
        ctx,
        provision_state=states.ADOPTING,
        target_provision_state=states.ACTIVE,
    )
    assert periodic(conf, pool).resume_orphans(ctx) == 1
    row = wait_state(ctx, adopting, states.ADOPTFAIL)
    assert 'adopt the node again' in row['last_error']
    assert row['target_provision_state'] is None
    pool.shutdown(wait=True)


@pytest.mark.parametrize(
    ('state', 'target', 'failed', 'says'),
    [
        (
            states.RESCUING,
            states.RESCUE,
            states.RESCUEFAIL,
            'rescue the node again',
        ),
        (
            states.UNRESCUING,
            states.ACTIVE,
            states.UNRESCUEFAIL,
            'unrescue the node again',
        ),
    ],
)
def test_an_orphaned_rescue_or_unrescue_fails(
    ctx, conf, state, target, failed, says
):
    pool = workers.WorkerPool(5)
    db_conductors.register(ctx, HOLDER, HW)
    node = make_node(ctx, provision_state=state, target_provision_state=target)
    assert periodic(conf, pool).resume_orphans(ctx) == 1
    row = wait_state(ctx, node, failed)
    assert says in row['last_error']
    assert row['target_provision_state'] is None
    pool.shutdown(wait=True)
