"""createImage and createBackup of local-driver servers with real
services in process (SQLite, inproc bus, the API on a loopback port for
the agents' uploads): the server's disk becomes the image's bytes
(qcow2 by qemu-img, or raw), a failed upload deletes the image and ends
the task, and a snapshot an agent lost is finished or discarded when it
starts again."""

from pathlib import Path
import shutil
import subprocess
import uuid as uuid_module

import pytest
import webob

from nova_lite.common import snapshot_meta
from nova_lite.common import states
from nova_lite.db import images as image_db
from nova_lite.db import instances as instance_db
from nova_lite.tests.functional import test_move
from nova_lite.tests.functional.test_evacuate import _restart
from nova_lite.tests.functional.test_evacuation_safety import _boot_on
from nova_lite.tests.functional.test_evacuation_safety import _stop
from nova_lite.tests.functional.test_move import _action
from nova_lite.tests.functional.test_move import _ctx
from nova_lite.tests.functional.test_move import _disk
from nova_lite.tests.functional.test_move import _instance

C1 = 'compute-1'
client = test_move.client
needs_qemu_img = pytest.mark.skipif(
    shutil.which('qemu-img') is None, reason='qemu-img (qemu-utils) missing'
)


def _snapshot(client, uuid: str, name: str) -> str:
    response = _action(
        client, uuid, {'createImage': {'name': name}}, version='2.45'
    )
    assert response.status_int == 202, response.text
    image_id: str = response.json['image_id']
    return image_id


def _task_ended(client, uuid: str) -> dict:
    return client.wait(
        lambda: (
            (s := client.server(uuid))['OS-EXT-STS:task_state'] is None and s
        ),
        f'{uuid} without a task',
    )


def _image(image_id: str) -> dict | None:
    rows = image_db.image_get_all(_ctx(), None, {})
    return next((r for r in rows if r['id'] == image_id), None)


def _data(client, image_id: str) -> bytes:
    req = webob.Request.blank(f'/image/v2/images/{image_id}/file')
    response = req.get_response(client.stack.app)
    assert response.status_int == 200, response.text
    return bytes(response.body)


def _events(client, uuid: str) -> list:
    """The events of the server's createImage (API 2.84: with details)."""
    actions = client.ok(
        'GET', f'/servers/{uuid}/os-instance-actions', version='2.84'
    )['instanceActions']
    [action] = [a for a in actions if a['action'] == 'createImage']
    detail = client.ok(
        'GET',
        f'/servers/{uuid}/os-instance-actions/{action["request_id"]}',
        version='2.84',
    )
    return list(detail['instanceAction']['events'])


@needs_qemu_img
def test_a_snapshot_is_the_disk_as_qcow2(client, tmp_path):
    uuid = _boot_on(client, C1, 'snapped')['id']
    image_id = _snapshot(client, uuid, 'snap')
    server = _task_ended(client, uuid)
    assert server['status'] == 'ACTIVE'
    image = _image(image_id)
    assert image is not None
    assert image['status'] == 'active'
    assert image['disk_format'] == 'qcow2'
    data = _data(client, image_id)
    assert data[:4] == b'QFI\xfb'
    # A 1 GiB disk holding a header: the qcow2 leaves the rest out.
    assert len(data) < 1024 * 1024
    qcow2 = tmp_path / 'snap.qcow2'
    qcow2.write_bytes(data)
    raw = tmp_path / 'snap.raw'
    subprocess.run(
        ['qemu-img', 'convert', '-f', 'qcow2', '-O', 'raw', qcow2, raw],
        check=True,
    )
    disk = _disk(client, C1, uuid)
    assert raw.stat().st_size == disk.stat().st_size
    with open(raw, 'rb') as converted, open(disk, 'rb') as original:
        assert converted.read(65536) == original.read(65536)
    assert 'system_metadata' not in server
    assert not set(snapshot_meta.KEYS) & set(
        _instance(uuid)['system_metadata']
    )
    assert [e['event'] for e in _events(client, uuid)] == [
        'compute_snapshot_instance'
    ]
    # Nothing is left in the agent's work directory.
    assert not list((Path(client.stack.state_path) / 'snapshots').iterdir())


