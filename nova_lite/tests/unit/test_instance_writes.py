"""Instance writes on the conductor: the task-state compare-and-swap is
one conditional UPDATE (two writers cannot both win, on any backend),
and host, node and compute_id always name one compute node."""

import threading
import time

from oslo_db import exception as db_exc
import pytest
import sqlalchemy as sa

from lite_common import context as lite_context
from lite_common import db_retry
from lite_common.tests import backends
from nova_lite import exception
from nova_lite.db import instances
from nova_lite.tests import database
from nova_lite.tests.unit.test_db_api import make_instance
from nova_lite.tests.unit.test_db_api import make_node
from nova_lite.tests.unit.test_db_api import make_service

db_url = backends.db_url
WRITERS = 4
# Long enough that every writer reads before any writes, if reading
# and writing were separate steps.
DELAY = 0.4


@pytest.fixture
def backend_db(db_url):
    with database.temporary_database(db_url) as manager:
        yield manager


def _slow_reads_of_instances(engine):
    """Every SELECT of the instances table waits DELAY after it ran: a
    read-then-write would let every writer read the old task state."""

    def after(conn, cursor, statement, params, context, many):
        text = statement.lstrip().upper()
        if text.startswith('SELECT') and 'FROM INSTANCES' in text:
            time.sleep(DELAY)

    sa.event.listen(engine, 'after_cursor_execute', after)
    return lambda: sa.event.remove(engine, 'after_cursor_execute', after)


