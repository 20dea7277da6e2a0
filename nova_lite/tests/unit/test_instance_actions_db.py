"""Instance action records on every backend: concurrent events of one
action all land (model test seed 22019 saw a deadlock on MariaDB when
two agents recorded events of one action at once), paging and the
latest-action fallback of a resumed step."""

from concurrent import futures
import uuid

from lite_common import context as lite_context
from lite_common.tests.backends import db_url  # noqa: F401
from nova_lite.db import instance_actions as db
from nova_lite.tests import database


def _action(uuid_: str, request_id: str) -> dict:
    return {
        'action': 'stop',
        'instance_uuid': uuid_,
        'request_id': request_id,
        'user_id': 'u',
        'project_id': 'p',
    }


def test_concurrent_events_of_one_action(db_url):  # noqa: F811
    ctx = lite_context.get_admin_context()
    server = str(uuid.uuid4())
    with database.temporary_database(db_url):
        db.record(ctx, _action(server, 'req-1'))

        def step(n: int) -> None:
            event = f'compute_step_{n}'
            db.event_start(ctx, server, 'req-1', event, f'host-{n}')
            db.event_finish(ctx, server, 'req-1', event)

        with futures.ThreadPoolExecutor(8) as pool:
            list(pool.map(step, range(16)))
        action = db.action_get(ctx, server, 'req-1')
        events = db.events_get(ctx, action['id'])
        assert sorted(e['event'] for e in events) == sorted(
            f'compute_step_{n}' for n in range(16)
        )
        assert {e['result'] for e in events} == {db.SUCCESS}
        assert action['message'] is None


def test_paging_newest_first_and_a_resumed_step(db_url):  # noqa: F811
    ctx = lite_context.get_admin_context()
    server = str(uuid.uuid4())
    with database.temporary_database(db_url):
        for n in range(5):
            db.record(ctx, _action(server, f'req-{n}'))
        first = db.actions_get(ctx, server, limit=2)
        assert [a['request_id'] for a in first] == ['req-4', 'req-3']
        rest = db.actions_get(ctx, server, marker='req-3')
        assert [a['request_id'] for a in rest] == ['req-2', 'req-1', 'req-0']
        # A step an agent resumes after a restart has no request id: it
        # is recorded on the latest action.
        db.event_start(ctx, server, None, 'compute_stop_instance', 'h')
        db.event_finish(
            ctx,
            server,
            None,
            'compute_stop_instance',
            db.ERROR,
            'Traceback: boom',
        )
        latest = db.action_get(ctx, server, 'req-4')
        [event] = db.events_get(ctx, latest['id'])
        assert (event['result'], event['traceback']) == (
            db.ERROR,
            'Traceback: boom',
        )
        assert latest['message'] == 'Error'
