"""Rescue and unrescue with real services in process (local driver,
SQLite, inproc bus): the rescue disk beside the untouched disk, the
password only as a digest, a driver failure, the start-up recovery of
an interrupted rescue (undone) and unrescue (finished), evacuation of a
rescued server refused, [api]enable_instance_password, and the periodic
unrescue of [DEFAULT]rescue_timeout."""

import datetime
import hashlib
import json

from lite_common import db as lite_db
from nova_lite.common import power_state
from nova_lite.common import states
from nova_lite.compute import rescue
from nova_lite.db import instance_actions as actions_db
from nova_lite.db import instances as instance_db
from nova_lite.tests.functional import test_move
from nova_lite.tests.functional.test_evacuate import _evacuate
from nova_lite.tests.functional.test_evacuate import _restart
from nova_lite.tests.functional.test_evacuation_safety import _boot_on
from nova_lite.tests.functional.test_evacuation_safety import _stop
from nova_lite.tests.functional.test_move import _action
from nova_lite.tests.functional.test_move import _ctx
from nova_lite.tests.functional.test_move import _disk
from nova_lite.tests.functional.test_move import _instance
from nova_lite.tests.functional.test_move import _wait_status
from nova_lite.tests.functional.test_move_recovery import _running_manager

C1 = 'compute-1'
client = test_move.client


def _digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _power(client, uuid: str) -> dict:
    path = _disk(client, C1, uuid).with_name('power.json')
    return (
        json.loads(path.read_text())
        if path.exists()
        else {'state': 'running', 'boots': 1}
    )


def _events(uuid: str, action: str) -> list[dict]:
    rows = [
        a
        for a in actions_db.actions_get(_ctx(), uuid)
        if a['action'] == action
    ]
    return actions_db.events_get(_ctx(), rows[0]['id'])


def _rescue(client, uuid: str, body) -> str:
    resp = _action(client, uuid, {'rescue': body})
    assert resp.status_int == 200, resp.text
    _wait_status(client, uuid, 'RESCUE')
    return resp.json['adminPass']


def test_rescue_keeps_the_disk_and_unrescue_removes_the_rescue(client):
    uuid = _boot_on(client, C1, 'rescued')['id']
    disk = _disk(client, C1, uuid)
    before = _digest(disk)
    boots = _power(client, uuid)['boots']
    password = _rescue(
        client, uuid, {'adminPass': 'pw-1', 'rescue_image_ref': client.image}
    )
    assert password == 'pw-1'
    rescue_disk = disk.with_name('disk.rescue')
    header = json.loads(rescue_disk.read_text())
    assert header == {
        'instance': uuid,
        'image': client.image,
        'password_sha256': hashlib.sha256(b'pw-1').hexdigest(),
    }
    assert b'pw-1' not in rescue_disk.read_bytes()
    assert _digest(disk) == before
    assert _power(client, uuid) == {'state': 'running', 'boots': boots + 1}
    inst = _instance(uuid)
    assert (inst['vm_state'], inst['power_state']) == (
        states.RESCUED,
        power_state.RUNNING,
    )
    [event] = _events(uuid, 'rescue')
    assert (event['event'], event['result']) == (
        rescue.RESCUE_EVENT,
        'Success',
    )

    assert _action(client, uuid, {'unrescue': None}).status_int == 202
    _wait_status(client, uuid, 'ACTIVE')
    assert not rescue_disk.exists()
    assert _digest(disk) == before
    assert _power(client, uuid) == {'state': 'running', 'boots': boots + 2}


def test_rescue_without_an_image_uses_the_servers_image(client):
    uuid = _boot_on(client, C1, 'own-image')['id']
    password = _rescue(client, uuid, None)
    header = json.loads(
        _disk(client, C1, uuid).with_name('disk.rescue').read_text()
    )
    assert header['image'] == client.image
    assert (
        header['password_sha256']
        == hashlib.sha256(password.encode()).hexdigest()
    )


def test_a_driver_failure_sets_error_with_a_fault(client):
    uuid = _boot_on(client, C1, 'no-disk')['id']
    disk = _disk(client, C1, uuid)
    hidden = disk.with_name('hidden')
    disk.rename(hidden)
    try:
        assert _action(client, uuid, {'rescue': None}).status_int == 200
        client.wait(
            lambda: _instance(uuid)['vm_state'] == states.ERROR,
            'the rescue fails',
        )
        inst = _instance(uuid)
        assert inst['task_state'] is None
        assert 'Rescue failed' in inst['fault']['message']
        [event] = _events(uuid, 'rescue')
        assert event['result'] == 'Error'
        assert not disk.with_name('disk.rescue').exists()
    finally:
        hidden.rename(disk)
    # A failed server can be rescued again, as upstream.
    assert _action(client, uuid, {'rescue': None}).status_int == 200
    client.wait(
        lambda: _instance(uuid)['vm_state'] == states.RESCUED,
        'rescued after all',
    )


def test_a_rescue_lost_with_its_agent_is_undone_at_start_up(client):
    uuid = _boot_on(client, C1, 'lost-rescue')['id']
    disk = _disk(client, C1, uuid)
    before = _digest(disk)
    _stop(client, C1)
    # The API accepted the rescue; the agent wrote the rescue disk and
    # died before it ended the task.
    actions_db.begin(
        _ctx(),
        uuid,
        {'task_state': states.RESCUING},
        {
            'action': 'rescue',
            'instance_uuid': uuid,
            'request_id': 'req-lost',
            'user_id': 'admin',
            'project_id': 'admin',
        },
        [None],
        (states.ACTIVE,),
    )
    disk.with_name('disk.rescue').write_text('{"image": "partial"}')
    _restart(client, C1)
    client.wait(
        lambda: _instance(uuid)['task_state'] is None, 'the rescue is undone'
    )
    inst = _instance(uuid)
    assert (inst['vm_state'], inst['power_state']) == (
        states.ACTIVE,
        power_state.RUNNING,
    )
    assert not disk.with_name('disk.rescue').exists()
    assert _digest(disk) == before
    [event] = _events(uuid, 'rescue')
    assert (event['event'], event['result']) == (rescue.RESCUE_EVENT, 'Error')
    assert 'Rescue the server again' in event['traceback']


