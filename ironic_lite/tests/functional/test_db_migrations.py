"""The ironic_lite models and alembic migrations describe one schema.

Run on SQLite (a file), MariaDB and PostgreSQL (the ``db_url`` fixture
of :mod:`lite_common.tests.backends`).
"""

import threading
import uuid

from oslo_db import exception as db_exc
import pytest

from ironic_lite import exception
from ironic_lite.common.conductor_identity import ConductorIdentity
from ironic_lite.db import api as db_api
from ironic_lite.db import conductors
from ironic_lite.db import migration
from ironic_lite.db import models
from ironic_lite.db import node_locks
from ironic_lite.db import nodes
from ironic_lite.tests import db_fixture
from lite_common import db as lite_db
from lite_common.tests import backends
from lite_common.tests import schema_contract

db_url = backends.db_url


engine = schema_contract.engine_fixture(db_api)


def _schema_diff(engine):
    return schema_contract.schema_diff(engine, models.Base.metadata)


#: The newest migration (the merge re-chains helpers' migrations).
HEAD = '0018'


class TestSchema(schema_contract.MigrationsMatchModels):
    migration = migration
    metadata = models.Base.metadata
    head = HEAD


def test_unique_constraints_name_their_column(engine):
    """Each backend refuses duplicates, and oslo.db names the column
    (ironic_lite.db.nodes turns it into DuplicateName and friends);
    many nodes may have no name and no instance."""
    migration.db_sync(engine)
    nodes = models.Node.__table__
    row = {
        'driver': 'fake-hardware',
        'provision_state': 'enroll',
        'maintenance': False,
        'driver_info': {},
        'driver_internal_info': {},
        'properties': {},
        'instance_info': {},
        'clean_step': {},
        'created_at': lite_db.utcnow(),
    }
    first = {
        'uuid': str(uuid.uuid4()),
        'name': 'n1',
        'instance_uuid': str(uuid.uuid4()),
    }
    with engine.begin() as conn:
        for _ in range(2):
            conn.execute(nodes.insert().values(uuid=str(uuid.uuid4()), **row))
        conn.execute(nodes.insert().values(**first, **row))
    for column in ('uuid', 'name', 'instance_uuid'):
        values = {'uuid': str(uuid.uuid4()), column: first[column]}
        with pytest.raises(db_exc.DBDuplicateEntry) as info:
            with engine.begin() as conn:
                conn.execute(nodes.insert().values(**values, **row))
        assert info.value.columns == [column]


@pytest.mark.parametrize('db_url', ['sqlite'], indirect=True)
def test_schema_comparison_sees_drift(engine):
    """The comparison is not vacuous: drift is reported."""
    migration.db_sync(engine)
    with engine.begin() as conn:
        conn.exec_driver_sql('DROP INDEX nodes_reservation_idx')
        conn.exec_driver_sql(
            'ALTER TABLE nodes ADD COLUMN bogus_drift INTEGER'
        )
    diff = _schema_diff(engine)
    assert len(diff) == 2, diff
    by_kind = {d[0]: d for d in diff}
    assert by_kind['add_index'][1].name == 'nodes_reservation_idx'
    _, _, table, column = by_kind['remove_column']
    assert (table, column.name) == ('nodes', 'bogus_drift')


@pytest.fixture
def ctx(db_url):
    """ironic_lite.db functions pointed at a migrated ``db_url``."""
    with db_fixture.migrated_db(db_url) as context:
        yield context


def test_backend_semantics_of_the_node_functions(ctx):
    """What differs between backends: NULL ordering in paging, the
    duplicate detection and the atomic reserve under contention."""
    for name in ('b', None, 'a', None):
        nodes.node_create(ctx, {'driver': 'fake-hardware', 'name': name})
    with pytest.raises(exception.DuplicateName):
        nodes.node_create(ctx, {'driver': 'fake-hardware', 'name': 'a'})
    for sort_dir in ('asc', 'desc'):
        seen, marker = [], None
        while page := nodes.node_list(
            ctx, limit=1, marker=marker, sort_key='name', sort_dir=sort_dir
        ):
            seen.append(page[0]['name'])
            marker = page[0]['uuid']
        expected = ['a', 'b', None, None]
        assert seen == (expected if sort_dir == 'asc' else expected[::-1])

    node_id = nodes.node_list(ctx, limit=1)[0]['id']
    holders = [ConductorIdentity.new(f'cond{i}') for i in range(8)]
    for holder in holders:
        conductors.register(ctx, holder, ['fake-hardware'])
    winners = []
    barrier = threading.Barrier(len(holders))

    def try_reserve(holder):
        barrier.wait()
        try:
            node_locks.reserve(ctx, holder, node_id)
            winners.append(holder)
        except exception.NodeLocked:
            pass

    threads = [
        threading.Thread(target=try_reserve, args=(h,)) for h in holders
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(winners) == 1
    assert nodes.node_get(ctx, node_id)['reservation'] == winners[0].host
    # A replacement of the winner (its heartbeat found old) fences it
    # at once, on every backend.
    new = ConductorIdentity.new(winners[0].host)
    conductors.register(ctx, new, ['fake-hardware'], heartbeat_timeout=0)
    with pytest.raises(exception.NodeNotLocked):
        nodes.node_update(ctx, node_id, {'name': 'x'}, locked_by=winners[0])
    assert node_locks.clear_own(ctx, winners[0]) == []
    assert [i for i, _u in node_locks.clear_own(ctx, new)] == [node_id]


@pytest.mark.parametrize('db_url', ['mysql'], indirect=True)
def test_a_write_too_long_for_its_column_fails_the_cleaning(ctx):
    """Item 2 on the backend it happened on: MariaDB refuses a
    driver_internal_info longer than its TEXT column (DBDataError 1406).
    The cleaning ends in clean failed with last_error, unlocked; it was
    left in cleaning to be resumed, and fail, forever."""
    from ironic_lite.common import states
    from ironic_lite.conductor import cleaning
    from ironic_lite.conductor import task_manager
    from ironic_lite.conductor import workers
    from ironic_lite.tests.unit import make_conf

    conf = make_conf(host='conductor-1')
    pool = workers.WorkerPool(3)
    node = nodes.node_create(
        ctx,
        {
            'driver': 'fake-hardware',
            'provision_state': states.CLEANING,
            'target_provision_state': states.MANAGEABLE,
        },
    )
    huge = [
        {
            'interface': 'deploy',
            'step': 'erase_devices',
            'args': {'passes': 1},
            'abortable': False,
            'idempotent': True,
            'priority': 0,
        }
    ] * 1000
    holder = ConductorIdentity.new('conductor-1')
    conductors.register(ctx, holder, ['fake-hardware'])
    with task_manager.acquire(
        ctx, conf, node['uuid'], holder, 'clean'
    ) as task:
        task.spawn_after(pool, cleaning.do_node_clean, huge)
    pool.shutdown(wait=True)
    row = nodes.node_get(ctx, node['id'])
    assert row['provision_state'] == states.CLEANFAIL
    assert row['reservation'] is None
    assert 'Data too long' in row['last_error']
    assert 'clean_steps' not in row['driver_internal_info']
