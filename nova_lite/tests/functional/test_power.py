"""Stop, start and reboot with real services in process (local driver,
SQLite, inproc bus): a request lost with a restarted agent is finished
at its start-up, a failing driver leaves the server as it was with the
error in the action's event, and a request that finds the server reset
changes nothing."""

import json

from nova_lite.common import power_state
from nova_lite.common import states
from nova_lite.db import instance_actions as actions_db
from nova_lite.db import instances as instance_db
from nova_lite.tests.functional import test_move
from nova_lite.tests.functional.test_evacuate import _restart
from nova_lite.tests.functional.test_evacuation_safety import _boot_on
from nova_lite.tests.functional.test_evacuation_safety import _stop
from nova_lite.tests.functional.test_move import _action
from nova_lite.tests.functional.test_move import _ctx
from nova_lite.tests.functional.test_move import _disk
from nova_lite.tests.functional.test_move import _instance
from nova_lite.tests.functional.test_move import _wait_status

C1 = 'compute-1'
# The fixture, by its name: two computes (local driver), flavors, an image.
client = test_move.client


def _power_file(client, uuid: str) -> dict:
    path = _disk(client, C1, uuid).with_name('power.json')
    return json.loads(path.read_text())


def _events(uuid: str, action: str) -> list[dict]:
    [row] = [
        a
        for a in actions_db.actions_get(_ctx(), uuid)
        if a['action'] == action
    ]
    return actions_db.events_get(_ctx(), row['id'])


def test_a_stop_lost_with_its_agent_is_finished_at_start_up(client):
    uuid = _boot_on(client, C1, 'lost-stop')['id']
    _stop(client, C1)
    # The API accepted the stop (task and action, as it writes them);
    # its cast died with the agent.
    actions_db.begin(
        _ctx(),
        uuid,
        {'task_state': states.POWERING_OFF},
        {
            'action': 'stop',
            'instance_uuid': uuid,
            'request_id': 'req-lost',
            'user_id': 'admin',
            'project_id': 'admin',
        },
        [None],
        (states.ACTIVE,),
    )
    _restart(client, C1)
    server = _wait_status(client, uuid, 'SHUTOFF')
    assert server['OS-EXT-STS:power_state'] == power_state.SHUTDOWN
    assert _power_file(client, uuid)['state'] == 'shutdown'
    [event] = _events(uuid, 'stop')
    assert (event['event'], event['result']) == (
        'compute_stop_instance',
        'Success',
    )


def test_a_driver_failure_leaves_the_server_as_it_was(client):
    uuid = _boot_on(client, C1, 'no-disk')['id']
    # The disk vanished under the agent: the driver cannot stop it.
    disk = _disk(client, C1, uuid)
    hidden = disk.with_name('hidden')
    disk.rename(hidden)
    try:
        assert _action(client, uuid, {'os-stop': None}).status_int == 202
        client.wait(
            lambda: _instance(uuid)['task_state'] is None, 'the task ends'
        )
        inst = _instance(uuid)
        assert inst['vm_state'] == states.ACTIVE
        [event] = _events(uuid, 'stop')
        assert event['result'] == 'Error'
        assert 'has no disk on this host' in event['traceback']
        [action] = [
            a
            for a in actions_db.actions_get(_ctx(), uuid)
            if a['action'] == 'stop'
        ]
        assert action['message'] == 'Error'
    finally:
        hidden.rename(disk)


def test_a_reset_before_the_agent_acts_wins(client):
    uuid = _boot_on(client, C1, 'reset-first')['id']
    _stop(client, C1)
    assert _action(client, uuid, {'os-stop': None}).status_int == 202
    assert (
        _action(
            client, uuid, {'os-resetState': {'state': 'active'}}
        ).status_int
        == 202
    )
    _restart(client, C1)
    server = _wait_status(client, uuid, 'ACTIVE')
    assert server['OS-EXT-STS:task_state'] is None
    # Nothing was powered off: no power file was written.
    assert not _disk(client, C1, uuid).with_name('power.json').exists()
    assert (
        instance_db.instance_get_by_uuid(_ctx(), uuid)['power_state']
        == power_state.RUNNING
    )
