"""The ``details`` of a failed instance action event (2.84): upstream's
fault message, recorded by :func:`instance_action.recorded`."""

import uuid

import pytest

from lite_common import context as lite_context
from nova_lite import exception
from nova_lite.db import instance_actions as db
from nova_lite.objects import instance_action
from nova_lite.tests import database


def _events(ctx, server):
    action = db.action_get(ctx, server, 'req-1')
    return {e['event']: e for e in db.events_get(ctx, action['id'])}


@pytest.fixture
def server(tmp_path):
    ctx = lite_context.get_admin_context()
    ctx.request_id = 'req-1'
    server = str(uuid.uuid4())
    with database.temporary_database(f'sqlite:///{tmp_path / "db"}'):
        db.record(
            ctx,
            {
                'action': 'stop',
                'instance_uuid': server,
                'request_id': 'req-1',
                'user_id': 'u',
                'project_id': 'p',
            },
        )
        yield ctx, server


def _fail(ctx, server, event, error):
    with pytest.raises(type(error)):
        with instance_action.recorded(ctx, server, event, 'host-1'):
            raise error


def test_details_of_failures(server):
    ctx, server = server
    _fail(ctx, server, 'ours', exception.InstanceNotFound(instance_id='abc'))
    _fail(ctx, server, 'theirs', OSError('/var/lib/secret: denied'))
    with instance_action.recorded(ctx, server, 'handled', 'host-1') as outcome:
        outcome.error = 'Build failed: ' + 'x' * 300
    with instance_action.recorded(
        ctx, server, 'own details', 'host-1'
    ) as outcome:
        outcome.error = 'OSError: /var/lib/secret: denied'
        outcome.details = instance_action.failure_details(OSError('x'))
    with instance_action.recorded(ctx, server, 'fine', 'host-1'):
        pass
    events = _events(ctx, server)
    assert events['ours']['details'] == 'Instance abc could not be found.'
    # Another exception's text may tell of the deployment: only its
    # class, as upstream's fault message.
    assert events['theirs']['details'] == 'OSError'
    assert 'secret' in events['theirs']['traceback']
    assert events['handled']['details'] == ('Build failed: ' + 'x' * 300)[:255]
    assert (
        events['own details']['details'],
        events['own details']['traceback'],
    ) == ('OSError', 'OSError: /var/lib/secret: denied')
    assert events['fine']['details'] is None
    assert {e['result'] for n, e in events.items() if n != 'fine'} == {
        db.ERROR
    }


def test_a_step_run_again_forgets_the_details(server):
    ctx, server = server
    _fail(ctx, server, 'step', ValueError('boom'))
    assert _events(ctx, server)['step']['details'] == 'ValueError'
    db.event_start(ctx, server, 'req-1', 'step', 'host-2')
    assert _events(ctx, server)['step']['details'] is None
