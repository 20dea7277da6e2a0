"""Quota enforcement in the database: concurrent creates of one project
cannot together exceed its limits, on every backend; max_count is
bounded by what is left; deleted instances and other projects do not
count; a resize's growth is checked."""

import threading
import time

from oslo_config import cfg
from oslo_utils import uuidutils
import pytest
import sqlalchemy as sa

from lite_common import context as lite_context
from lite_common.tests import backends
from nova_lite import exception
from nova_lite.conf import quota as quota_conf
from nova_lite.db import instances
from nova_lite.db import moves
from nova_lite.db import quotas
from nova_lite.tests import database

db_url = backends.db_url
WRITERS = 6
# Long enough that every writer counts before any inserts, if counting
# and inserting were not serialised by the project's lock row.
DELAY = 0.4
TINY = {'instances': 1, 'cores': 1, 'ram': 512}


@pytest.fixture(autouse=True)
def quota_options():
    quota_conf.register_opts(cfg.CONF)


@pytest.fixture
def backend_db(db_url):
    with database.temporary_database(db_url) as manager:
        yield manager


def _values(project_id, per_item=TINY):
    def make(index, count):
        return {
            'uuid': uuidutils.generate_uuid(),
            'project_id': project_id,
            'user_id': 'u1',
            'flavor': {'name': 'tiny'},
            'vm_state': 'building',
            'vcpus': per_item['cores'],
            'memory_mb': per_item['ram'],
            'root_gb': 1,
            'display_name': f'vm-{index}',
        }

    return make


def _slow_counts(engine):
    """Every SELECT of the instances table waits DELAY after it ran."""

    def after(conn, cursor, statement, params, context, many):
        text = statement.lstrip().upper()
        if text.startswith('SELECT') and 'FROM INSTANCES' in text:
            time.sleep(DELAY)

    sa.event.listen(engine, 'after_cursor_execute', after)
    return lambda: sa.event.remove(engine, 'after_cursor_execute', after)


