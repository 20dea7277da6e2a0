"""Deferred delete with real services in process (local driver, SQLite,
inproc bus): a DELETE keeps the server's disk, powered off, until the
conductor reclaims it through the normal delete path; a restore before
then keeps it for good."""

import json
import time

import pytest

from nova_lite.common import states
from nova_lite.db import instance_actions as actions_db
from nova_lite.tests.functional.test_evacuate import Client
from nova_lite.tests.functional.test_evacuate import _image
from nova_lite.tests.functional.test_move import _action
from nova_lite.tests.functional.test_move import _ctx
from nova_lite.tests.functional.test_move import _disk
from nova_lite.tests.functional.test_move import _instance
from nova_lite.tests.functional.test_move import _wait_status
from nova_lite.tests.stack import Stack

RECLAIM_SECONDS = 2


@pytest.fixture
def client():  # type: ignore[no-untyped-def]
    stack = Stack(
        computes=1,
        driver='local',
        config={'reclaim_instance_interval': RECLAIM_SECONDS},
    )
    stack.start()
    client = Client(stack)
    client.ok(
        'POST',
        '/flavors',
        {
            'flavor': {
                'name': 'small',
                'id': 'f1',
                'vcpus': 1,
                'ram': 64,
                'disk': 1,
            }
        },
    )
    client.image = _image(stack)
    yield client
    stack.stop()


def _power(client: Client, uuid: str) -> str:
    path = _disk(client, 'compute-1', uuid).with_name('power.json')
    return json.loads(path.read_text())['state']


def _gone(uuid: str) -> bool:
    try:
        _instance(uuid)
    except Exception:
        return True
    return False


def test_soft_deleted_server_is_reclaimed_after_the_interval(client):
    uuid = client.boot('reclaimed')['id']
    deleted = time.monotonic()
    assert client.call('DELETE', f'/servers/{uuid}').status_int == 204
    _wait_status(client, uuid, 'SOFT_DELETED')
    # Kept, powered off, until the interval has passed.
    assert _disk(client, 'compute-1', uuid).is_file()
    assert _power(client, uuid) == 'shutdown'
    assert _instance(uuid)['deleted_at'] is not None
    client.wait(lambda: _gone(uuid), 'the reclaim', timeout=20)
    assert time.monotonic() - deleted >= RECLAIM_SECONDS
    assert not _disk(client, 'compute-1', uuid).exists()
    assert client.call('GET', f'/servers/{uuid}').status_int == 404
    # The DELETE's action has the soft delete's event; the reclaim is no
    # request (upstream records no action for it either).
    [action] = [
        a
        for a in actions_db.actions_get(_ctx(), uuid)
        if a['action'] == 'delete'
    ]
    events = {
        e['event']: e['result']
        for e in actions_db.events_get(_ctx(), action['id'])
    }
    assert events == {'compute_soft_delete_instance': 'Success'}


def test_a_restored_server_is_not_reclaimed(client):
    uuid = client.boot('restored')['id']
    assert client.call('DELETE', f'/servers/{uuid}').status_int == 204
    _wait_status(client, uuid, 'SOFT_DELETED')
    resp = _action(client, uuid, {'restore': None})
    assert resp.status_int == 202, resp.text
    _wait_status(client, uuid, 'ACTIVE')
    assert _power(client, uuid) == 'running'
    assert _instance(uuid)['deleted_at'] is None
    # Several reclaim passes later it is still there.
    time.sleep(RECLAIM_SECONDS * 2 + 1)
    inst = _instance(uuid)
    assert (inst['vm_state'], inst['task_state']) == (states.ACTIVE, None)
    assert _disk(client, 'compute-1', uuid).is_file()


def test_a_server_never_launched_is_deleted_at_once(client):
    """No host to schedule to: ERROR, never launched; as upstream, its
    DELETE deletes it instead of soft-deleting it."""
    service = client.service_id('compute-1')
    client.ok(
        'PUT',
        f'/os-services/{service}',
        {'status': 'disabled', 'disabled_reason': 'test'},
    )
    server = client.ok(
        'POST',
        '/servers',
        {
            'server': {
                'name': 'unplaced',
                'flavorRef': 'f1',
                'imageRef': client.image,
                'networks': 'none',
            }
        },
    )['server']
    uuid = server['id']
    client.wait(lambda: client.server(uuid)['status'] == 'ERROR', 'ERROR')
    assert _instance(uuid)['launched_at'] is None
    assert client.call('DELETE', f'/servers/{uuid}').status_int == 204
    assert _gone(uuid)