def test_a_stopped_servers_lost_rescue_leaves_its_guest_off(client):
    uuid = _boot_on(client, C1, 'lost-stopped')['id']
    assert _action(client, uuid, {'os-stop': None}).status_int == 202
    _wait_status(client, uuid, 'SHUTOFF')
    _stop(client, C1)
    actions_db.begin(
        _ctx(),
        uuid,
        {'task_state': states.RESCUING},
        {
            'action': 'rescue',
            'instance_uuid': uuid,
            'request_id': 'req-lost',
            'user_id': 'admin',
            'project_id': 'admin',
        },
        [None],
        (states.STOPPED,),
    )
    _restart(client, C1)
    client.wait(
        lambda: _instance(uuid)['task_state'] is None, 'the rescue is undone'
    )
    inst = _instance(uuid)
    assert (inst['vm_state'], inst['power_state']) == (
        states.STOPPED,
        power_state.SHUTDOWN,
    )
    assert _power(client, uuid)['state'] == 'shutdown'


def test_an_unrescue_lost_with_its_agent_is_finished_at_start_up(client):
    uuid = _boot_on(client, C1, 'lost-unrescue')['id']
    _rescue(client, uuid, None)
    _stop(client, C1)
    actions_db.begin(
        _ctx(),
        uuid,
        {'task_state': states.UNRESCUING},
        {
            'action': 'unrescue',
            'instance_uuid': uuid,
            'request_id': 'req-lost',
            'user_id': 'admin',
            'project_id': 'admin',
        },
        [None],
        (states.RESCUED,),
    )
    _restart(client, C1)
    _wait_status(client, uuid, 'ACTIVE')
    assert not _disk(client, C1, uuid).with_name('disk.rescue').exists()
    [event] = _events(uuid, 'unrescue')
    assert (event['event'], event['result']) == (
        rescue.UNRESCUE_EVENT,
        'Success',
    )


def test_a_rescued_server_is_not_evacuated(client):
    uuid = _boot_on(client, C1, 'rescued-evac')['id']
    _rescue(client, uuid, None)
    _stop(client, C1)
    assert client.force_down(C1, True).status_int == 200
    resp = _evacuate(client, uuid, {})
    assert resp.status_int == 409, resp.text
    assert 'vm_state rescued' in resp.json['conflictingRequest']['message']
    assert _instance(uuid)['host'] == C1


def test_no_password_is_answered_when_disabled(client):
    client.stack.conf.set_override(
        'enable_instance_password', False, group='api'
    )
    uuid = _boot_on(client, C1, 'quiet')['id']
    resp = _action(client, uuid, {'rescue': {'adminPass': 'hidden'}})
    assert (resp.status_int, resp.json) == (200, {})
    _wait_status(client, uuid, 'RESCUE')


def test_rescue_timeout_unrescues_on_a_housekeeping_pass(client):
    uuid = _boot_on(client, C1, 'timed-out')['id']
    _rescue(client, uuid, None)
    manager = _running_manager(client, C1)
    client.stack.conf.set_override('rescue_timeout', 600)
    try:
        manager.housekeeping()
        assert _instance(uuid)['vm_state'] == states.RESCUED  # too fresh
        instance_db.instance_update(
            _ctx(),
            uuid,
            {'launched_at': lite_db.utcnow() - datetime.timedelta(hours=1)},
        )
        manager.housekeeping()
    finally:
        client.stack.conf.clear_override('rescue_timeout')
    inst = _instance(uuid)
    assert (inst['vm_state'], inst['task_state']) == (states.ACTIVE, None)
    assert not _disk(client, C1, uuid).with_name('disk.rescue').exists()
    [action] = [
        a
        for a in actions_db.actions_get(_ctx(), uuid)
        if a['action'] == 'unrescue'
    ]
    assert action['user_id'] is None, action
    [event] = _events(uuid, 'unrescue')
    assert (event['event'], event['result']) == (
        rescue.UNRESCUE_EVENT,
        'Success',
    )


def test_rescue_timeout_leaves_a_server_with_a_task_alone(client):
    """A request that got there first wins: the periodic unrescue starts
    only while the server is RESCUED with no task."""
    uuid = _boot_on(client, C1, 'busy-rescued')['id']
    _rescue(client, uuid, None)
    instance_db.instance_update(
        _ctx(),
        uuid,
        {
            'launched_at': lite_db.utcnow() - datetime.timedelta(hours=1),
            'task_state': states.DELETING,
        },
    )
    manager = _running_manager(client, C1)
    client.stack.conf.set_override('rescue_timeout', 60)
    try:
        manager.housekeeping()
    finally:
        client.stack.conf.clear_override('rescue_timeout')
        instance_db.instance_update(_ctx(), uuid, {'task_state': None})
    assert _instance(uuid)['vm_state'] == states.RESCUED
    assert 'unrescue' not in [
        a['action'] for a in actions_db.actions_get(_ctx(), uuid)
    ]