def _race(uuid):
    """WRITERS threads each try to start its own task (expecting None)."""
    results = [None] * WRITERS
    barrier = threading.Barrier(WRITERS)

    def write(index):
        ctx = lite_context.get_admin_context()
        barrier.wait()
        try:
            instances.instance_update(
                ctx,
                uuid,
                {'task_state': f'task-{index}'},
                expected_task_state=[None],
            )
            results[index] = 'won'
        except exception.UnexpectedTaskState as exc:
            results[index] = exc.kwargs['actual']

    threads = [
        threading.Thread(target=write, args=(i,)) for i in range(WRITERS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def test_one_writer_wins_the_task_state(backend_db):
    ctx = lite_context.get_admin_context()
    inst = make_instance(ctx, task_state=None)
    restore = _slow_reads_of_instances(backend_db.writer.get_engine())
    try:
        results = _race(inst['uuid'])
    finally:
        restore()
    assert results.count('won') == 1, results
    stored = instances.instance_get_by_uuid(ctx, inst['uuid'])['task_state']
    winner = results.index('won')
    assert stored == f'task-{winner}', (stored, results)
    # The losers saw the winner's task (or, on a retry, another loser's
    # never-written value cannot appear).
    assert all(r == stored for r in results if r != 'won'), results


def test_unexpected_task_state_writes_nothing(ctx):
    inst = make_instance(ctx, task_state='deleting', vm_state='active')
    with pytest.raises(exception.UnexpectedTaskState) as err:
        instances.instance_update(
            ctx,
            inst['uuid'],
            {'vm_state': 'error'},
            expected_task_state=[None, 'spawning'],
        )
    assert err.value.kwargs['actual'] == 'deleting'
    assert (
        instances.instance_get_by_uuid(ctx, inst['uuid'])['vm_state']
        == 'active'
    )
    with pytest.raises(exception.InstanceNotFound):
        instances.instance_update(
            ctx, 'no-such-uuid', {'vm_state': 'x'}, expected_task_state=[None]
        )


def _two_nodes(ctx):
    one = make_service(ctx, host='h1')
    two = make_service(ctx, host='h2')
    return (
        make_node(ctx, one['id'], host='h1', name='n1'),
        make_node(ctx, two['id'], host='h2', name='n2'),
    )


@pytest.mark.parametrize(
    'change',
    [
        # compute_id alone moves to another host's node
        lambda n1, n2: {'compute_id': n2['id']},
        # node alone changes while compute_id keeps its old value
        lambda n1, n2: {'node': 'n2'},
        # host and node move, compute_id stays behind
        lambda n1, n2: {'host': 'h2', 'node': 'n2'},
        # a node without compute_id, and compute_id without a node
        lambda n1, n2: {'compute_id': None},
        lambda n1, n2: {'node': None},
        # all three, but the id is of another host's node
        lambda n1, n2: {'host': 'h1', 'node': 'n1', 'compute_id': n2['id']},
        # a compute node that does not exist
        lambda n1, n2: {'compute_id': n2['id'] + 100},
    ],
)
def test_placement_must_name_one_node(ctx, change):
    n1, n2 = _two_nodes(ctx)
    inst = make_instance(ctx, host='h1', node='n1', compute_id=n1['id'])
    with pytest.raises(exception.ObjectActionError):
        instances.instance_update(ctx, inst['uuid'], change(n1, n2))
    stored = instances.instance_get_by_uuid(ctx, inst['uuid'])
    assert (stored['host'], stored['node'], stored['compute_id']) == (
        'h1',
        'n1',
        n1['id'],
    )


def test_placement_moves_together_or_clears(ctx):
    n1, n2 = _two_nodes(ctx)
    inst = make_instance(ctx, host='h1', node='n1', compute_id=n1['id'])
    moved = instances.instance_update(
        ctx, inst['uuid'], {'host': 'h2', 'node': 'n2', 'compute_id': n2['id']}
    )
    assert moved['compute_id'] == n2['id']
    # Shelved offloaded: host, node and compute_id all unset.
    cleared = instances.instance_update(
        ctx, inst['uuid'], {'host': None, 'node': None, 'compute_id': None}
    )
    assert cleared['node'] is None and cleared['compute_id'] is None


def test_create_refuses_a_placement_that_names_no_node(ctx):
    n1, _n2 = _two_nodes(ctx)
    with pytest.raises(exception.ObjectActionError):
        make_instance(ctx, host='h2', node='n1', compute_id=n1['id'])
    with pytest.raises(exception.ObjectActionError):
        make_instance(ctx, host='h1', node='n1')


def test_a_task_state_swap_whose_commit_went_unseen_succeeds_again(ctx):
    """Run again after an attempt whose commit went unseen (issue 29: a
    spawning server stayed in BUILD for ever: the conductor's save was
    stored, its answer lost, and the save run again found 'spawning'
    where it expected 'scheduling'), the swap finds its own change and
    succeeds; a change of someone else's is still a conflict."""
    inst = make_instance(ctx, task_state='scheduling')
    attempts = []

    @db_retry.retried(rechecks=True)
    def save_then_lose(context):
        attempts.append(1)
        row = instances.instance_update(
            context,
            inst['uuid'],
            {'task_state': 'spawning'},
            expected_task_state='scheduling',
        )
        if len(attempts) == 1:
            raise db_exc.DBConnectionError()  # after the commit
        return row

    assert save_then_lose(ctx)['task_state'] == 'spawning'
    assert len(attempts) == 2
    with pytest.raises(exception.UnexpectedTaskState):
        instances.instance_update(
            ctx,
            inst['uuid'],
            {'task_state': 'spawning'},
            expected_task_state='scheduling',
        )


def test_a_destroy_whose_commit_went_unseen_succeeds_again(ctx):
    inst = make_instance(ctx)
    attempts = []

    @db_retry.retried(rechecks=True)
    def destroy_then_lose(context):
        attempts.append(1)
        row = instances.instance_destroy(context, inst['uuid'])
        if len(attempts) == 1:
            raise db_exc.DBConnectionError()  # after the commit
        return row

    assert destroy_then_lose(ctx)['vm_state'] == 'deleted'
    with pytest.raises(exception.InstanceNotFound):
        instances.instance_destroy(ctx, inst['uuid'])
