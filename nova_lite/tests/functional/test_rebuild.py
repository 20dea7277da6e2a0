"""The user's rebuild with real services in process (local driver,
SQLite, inproc bus): the disk content replaced in place, a stopped
server left stopped, and a rebuild a restart cut short finished at
start-up."""

import json

from nova_lite.common import power_state
from nova_lite.common import states
from nova_lite.db import images as image_db
from nova_lite.db import instances as instance_db
from nova_lite.db import migrations as migration_db
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
client = test_move.client


def _head(client, uuid: str, size: int = 4096) -> bytes:
    """The first bytes of the 1 GiB (sparse) disk: not the whole file."""
    with _disk(client, C1, uuid).open('rb') as disk:
        return disk.read(size)


def _header(client, uuid: str) -> dict:
    return json.loads(_head(client, uuid).split(b'\0')[0])


def _power(client, uuid: str) -> dict:
    path = _disk(client, C1, uuid).with_name('power.json')
    return json.loads(path.read_text())


def _new_image() -> str:
    return image_db.image_create(
        _ctx(),
        {
            'id': '0d2c7b9e-3c0e-4a57-9a57-2f5c1a1b2c3d',
            'name': 'fedora',
            'status': 'active',
            'visibility': 'public',
            'disk_format': 'raw',
            'container_format': 'bare',
        },
    )['id']


def test_rebuild_replaces_the_disk_and_keeps_a_stopped_server_stopped(client):
    uuid = _boot_on(client, C1, 'rebuilt')['id']
    image = _new_image()
    assert _action(client, uuid, {'os-stop': None}).status_int == 202
    _wait_status(client, uuid, 'SHUTOFF')
    response = _action(
        client, uuid, {'rebuild': {'imageRef': image, 'metadata': {'a': 'b'}}}
    )
    assert response.status_int == 202
    assert response.json['server']['image']['id'] == image
    server = _wait_status(client, uuid, 'SHUTOFF')
    assert server['metadata'] == {'a': 'b'}
    assert _header(client, uuid) == {
        'instance': uuid,
        'image': image,
        'hostname': 'rebuilt',
    }
    assert _power(client, uuid)['state'] == 'shutdown'
    inst = _instance(uuid)
    assert inst['power_state'] == power_state.SHUTDOWN
    assert inst['image_ref'] == image
    assert inst['host'] == C1


def test_a_rebuild_cut_short_is_finished_at_start_up(client):
    uuid = _boot_on(client, C1, 'cut')['id']
    image = _new_image()
    _stop(client, C1)
    # The agent had taken the rebuild (rebuild_spawning) and died.
    instance_db.instance_update(
        _ctx(),
        uuid,
        {'task_state': states.REBUILD_SPAWNING, 'image_ref': image},
    )
    _restart(client, C1)
    _wait_status(client, uuid, 'ACTIVE')
    assert _header(client, uuid) == {
        'instance': uuid,
        'image': image,
        'hostname': 'cut',
    }
    assert _power(client, uuid)['boots'] == 2


def test_a_rebuild_with_a_hostname_writes_it_into_the_disk(client):
    uuid = _boot_on(client, C1, 'My Guest')['id']
    assert _header(client, uuid)['hostname'] == 'my-guest'
    image = _new_image()
    response = _action(
        client,
        uuid,
        {'rebuild': {'imageRef': image, 'hostname': 'db01.example.org'}},
        version='2.94',
    )
    assert response.status_int == 202, response.text
    assert (
        response.json['server']['OS-EXT-SRV-ATTR:hostname']
        == 'db01.example.org'
    )
    _wait_status(client, uuid, 'ACTIVE')
    assert _header(client, uuid) == {
        'instance': uuid,
        'image': image,
        'hostname': 'db01.example.org',
    }
    assert _instance(uuid)['hostname'] == 'db01.example.org'


def test_a_rebuild_taken_and_lost_is_carried_out_at_start_up(client):
    """Issue 29: the agent took the request (``rebuilding``) and died
    before it changed anything; its restart carries the rebuild out."""
    uuid = _boot_on(client, C1, 'lost')['id']
    image = _new_image()
    _stop(client, C1)
    instance_db.instance_update(
        _ctx(), uuid, {'task_state': states.REBUILDING, 'image_ref': image}
    )
    _restart(client, C1)
    _wait_status(client, uuid, 'ACTIVE')
    assert _header(client, uuid)['image'] == image
    assert _power(client, uuid)['boots'] == 2


def test_an_evacuations_rebuilding_is_left_to_it_at_start_up(client):
    """``rebuilding`` with an evacuation of the server in progress is the
    evacuation's task state: the source's agent, restarting, rebuilds
    nothing (its copy is what the evacuation may yet fall back on)."""
    uuid = _boot_on(client, C1, 'evacuated')['id']
    before = _head(client, uuid, 512)
    _stop(client, C1)
    _stop(client, 'compute-2')
    inst = _instance(uuid)
    migration_db.migration_create(
        _ctx(),
        {
            'uuid': uuid[:-12] + 'a' * 12,
            'instance_uuid': uuid,
            'migration_type': 'evacuation',
            'status': 'accepted',
            'source_compute': C1,
            'source_node': inst['node'],
            'dest_compute': 'compute-2',
            'old_flavor_id': 'f1',
            'new_flavor_id': 'f1',
        },
    )
    instance_db.instance_update(
        _ctx(), uuid, {'task_state': states.REBUILDING}
    )
    _restart(client, C1)
    assert _instance(uuid)['task_state'] == states.REBUILDING
    assert _head(client, uuid, 512) == before
    assert not _disk(client, C1, uuid).with_name('power.json').exists()
