"""Shelve, offload and unshelve with real services in process (local
driver, SQLite, inproc bus): the disk file, the placement columns, the
node's usage, the snapshot image and the records at every step, and the
steps a restart interrupted finished at start-up."""

import datetime
import json

import pytest

from lite_common import db as lite_db
from nova_lite import exception
from nova_lite.common import power_state
from nova_lite.common import states
from nova_lite.db import images as image_db
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
from nova_lite.tests.functional.test_move import _node
from nova_lite.tests.functional.test_move import _wait_status
from nova_lite.tests.functional.test_move_recovery import _running_manager

C1, C2 = 'compute-1', 'compute-2'
client = test_move.client


def _snapshot(uuid: str) -> dict:
    image_id = _instance(uuid)['system_metadata']['shelved_image_id']
    return image_db.image_get(_ctx(), image_id)


def _gone(image_id: str) -> bool:
    try:
        image_db.image_get(_ctx(), image_id)
    except exception.ImageNotFound:
        return True
    return False


def _actions(uuid: str) -> list[str]:
    return [a['action'] for a in actions_db.actions_get(_ctx(), uuid)]


def test_shelve_offloads_and_unshelve_spawns_from_the_snapshot(client):
    uuid = _boot_on(client, C1, 'shelf')['id']
    used = _node(C1)['memory_mb_used']
    assert _action(client, uuid, {'shelve': None}).status_int == 202
    _wait_status(client, uuid, 'SHELVED_OFFLOADED')
    inst = _instance(uuid)
    # The NULL case: on no host, its disk gone, its resources free.
    assert (inst['host'], inst['node'], inst['compute_id']) == (
        None,
        None,
        None,
    )
    assert inst['power_state'] == power_state.NOSTATE
    assert not _disk(client, C1, uuid).parent.exists()
    assert _node(C1)['memory_mb_used'] == used - 64
    sysmeta = inst['system_metadata']
    assert sysmeta['shelved_host'] == C1 and sysmeta['shelved_at']
    image = _snapshot(uuid)
    assert image['name'] == 'shelf-shelved'
    assert image['properties']['instance_uuid'] == uuid
    assert image['properties']['image_type'] == 'snapshot'
    assert image['status'] == 'active' and image['size'] > 0

    # Unshelve on the other host (the only enabled one).
    client.ok(
        'PUT',
        f'/os-services/{client.service_id(C1)}',
        {'status': 'disabled', 'disabled_reason': 'test'},
    )
    try:
        assert _action(client, uuid, {'unshelve': None}).status_int == 202
        _wait_status(client, uuid, 'ACTIVE')
    finally:
        client.ok(
            'PUT',
            f'/os-services/{client.service_id(C1)}',
            {'status': 'enabled'},
        )
    inst, node = _instance(uuid), _node(C2)
    assert (inst['host'], inst['node'], inst['compute_id']) == (
        C2,
        node['hypervisor_hostname'],
        node['id'],
    )
    assert inst['power_state'] == power_state.RUNNING
    disk = _disk(client, C2, uuid)
    with disk.open('rb') as handle:  # (1 GiB, sparse: its start only)
        header = json.loads(handle.read(4096).split(b'\0')[0])
    # The disk shelved, its header included: it names the image the
    # server was booted from, not the snapshot.
    assert header == {
        'instance': uuid,
        'image': client.image,
        'hostname': inst['hostname'],
    }
    assert 'shelved_image_id' not in inst['system_metadata']
    assert _gone(image['id'])
    assert inst['image_ref'] == client.image
    assert _actions(uuid)[:2] == ['unshelve', 'shelve']
    events = {
        e['event']
        for a in actions_db.actions_get(_ctx(), uuid)
        for e in actions_db.events_get(_ctx(), a['id'])
    }
    assert {
        'compute_shelve_instance',
        'compute_shelve_offload_instance',
        'conductor_unshelve_instance',
        'compute_unshelve_instance',
    } <= events


@pytest.fixture
def keep_shelved(client):
    client.stack.conf.set_override('shelved_offload_time', -1)
    yield client
    client.stack.conf.clear_override('shelved_offload_time')


def test_shelved_stays_then_offload_and_unshelve_in_place(keep_shelved):
    client = keep_shelved
    uuid = _boot_on(client, C1, 'kept')['id']
    assert _action(client, uuid, {'os-stop': None}).status_int == 202
    _wait_status(client, uuid, 'SHUTOFF')
    assert _action(client, uuid, {'shelve': {}}).status_int == 202
    _wait_status(client, uuid, 'SHELVED')
    inst = _instance(uuid)
    assert inst['host'] == C1 and inst['compute_id'] == _node(C1)['id']
    assert _disk(client, C1, uuid).exists()
    # Refusals: shelve again, offload by a member, unshelve twice.
    assert _action(client, uuid, {'shelve': None}).status_int == 409
    assert _action(client, uuid, {'os-start': None}).status_int == 409
    # Unshelve of a SHELVED server starts it where it is.
    image_id = _snapshot(uuid)['id']
    assert _action(client, uuid, {'unshelve': None}).status_int == 202
    _wait_status(client, uuid, 'ACTIVE')
    inst = _instance(uuid)
    assert inst['host'] == C1 and _disk(client, C1, uuid).exists()
    assert 'shelved_image_id' not in inst['system_metadata']
    assert _gone(image_id)
    # Shelve again, then offload by hand.
    assert _action(client, uuid, {'shelve': None}).status_int == 202
    _wait_status(client, uuid, 'SHELVED')
    assert _action(client, uuid, {'shelveOffload': None}).status_int == 202
    _wait_status(client, uuid, 'SHELVED_OFFLOADED')
    assert not _disk(client, C1, uuid).exists()
    assert _instance(uuid)['compute_id'] is None
    # Deleting an offloaded server deletes its snapshot.
    image_id = _snapshot(uuid)['id']
    assert client.call('DELETE', f'/servers/{uuid}').status_int == 204
    assert _gone(image_id)


