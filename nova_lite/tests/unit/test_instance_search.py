"""The 2.83 server list filters in the database, on every backend:
regular expressions searched in a column's text (times as
``YYYY-MM-DD HH:MM:SS``, power_state as its number), a time within one
second, and the progress a server shows."""

import datetime

from lite_common import context as lite_context
from lite_common.tests.backends import db_url  # noqa: F401
from nova_lite.api import server_filters
from nova_lite.api.views import servers as views
from nova_lite.db import instances
from nova_lite.tests import database
from nova_lite.tests.unit.test_db_api import make_instance

BUSY = sorted(views.ACTIVE_BUSY_TASKS)


def _names(ctx, **filters):
    rows = instances.instance_get_all(ctx, {'project_id': 'p1', **filters})
    return sorted(row['display_name'] for row in rows)


def _servers(ctx):
    make_instance(
        ctx,
        display_name='a',
        availability_zone='zone-1',
        key_name='key-a',
        config_drive='True',
        power_state=1,
        vm_state='active',
        launched_at=datetime.datetime(2020, 5, 1, 10, 0, 0, 250),
    )
    make_instance(
        ctx,
        display_name='b',
        availability_zone='zone-12',
        key_name='other',
        config_drive='',
        power_state=4,
        vm_state='stopped',
        launched_at=datetime.datetime(2021, 6, 2, 11, 30, 5),
    )
    make_instance(
        ctx,
        display_name='c',
        vm_state='active',
        task_state='rebooting',
        power_state=1,
    )


def test_searched_columns(db_url):  # noqa: F811
    ctx = lite_context.get_admin_context()
    with database.temporary_database(db_url):
        _servers(ctx)
        assert _names(ctx, search={'availability_zone': 'zone-1'}) == [
            'a',
            'b',
        ]
        assert _names(ctx, search={'availability_zone': '^zone-1$'}) == ['a']
        assert _names(ctx, search={'key_name': 'key'}) == ['a']
        assert _names(ctx, search={'config_drive': 'True'}) == ['a']
        assert _names(ctx, search={'power_state': '^1$'}) == ['a', 'c']
        assert _names(ctx, search={'power_state': '4'}) == ['b']
        # NULL matches no expression, as upstream.
        assert _names(ctx, search={'key_name': '.*'}) == ['a', 'b']


def test_times_as_text(db_url):  # noqa: F811
    ctx = lite_context.get_admin_context()
    with database.temporary_database(db_url):
        _servers(ctx)
        assert _names(ctx, search={'launched_at': '^2020-05'}) == ['a']
        assert _names(ctx, search={'launched_at': '2021-06-02 11:30:05$'}) == [
            'b'
        ]
        assert _names(ctx, search={'launched_at': '10:00:00$'}) == ['a']
        assert _names(ctx, search={'launched_at': 'T'}) == []
        assert _names(ctx, search={'created_at': '^2'}) == ['a', 'b', 'c']


def test_a_time_within_its_second(db_url):  # noqa: F811
    ctx = lite_context.get_admin_context()
    with database.temporary_database(db_url):
        _servers(ctx)
        when = datetime.datetime(2020, 5, 1, 10, 0, 0)
        assert _names(ctx, at={'launched_at': when}) == ['a']
        assert _names(ctx, at={'launched_at': when.replace(second=1)}) == []
        assert _names(ctx, at={'terminated_at': when}) == []


def test_progress_shown(db_url):  # noqa: F811
    ctx = lite_context.get_admin_context()
    with database.temporary_database(db_url):
        _servers(ctx)
        # 'c' is active but rebooting: REBOOT, progress 0.
        assert _names(ctx, progress='^100$', active_busy_tasks=BUSY) == ['a']
        assert _names(ctx, progress='^0$', active_busy_tasks=BUSY) == [
            'b',
            'c',
        ]
        assert _names(ctx, progress='0', active_busy_tasks=BUSY) == [
            'a',
            'b',
            'c',
        ]
        assert _names(ctx, progress='^5', active_busy_tasks=BUSY) == []


def test_exact_states_and_user(db_url):  # noqa: F811
    ctx = lite_context.get_admin_context()
    with database.temporary_database(db_url):
        _servers(ctx)
        make_instance(ctx, display_name='d', user_id='u2')
        assert _names(ctx, vm_state=['active']) == ['a', 'c']
        assert _names(ctx, task_state=['rebooting']) == ['c']
        assert _names(ctx, user_id='u2') == ['d']


def test_iso_8601_timestamps_of_the_api():
    """An ISO 8601 date and time (the api-ref's format) is an instant in
    UTC; any other text stays a regular expression."""
    stamp = server_filters._timestamp
    assert stamp('2015-08-27T09:49:58-05:00') == datetime.datetime(
        2015, 8, 27, 14, 49, 58
    )
    assert stamp('2015-08-27T09:49:58Z') == datetime.datetime(
        2015, 8, 27, 9, 49, 58
    )
    assert stamp('2015-08-27T09:49:58.123456') == datetime.datetime(
        2015, 8, 27, 9, 49, 58, 123456
    )
    assert stamp('2015-08-27') is None
    assert stamp('^2015-08-27 09') is None
    assert stamp('T.*') is None
