"""Server list filters on every backend: ``name`` is a regular
expression searched in the name (REGEXP, ~, Python's re), as upstream;
``changes_since`` bounds updated_at."""

import datetime

from lite_common import context as lite_context
from lite_common.tests.backends import db_url  # noqa: F401
from nova_lite.db import instances
from nova_lite.tests import database
from nova_lite.tests.unit.test_db_api import make_instance


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
