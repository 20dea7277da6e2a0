"""Shelve's snapshot carries the server's disk, as upstream's does (local
driver, real services in process, the API on a loopback port for the
agents' uploads and downloads): the shelved image is the disk's data,
an offloaded server unshelved elsewhere gets its disk back byte for
byte, a failed upload leaves the server as it was with no image, and a
shelve a restart interrupted is finished or failed."""

import hashlib
import os
from pathlib import Path
import uuid as uuid_module

import pytest

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
from nova_lite.tests.functional.test_move import _wait_status
from nova_lite.tests.functional.test_snapshot import _data
from nova_lite.tests.functional.test_snapshot import _image
from nova_lite.tests.functional.test_snapshot import needs_qemu_img

C1, C2 = 'compute-1', 'compute-2'
client = test_move.client
BLOCK = 65536
#: Bytes written into the disk at these offsets before the shelve.
WRITTEN = {4096: b'after the header', 300 * 1024**2 + 17: b'deep inside'}


def _write(disk: Path, offsets: dict[int, bytes]) -> None:
    with open(disk, 'r+b') as handle:
        for offset, data in offsets.items():
            handle.seek(offset)
            handle.write(data)


def _content(disk: Path) -> tuple[int, str]:
    """The file's size and a digest of its non-zero blocks and where
    they are: equal for two files that are equal byte for byte, without
    reading the holes of a sparse GiB."""
    digest = hashlib.sha256()
    size = disk.stat().st_size
    with open(disk, 'rb') as handle:
        fd, offset = handle.fileno(), 0
        while offset < size:
            try:
                start = os.lseek(fd, offset, os.SEEK_DATA)
            except OSError:
                break
            end = os.lseek(fd, start, os.SEEK_HOLE)
            block = start - start % BLOCK
            while block < end:
                handle.seek(block)
                data = handle.read(BLOCK)
                if data.strip(b'\0'):
                    digest.update(block.to_bytes(8, 'big') + data)
                block += BLOCK
            offset = block
    return size, digest.hexdigest()


def _shelved_image_id(uuid: str) -> str:
    image_id: str = _instance(uuid)['system_metadata']['shelved_image_id']
    return image_id


def _shelve_event(uuid: str) -> dict:
    [action] = [
        a
        for a in actions_db.actions_get(_ctx(), uuid)
        if a['action'] == 'shelve'
    ]
    [event] = [
        e
        for e in actions_db.events_get(_ctx(), action['id'])
        if e['event'] == 'compute_shelve_instance'
    ]
    return event


def _unshelve_on(client, uuid: str, host: str) -> None:
    """Unshelve with the other host disabled."""
    other = C1 if host == C2 else C2
    service = client.service_id(other)
    client.ok(
        'PUT',
        f'/os-services/{service}',
        {'status': 'disabled', 'disabled_reason': 'test'},
    )
    try:
        assert _action(client, uuid, {'unshelve': None}).status_int == 202
        _wait_status(client, uuid, 'ACTIVE')
    finally:
        client.ok('PUT', f'/os-services/{service}', {'status': 'enabled'})


@needs_qemu_img
def test_the_shelved_disk_comes_back_byte_for_byte_on_another_host(client):
    uuid = _boot_on(client, C1, 'carried')['id']
    disk = _disk(client, C1, uuid)
    _write(disk, WRITTEN)
    before = _content(disk)
    assert _action(client, uuid, {'shelve': None}).status_int == 202
    _wait_status(client, uuid, 'SHELVED_OFFLOADED')
    image_id = _shelved_image_id(uuid)
    image = _image(image_id)
    assert image is not None
    assert (image['status'], image['disk_format']) == ('active', 'qcow2')
    data = _data(client, image_id)
    assert data[:4] == b'QFI\xfb'
    assert image['size'] == len(data)
    assert image['checksum'] == hashlib.md5(data).hexdigest()
    # qcow2 leaves the holes of the 1 GiB disk out.
    assert len(data) < 4 * 1024**2
    assert not disk.parent.exists()

    _unshelve_on(client, uuid, C2)
    after = _disk(client, C2, uuid)
    assert _content(after) == before
    with open(after, 'rb') as handle:
        for offset, written in WRITTEN.items():
            handle.seek(offset)
            assert handle.read(len(written)) == written
    assert _instance(uuid)['power_state'] == power_state.RUNNING
    assert _image(image_id) is None
    # Nothing is left in the agents' work directories.
    for host in (C1, C2):
        work = Path(client.stack.state_path) / host / 'snapshots'
        assert not work.exists() or not list(work.iterdir())