def test_an_offload_cut_short_is_finished_at_start_up(keep_shelved):
    client = keep_shelved
    uuid = _boot_on(client, C1, 'cut')['id']
    assert _action(client, uuid, {'shelve': None}).status_int == 202
    _wait_status(client, uuid, 'SHELVED')
    _stop(client, C1)
    # The API accepted the offload; its cast died with the agent.
    actions_db.begin(
        _ctx(),
        uuid,
        {'task_state': states.SHELVING_OFFLOADING},
        {
            'action': 'shelveOffload',
            'instance_uuid': uuid,
            'request_id': 'req-lost',
            'user_id': 'admin',
            'project_id': 'admin',
        },
        [None],
        (states.SHELVED,),
    )
    _restart(client, C1)
    _wait_status(client, uuid, 'SHELVED_OFFLOADED')
    assert not _disk(client, C1, uuid).exists()
    assert _instance(uuid)['host'] is None


def test_the_conductor_refuses_a_placed_offloaded_instance(client):
    uuid = _boot_on(client, C1, 'rule')['id']
    with pytest.raises(exception.ObjectActionError, match='on no host'):
        instance_db.instance_update(
            _ctx(), uuid, {'vm_state': states.SHELVED_OFFLOADED}
        )
    inst = _instance(uuid)
    assert inst['vm_state'] == states.ACTIVE and inst['host'] == C1


def test_shelved_servers_are_not_evacuated_and_their_disk_is_kept(
    keep_shelved,
):
    """A shelved server on a dead host is not evacuated (409, as
    upstream), an offloaded one neither (it is on no host); when the
    host comes back its clean-up keeps the shelved server's disk."""
    client = keep_shelved
    kept = _boot_on(client, C1, 'kept-on-dead')['id']
    gone = _boot_on(client, C1, 'offloaded')['id']
    for uuid in (kept, gone):
        assert _action(client, uuid, {'shelve': None}).status_int == 202
        _wait_status(client, uuid, 'SHELVED')
    assert _action(client, gone, {'shelveOffload': None}).status_int == 202
    _wait_status(client, gone, 'SHELVED_OFFLOADED')
    _stop(client, C1)
    assert client.force_down(C1, True).status_int == 200
    for uuid in (kept, gone):
        refused = client.call(
            'POST', f'/servers/{uuid}/action', {'evacuate': {}}, '2.53'
        )
        assert refused.status_int == 409, refused.text
    assert client.force_down(C1, False).status_int == 200
    _restart(client, C1)
    client.wait(
        lambda: client.server(kept)['status'] == 'SHELVED', 'still shelved'
    )
    assert _disk(client, C1, kept).exists()
    assert not _disk(client, C1, gone).exists()
    assert _instance(gone)['host'] is None
    # And it unshelves where it is.
    assert _action(client, kept, {'unshelve': None}).status_int == 202
    _wait_status(client, kept, 'ACTIVE')
    assert _instance(kept)['host'] == C1


def test_a_housekeeping_pass_offloads_after_shelved_offload_time(client):
    client.stack.conf.set_override('shelved_offload_time', 600)
    try:
        uuid = _boot_on(client, C1, 'timed-shelf')['id']
        assert _action(client, uuid, {'shelve': None}).status_int == 202
        _wait_status(client, uuid, 'SHELVED')
        manager = _running_manager(client, C1)
        manager.housekeeping()
        assert _instance(uuid)['vm_state'] == states.SHELVED  # too fresh
        inst = _instance(uuid)
        sysmeta = dict(inst['system_metadata'])
        sysmeta['shelved_at'] = (
            lite_db.utcnow() - datetime.timedelta(hours=1)
        ).isoformat()
        instance_db.instance_update(_ctx(), uuid, {'system_metadata': sysmeta})
        manager.housekeeping()
    finally:
        client.stack.conf.clear_override('shelved_offload_time')
    inst = _instance(uuid)
    assert (inst['vm_state'], inst['task_state']) == (
        states.SHELVED_OFFLOADED,
        None,
    )
    assert (inst['host'], inst['node'], inst['compute_id']) == (
        None,
        None,
        None,
    )
    assert not _disk(client, C1, uuid).exists()
