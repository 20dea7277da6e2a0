"""Server tags and the tag filters on every backend (the all-of filter
is a GROUP BY / HAVING subquery; none of them reads per row)."""

from lite_common import context as lite_context
from lite_common.tests.backends import db_url  # noqa: F401
from nova_lite.db import instances
from nova_lite.db import tags
from nova_lite.tests import database
from nova_lite.tests.unit.test_db_api import make_instance


def _names(ctx, **filters):
    rows = instances.instance_get_all(ctx, {'project_id': 'p1', **filters})
    return sorted(row['display_name'] for row in rows)


def test_tag_filters(db_url):  # noqa: F811
    ctx = lite_context.get_admin_context()
    with database.temporary_database(db_url):
        servers = {
            name: make_instance(ctx, display_name=name)['uuid']
            for name in ('a', 'b', 'c')
        }
        tags.replace(ctx, servers['a'], ['red', 'web'])
        tags.replace(ctx, servers['b'], ['red'])
        assert tags.add(ctx, servers['c'], 'blue') is True
        assert tags.add(ctx, servers['c'], 'blue') is False
        assert _names(ctx, tags=['red', 'web']) == ['a']
        assert _names(ctx, tags=['red']) == ['a', 'b']
        assert _names(ctx, **{'tags-any': ['web', 'blue']}) == ['a', 'c']
        assert _names(ctx, **{'not-tags': ['red', 'web']}) == ['b', 'c']
        assert _names(ctx, **{'not-tags-any': ['red']}) == ['c']
        assert tags.for_servers(ctx, servers.values()) == {
            servers['a']: ['red', 'web'],
            servers['b']: ['red'],
            servers['c']: ['blue'],
        }