def _boot_small(client, name: str) -> str:
    """A server of a flavor without a root disk (its disk is the header
    only, so a raw snapshot is small)."""
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
                'name': name,
                'flavorRef': 'f0',
                'imageRef': client.image,
                'networks': 'none',
            }
        },
    )['server']
    _wait_status(client, server['id'], 'ACTIVE')
    return str(server['id'])


def test_a_raw_shelve_is_the_disk_and_unshelve_writes_it_back(client):
    conf = client.stack.conf
    conf.set_override('snapshot_image_format', 'raw', group='virt_resources')
    try:
        uuid = _boot_small(client, 'raw-shelf')
        host = client.server(uuid)['OS-EXT-SRV-ATTR:host']
        disk = _disk(client, host, uuid)
        _write(disk, {1024**2 + 5: b'past the end of the header-only disk'})
        shelved = disk.read_bytes()
        assert _action(client, uuid, {'shelve': None}).status_int == 202
        _wait_status(client, uuid, 'SHELVED_OFFLOADED')
        image_id = _shelved_image_id(uuid)
        image = _image(image_id)
        assert image is not None
        assert (image['status'], image['disk_format']) == ('active', 'raw')
        assert image['size'] == len(shelved)
        assert image['checksum'] == hashlib.md5(shelved).hexdigest()
        assert image['os_hash_value'] == hashlib.sha512(shelved).hexdigest()
        assert _data(client, image_id) == shelved
        assert _action(client, uuid, {'unshelve': None}).status_int == 202
        _wait_status(client, uuid, 'ACTIVE')
    finally:
        conf.clear_override('snapshot_image_format', group='virt_resources')
    host = client.server(uuid)['OS-EXT-SRV-ATTR:host']
    assert _disk(client, host, uuid).read_bytes() == shelved
    assert _image(image_id) is None


@pytest.mark.parametrize('status', ['ACTIVE', 'SHUTOFF'])
def test_a_refused_upload_leaves_the_server_as_it_was(client, status):
    """The Image API refuses the data (the project's storage quota: a
    413): the server is not shelved, its guest as it was, no task, the
    image deleted, the cause in the event and the fault."""
    uuid = _boot_on(client, C1, f'unshelved-{status.lower()}')['id']
    if status == 'SHUTOFF':
        assert _action(client, uuid, {'os-stop': None}).status_int == 202
        _wait_status(client, uuid, 'SHUTOFF')
    conf = client.stack.conf
    conf.set_override('project_storage_quota', 10, group='image_store')
    try:
        assert _action(client, uuid, {'shelve': None}).status_int == 202
        server = client.wait(
            lambda: (
                (s := client.server(uuid))['OS-EXT-STS:task_state'] is None
                and s
            ),
            'no task',
        )
    finally:
        conf.clear_override('project_storage_quota', group='image_store')
    event = _shelve_event(uuid)
    assert server['status'] == status
    wanted = (
        power_state.RUNNING if status == 'ACTIVE' else power_state.SHUTDOWN
    )
    assert server['OS-EXT-STS:power_state'] == wanted
    assert event['result'] == 'Error'
    assert 'Could not upload image' in event['details']
    assert '413' in event['details']
    inst = _instance(uuid)
    assert 'shelved_image_id' not in inst['system_metadata']
    names = [r['name'] for r in image_db.image_get_all(_ctx(), None, {})]
    assert f'unshelved-{status.lower()}-shelved' not in names
    assert _disk(client, C1, uuid).exists()
    # And it shelves once the data fits.
    assert _action(client, uuid, {'shelve': None}).status_int == 202
    _wait_status(client, uuid, 'SHELVED_OFFLOADED')