def test_a_raw_snapshot_is_the_disk_byte_for_byte(client):
    client.stack.conf.set_override(
        'snapshot_image_format', 'raw', group='virt_resources'
    )
    try:
        client.ok(
            'POST',
            '/flavors',
            {
                'flavor': {
                    'name': 'nodisk',
                    'id': 'f0',
                    'vcpus': 1,
                    'ram': 64,
                    'disk': 0,
                }
            },
        )
        server = client.ok(
            'POST',
            '/servers',
            {
                'server': {
                    'name': 'raw',
                    'flavorRef': 'f0',
                    'imageRef': client.image,
                    'networks': 'none',
                }
            },
        )['server']
        uuid = server['id']
        client.wait(
            lambda: client.server(uuid)['status'] == 'ACTIVE', 'ACTIVE'
        )
        image_id = _snapshot(client, uuid, 'raw-snap')
        _task_ended(client, uuid)
        image = _image(image_id)
        assert image is not None
        assert (image['status'], image['disk_format']) == ('active', 'raw')
        host = client.server(uuid)['OS-EXT-SRV-ATTR:host']
        assert (
            _data(client, image_id) == _disk(client, host, uuid).read_bytes()
        )
    finally:
        client.stack.conf.clear_override(
            'snapshot_image_format', group='virt_resources'
        )


def test_a_refused_upload_deletes_the_image_and_ends_the_task(client):
    """The Image API refuses the data (the project's storage quota: a
    413, the image stays queued): the agent deletes the image."""
    uuid = _boot_on(client, C1, 'unlucky')['id']
    conf = client.stack.conf
    conf.set_override('project_storage_quota', 10, group='image_store')
    try:
        image_id = _snapshot(client, uuid, 'refused')
        server = _task_ended(client, uuid)
    finally:
        conf.clear_override('project_storage_quota', group='image_store')
    assert server['status'] == 'ACTIVE'
    assert _image(image_id) is None
    [event] = _events(client, uuid)
    assert event['result'] == 'Error'
    assert 'Could not upload image' in event['details']
    assert '413' in event['details']


@pytest.mark.parametrize(
    'status,task,kept',
    [
        ('queued', states.IMAGE_UPLOADING, True),
        ('queued', states.IMAGE_SNAPSHOT_PENDING, True),
        ('saving', states.IMAGE_UPLOADING, False),
    ],
)
def test_a_snapshot_taken_and_lost_is_finished_or_discarded_at_start_up(
    client, status, task, kept
):
    """The agent died during the snapshot: a queued image is written at
    its restart; one whose upload was cut short (saving) is deleted.
    Either way the task ends."""
    uuid = _boot_on(client, C1, f'lost-{status}')['id']
    _stop(client, C1)
    image = image_db.image_create(
        _ctx(),
        {
            'id': str(uuid_module.uuid4()),
            'name': 'cut',
            'status': status,
            'visibility': 'private',
            'owner': _instance(uuid)['project_id'],
            'disk_format': 'raw',
            'container_format': 'bare',
            'properties': {'image_type': 'snapshot', 'instance_uuid': uuid},
        },
    )
    sysmeta = {
        **_instance(uuid)['system_metadata'],
        snapshot_meta.IMAGE_KEY: image['id'],
    }
    instance_db.instance_update(
        _ctx(), uuid, {'task_state': task, 'system_metadata': sysmeta}
    )
    _restart(client, C1)
    server = _task_ended(client, uuid)
    assert server['status'] == 'ACTIVE'
    after = _image(image['id'])
    if kept:
        assert after is not None and after['status'] == 'active'
        assert after['size'] > 0
    else:
        assert after is None
    assert snapshot_meta.IMAGE_KEY not in _instance(uuid)['system_metadata']


def test_a_snapshot_of_a_server_without_a_task_slot_is_a_409(client):
    uuid = _boot_on(client, C1, 'busy')['id']
    instance_db.instance_update(
        _ctx(), uuid, {'task_state': states.POWERING_OFF}
    )
    response = _action(
        client, uuid, {'createImage': {'name': 'x'}}, version='2.45'
    )
    assert response.status_int == 409
    names = [r['name'] for r in image_db.image_get_all(_ctx(), None, {})]
    assert 'x' not in names
    instance_db.instance_update(_ctx(), uuid, {'task_state': None})
