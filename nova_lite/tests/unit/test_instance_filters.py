"""Server list filters on every backend: ``name`` is a regular
expression searched in the name (REGEXP, ~, Python's re), as upstream;
``changes_since`` bounds updated_at."""

import datetime

from lite_common import context as lite_context
from lite_common.tests.backends import db_url  # noqa: F401
from nova_lite import exception
from nova_lite.db import flavors
from nova_lite.db import instances
from nova_lite.tests import database
from nova_lite.tests.unit.test_db_api import make_instance
from nova_lite.tests.unit.test_db_api import make_legacy_instance
from nova_lite.tests.unit.test_db_api import make_node


def _names(ctx, **filters):
    rows = instances.instance_get_all(ctx, {'project_id': 'p1', **filters})
    return sorted(row['display_name'] for row in rows)


def test_name_is_a_regular_expression(db_url):  # noqa: F811
    ctx = lite_context.get_admin_context()
    with database.temporary_database(db_url):
        for name in ('web-1', 'web-2', 'db-1', 'a.b'):
            make_instance(ctx, display_name=name)
        assert _names(ctx, name='^web-') == ['web-1', 'web-2']
        assert _names(ctx, name='-1$') == ['db-1', 'web-1']
        assert _names(ctx, name='b-') == ['db-1', 'web-1', 'web-2']
        assert _names(ctx, name='a[.]b') == ['a.b']
        assert _names(ctx, name='^x') == []


def test_changes_since(db_url):  # noqa: F811
    ctx = lite_context.get_admin_context()
    with database.temporary_database(db_url):
        changed = make_instance(ctx, display_name='changed')
        make_instance(ctx, display_name='untouched')
        instances.instance_update(ctx, changed['uuid'], {'vm_state': 'active'})
        future = datetime.datetime(2999, 1, 1)
        assert _names(ctx, changes_since=future) == []
        past = datetime.datetime(2000, 1, 1)
        # As upstream: updated_at >= changes-since, so a record never
        # updated since its creation is not "changed".
        assert _names(ctx, changes_since=past) == ['changed']


def _flavor(ctx, flavorid):
    return flavors.flavor_create(
        ctx,
        {
            'flavorid': flavorid,
            'name': flavorid,
            'vcpus': 1,
            'memory_mb': 64,
            'root_gb': 0,
            'ephemeral_gb': 0,
            'swap': 0,
        },
    )


def test_flavor_filter_follows_a_resize(db_url):  # noqa: F811
    """instance_type_id is kept with the flavor snapshot: written on
    create and on every update of ``flavor`` (a resize)."""
    ctx = lite_context.get_admin_context()
    with database.temporary_database(db_url):
        small, large = _flavor(ctx, 'small'), _flavor(ctx, 'large')
        moved = make_instance(
            ctx, display_name='moved', flavor={'flavorid': 'small'}
        )
        make_instance(ctx, display_name='stays', flavor={'flavorid': 'small'})
        make_instance(
            ctx, display_name='gone-flavor', flavor={'flavorid': 'deleted-one'}
        )
        assert _names(ctx, instance_type_id=small['id']) == ['moved', 'stays']
        instances.instance_update(
            ctx, moved['uuid'], {'flavor': {'flavorid': 'large'}}
        )
        assert _names(ctx, instance_type_id=small['id']) == ['stays']
        assert _names(ctx, instance_type_id=large['id']) == ['moved']


def test_sort_order_as_upstream():
    assert instances.sort_order([], []) == [
        ('created_at', 'desc'),
        ('id', 'desc'),
    ]
    assert instances.sort_order(['display_name', 'host'], ['asc']) == [
        ('display_name', 'asc'),
        ('host', 'asc'),
        ('created_at', 'asc'),
        ('id', 'asc'),
    ]
    for keys, dirs in ((['host'], ['up']), (['host'], ['asc', 'desc'])):
        try:
            instances.sort_order(keys, dirs)
        except exception.Invalid:
            continue
        raise AssertionError(f'{keys} {dirs} accepted')


def test_compute_id_takes_a_list(db_url):  # noqa: F811
    """A list of compute_id values: the instances of an agent's nodes in
    one query (a bare metal agent serves many); one value as before."""
    ctx = lite_context.get_admin_context()
    with database.temporary_database(db_url):
        ids = [make_node(ctx, name=f'node-{n}')['id'] for n in range(3)]
        for number, compute_id in enumerate((*ids, None)):
            make_legacy_instance(
                ctx, display_name=f'on-{number}', compute_id=compute_id
            )
        assert _names(ctx, compute_id=[ids[0], ids[2]]) == ['on-0', 'on-2']
        assert _names(ctx, compute_id=ids[1]) == ['on-1']
        assert _names(ctx, compute_id=[]) == []