@pytest.mark.parametrize(
    'image_status,task,shelved',
    [
        ('queued', states.SHELVING_IMAGE_UPLOADING, True),
        ('queued', states.SHELVING_IMAGE_PENDING_UPLOAD, True),
        ('queued', states.SHELVING, True),
        ('saving', states.SHELVING_IMAGE_UPLOADING, False),
    ],
)
def test_a_shelve_cut_short_is_finished_or_failed_at_start_up(
    client, image_status, task, shelved
):
    """The agent died during the shelve: a queued snapshot is written
    at its restart and the server shelved (and offloaded); one whose
    upload was cut short (saving) fails the shelve, the image deleted
    and the server running as before."""
    uuid = _boot_on(client, C1, f'cut-{image_status}-{task}')['id']
    _stop(client, C1)
    image = image_db.image_create(
        _ctx(),
        {
            'id': str(uuid_module.uuid4()),
            'name': 'cut-shelved',
            'status': image_status,
            'visibility': 'private',
            'owner': _instance(uuid)['project_id'],
            'disk_format': 'raw',
            'container_format': 'bare',
            'properties': {'image_type': 'snapshot', 'instance_uuid': uuid},
        },
    )
    sysmeta = {
        **_instance(uuid)['system_metadata'],
        'shelved_image_id': image['id'],
    }
    instance_db.instance_update(
        _ctx(), uuid, {'task_state': task, 'system_metadata': sysmeta}
    )
    _restart(client, C1)
    if shelved:
        _wait_status(client, uuid, 'SHELVED_OFFLOADED')
        after = _image(image['id'])
        assert after is not None and after['status'] == 'active'
        assert after['size'] > 0 and after['disk_format'] == 'qcow2'
        return
    server = client.wait(
        lambda: (
            (s := client.server(uuid))['OS-EXT-STS:task_state'] is None and s
        ),
        'no task',
    )
    assert server['status'] == 'ACTIVE'
    assert server['OS-EXT-STS:power_state'] == power_state.RUNNING
    assert _image(image['id']) is None
    assert 'shelved_image_id' not in _instance(uuid)['system_metadata']


def test_a_snapshot_without_data_is_unshelved_as_before(client):
    """A shelve recorded before snapshots carried the disk (an active
    image without data): unshelve makes a new disk naming it."""
    uuid = _boot_on(client, C1, 'old-shelf')['id']
    assert _action(client, uuid, {'shelve': None}).status_int == 202
    _wait_status(client, uuid, 'SHELVED_OFFLOADED')
    uploaded = _shelved_image_id(uuid)
    image_db.delete_if_exists(_ctx(), uploaded)
    old = image_db.image_create(
        _ctx(),
        {
            'id': str(uuid_module.uuid4()),
            'name': 'old-shelf-shelved',
            'status': 'active',
            'size': 0,
            'visibility': 'private',
            'owner': _instance(uuid)['project_id'],
            'disk_format': 'raw',
            'container_format': 'bare',
            'properties': {'image_type': 'snapshot', 'instance_uuid': uuid},
        },
    )
    sysmeta = {
        **_instance(uuid)['system_metadata'],
        'shelved_image_id': old['id'],
    }
    instance_db.instance_update(_ctx(), uuid, {'system_metadata': sysmeta})
    _unshelve_on(client, uuid, C2)
    with open(_disk(client, C2, uuid), 'rb') as handle:
        head = handle.read(4096).split(b'\0')[0]
    assert old['id'].encode() in head
    assert _image(old['id']) is None


def test_a_snapshot_whose_data_changed_is_not_made_a_disk(client):
    """The data read back does not match the image's hashes (the file
    changed in the image store): the unshelve fails and the server stays
    offloaded, its snapshot kept, the cause in its fault."""
    uuid = _boot_on(client, C1, 'tampered')['id']
    assert _action(client, uuid, {'shelve': None}).status_int == 202
    _wait_status(client, uuid, 'SHELVED_OFFLOADED')
    image_id = _shelved_image_id(uuid)
    stored = Path(client.stack.conf.image_store.directory) / image_id
    data = bytearray(stored.read_bytes())
    data[-1] ^= 0xFF
    stored.write_bytes(bytes(data))
    assert _action(client, uuid, {'unshelve': None}).status_int == 202
    inst = client.wait(
        lambda: (
            (i := _instance(uuid))['task_state'] is None
            and i['vm_state'] == states.SHELVED_OFFLOADED
            and i
        ),
        'offloaded again',
    )
    assert inst['host'] is None
    assert "does not match the image's" in inst['fault']['message']
    assert _image(image_id) is not None
    for host in (C1, C2):
        assert not _disk(client, host, uuid).exists()