def _race(project_id, low, high):
    """WRITERS threads each create between low and high instances."""
    results = [None] * WRITERS
    barrier = threading.Barrier(WRITERS)

    def create(index):
        ctx = lite_context.get_admin_context()
        barrier.wait()
        try:
            results[index] = len(
                quotas.create_instances(
                    ctx, project_id, TINY, low, high, _values(project_id)
                )
            )
        except exception.TooManyInstances:
            results[index] = 'over'

    threads = [
        threading.Thread(target=create, args=(i,)) for i in range(WRITERS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return results


def _live(ctx, project_id):
    return len(instances.instance_get_all(ctx, {'project_id': project_id}))


def test_concurrent_creates_stay_within_the_quota(backend_db):
    ctx = lite_context.get_admin_context()
    quotas.quota_set(ctx, 'p1', {'instances': 3})
    restore = _slow_counts(backend_db.writer.get_engine())
    try:
        results = _race('p1', 1, 1)
    finally:
        restore()
    assert sorted(results, key=str) == [1, 1, 1, 'over', 'over', 'over'], (
        results
    )
    assert _live(ctx, 'p1') == 3


def test_concurrent_max_counts_share_what_is_left(backend_db):
    ctx = lite_context.get_admin_context()
    quotas.quota_set(ctx, 'p1', {'cores': 5})
    restore = _slow_counts(backend_db.writer.get_engine())
    try:
        results = _race('p1', 1, 2)
    finally:
        restore()
    created = [r for r in results if r != 'over']
    assert sum(created) == 5, results
    assert _live(ctx, 'p1') == 5


def test_max_count_is_bounded_and_min_count_must_fit(ctx):
    quotas.quota_set(ctx, 'p1', {'cores': 20})
    quad = {'instances': 1, 'cores': 4, 'ram': 1024}
    created = quotas.create_instances(
        ctx, 'p1', quad, 1, 300, _values('p1', quad)
    )
    assert len(created) == 5
    with pytest.raises(exception.TooManyInstances) as err:
        quotas.create_instances(ctx, 'p1', quad, 1, 1, _values('p1', quad))
    assert err.value.format_message() == (
        'Quota exceeded for cores: Requested 4, but already used 20 of '
        '20 cores'
    )


def test_several_resources_over_are_named_together(ctx):
    quotas.quota_set(ctx, 'p1', {'instances': 1, 'cores': 1})
    quotas.create_instances(ctx, 'p1', TINY, 1, 1, _values('p1'))
    with pytest.raises(exception.TooManyInstances) as err:
        quotas.create_instances(ctx, 'p1', TINY, 2, 2, _values('p1'))
    assert err.value.format_message() == (
        'Quota exceeded for instances, cores: Requested 2, 2, but already '
        'used 1, 1 of 1, 1 instances, cores'
    )


def test_unlimited_and_other_projects(ctx):
    quotas.quota_set(ctx, 'p1', {'instances': -1, 'cores': -1, 'ram': -1})
    assert (
        len(quotas.create_instances(ctx, 'p1', TINY, 1, 50, _values('p1')))
        == 50
    )
    # p2 keeps the defaults (10 instances) and p1's do not count.
    assert (
        len(quotas.create_instances(ctx, 'p2', TINY, 1, 50, _values('p2')))
        == 10
    )


def test_deleted_instances_stop_counting(ctx):
    quotas.quota_set(ctx, 'p1', {'instances': 1})
    (first,) = quotas.create_instances(ctx, 'p1', TINY, 1, 1, _values('p1'))
    with pytest.raises(exception.TooManyInstances):
        quotas.create_instances(ctx, 'p1', TINY, 1, 1, _values('p1'))
    instances.instance_destroy(ctx, first['uuid'])
    assert quotas.project_usage(ctx, 'p1') == {
        'instances': 0,
        'cores': 0,
        'ram': 0,
    }
    quotas.create_instances(ctx, 'p1', TINY, 1, 1, _values('p1'))


def _resize(ctx, inst, vcpus, memory_mb):
    flavor = {'flavorid': 'big', 'vcpus': vcpus, 'memory_mb': memory_mb}
    return moves.begin_move(
        ctx,
        inst['uuid'],
        {'task_state': 'resize_prep', 'new_flavor': flavor},
        {
            'uuid': uuidutils.generate_uuid(),
            'instance_uuid': inst['uuid'],
            'migration_type': 'resize',
            'status': 'pre-migrating',
        },
        quota_project='p1',
    )


def test_a_resize_grows_only_within_the_quota(ctx):
    quotas.quota_set(ctx, 'p1', {'cores': 3})
    one, _two = quotas.create_instances(ctx, 'p1', TINY, 2, 2, _values('p1'))
    with pytest.raises(exception.TooManyInstances) as err:
        _resize(ctx, one, 3, 512)
    assert err.value.format_message() == (
        'Quota exceeded for cores: Requested 2, but already used 2 of 3 cores'
    )
    assert (
        instances.instance_get_by_uuid(ctx, one['uuid'])['task_state'] is None
    )
    _resize(ctx, one, 2, 512)
    # While it runs, the resize counts its larger flavor.
    assert quotas.project_usage(ctx, 'p1')['cores'] == 3
    with pytest.raises(exception.TooManyInstances):
        quotas.create_instances(ctx, 'p1', TINY, 1, 1, _values('p1'))


def test_the_default_class_feeds_every_project_and_is_enforced(ctx):
    quotas.quota_set(ctx, quotas.class_key('default'), {'instances': 2})
    quotas.quota_set(ctx, quotas.class_key('gold'), {'instances': 9})
    assert quotas.project_quotas(ctx, None)['instances'] == 2
    assert quotas.class_quotas(ctx, 'gold')['instances'] == 9
    assert quotas.class_quotas(ctx, 'gold')['cores'] == 20
    assert (
        len(quotas.create_instances(ctx, 'p1', TINY, 1, 5, _values('p1'))) == 2
    )
    # A project's own row wins over the class.
    quotas.quota_set(ctx, 'p2', {'instances': 3})
    assert (
        len(quotas.create_instances(ctx, 'p2', TINY, 1, 5, _values('p2'))) == 3
    )
