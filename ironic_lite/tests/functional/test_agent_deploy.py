"""Deploying with the ``agent`` deploy interface: the Bare Metal API and
the conductor in process, ironic-lite-agent as a separate process that
writes the image onto a disk file.

The image reaches the agent through the conductor's image cache and
server (``[deploy]image_download_source = local``); the node goes
``deploying -> wait call-back -> deploying -> ... -> active`` and its
disk holds the image's raw content; whatever does not verify ends in
``deploy failed``, never ``active``.
"""

import hashlib
from pathlib import Path
import random

import pytest

from ironic_lite.tests import disk_images
from ironic_lite.tests.functional import agent_stack as stack
from ironic_lite.tests.half_image_server import HalfImageServer

SIZE = 8 * stack.MIB
DEPLOY_CALLBACK_TIMEOUT = 10


@pytest.fixture(scope='module')
def api_url(tmp_path_factory):
    cache = tmp_path_factory.mktemp('image-cache')
    with stack.serving(
        {
            'enabled_deploy_interfaces': ['fake', 'agent'],
            'conductor.clean_step_poll_interval': 1,
            'conductor.deploy_callback_timeout': DEPLOY_CALLBACK_TIMEOUT,
            'api.ramdisk_heartbeat_timeout': 2,
            'deploy.image_cache_dir': str(cache),
        }
    ) as url:
        yield url


_MACS = iter(f'52:54:00:00:01:{n:02x}' for n in range(1, 250))


def _available(api_url, agents, tmp_path, agent=True, size=SIZE):
    """A node cleaned by its agent (which keeps running) and its disk."""
    mac = next(_MACS)
    disk = stack.make_disk(tmp_path / 'sda.img', size)
    uuid = stack.create_node(api_url, mac)
    stack.manageable(api_url, uuid)
    log = tmp_path / 'agent.log'
    agents.append(stack.Agent(api_url, mac, disk, log))
    stack.provision(api_url, uuid, 'provide')
    node = stack.wait(api_url, uuid, stack.state('available'))
    assert node['last_error'] is None, node
    if not agent:
        agents.pop().kill()
    return uuid, disk, log


def _image(path: Path, size: int, seed: int) -> bytes:
    data = random.Random(seed).randbytes(size)
    path.write_bytes(data)
    return data


def _set_image(api_url, uuid, **info):
    patch = [
        {'op': 'add', 'path': f'/instance_info/{key}', 'value': value}
        for key, value in info.items()
    ]
    status, body = stack.call(api_url, 'PATCH', f'/v1/nodes/{uuid}', patch)
    assert status == 200, body


def _settled(api_url, uuid, timeout=60):
    return stack.settled(api_url, uuid, timeout)


def test_a_raw_image_is_written_byte_for_byte(api_url, agents, tmp_path):
    uuid, disk, log = _available(api_url, agents, tmp_path)
    data = _image(tmp_path / 'image.raw', 3 * stack.MIB + 512, seed=1)
    _set_image(
        api_url,
        uuid,
        image_source=f'file://{tmp_path / "image.raw"}',
        image_checksum=hashlib.sha256(data).hexdigest(),
    )
    stack.provision(api_url, uuid, 'active')
    waited = stack.wait(api_url, uuid, stack.state('wait call-back'))
    assert waited['deploy_step']['interface'] == 'deploy'
    node = _settled(api_url, uuid)
    assert node['provision_state'] == 'active', node
    assert node['last_error'] is None
    assert node['power_state'] == 'power on'
    written = disk.read_bytes()
    assert written[: len(data)] == data
    assert written[len(data) :] == bytes(SIZE - len(data))
    # The agent wrote once, although it heartbeated meanwhile.
    assert len(stack.log_lines(log, 'prepare_image: image')) == 1
    info = node['driver_internal_info']
    for key in ('agent_url', 'agent_secret_token', 'deploy_steps'):
        assert key not in info, info


def test_the_config_drive_lands_in_a_partition_at_the_disk_end(
    api_url, agents, tmp_path
):
    size = 80 * stack.MIB
    uuid, disk, _log = _available(api_url, agents, tmp_path, size=size)
    image = disk_images.partitioned(
        tmp_path / 'image.raw', 'dos', [3], 4 * stack.MIB
    )
    data = image.read_bytes()
    _set_image(api_url, uuid, image_source=f'file://{image}')
    drive = {
        'meta_data': {
            'hostname': 'web-1',
            'public_keys': {'k': 'ssh-ed25519 AAAAC3Nza k@example'},
        },
        'user_data': '#cloud-config\n',
    }
    stack.provision(api_url, uuid, 'active', configdrive=drive)
    node = _settled(api_url, uuid)
    assert node['provision_state'] == 'active', node
    written = disk.read_bytes()
    # The image, but for the MBR's partition entries (one was added).
    assert written[:446] == data[:446]
    assert written[512 : len(data)] == data[512:]
    first, added = disk_images.table(disk)['partitions']
    assert first['size'] == 3 * 2048  # the image's, untouched
    assert (added['start'] + added['size']) * disk_images.SECTOR == size
    meta = disk_images.meta_data(disk, added)
    assert meta['uuid'] == uuid
    assert meta['hostname'] == 'web-1'
    assert meta['public_keys'] == drive['meta_data']['public_keys']
    assert (
        disk_images.iso_file(disk, added, '/openstack/latest/user_data')
        == drive['user_data'].encode()
    )
    found = disk_images.blkid(disk, added)
    assert (found['LABEL'], found['TYPE']) == ('config-2', 'iso9660')


def test_the_steps_run_in_priority_order_once(api_url, agents, tmp_path):
    uuid, _disk, _log = _available(api_url, agents, tmp_path)
    _image(tmp_path / 'image.raw', stack.MIB, seed=2)
    _set_image(api_url, uuid, image_source=f'file://{tmp_path / "image.raw"}')
    seen = []

    def record(node):
        step = node['deploy_step'] or {}
        if step and (not seen or seen[-1] != step['step']):
            seen.append(step['step'])
        return node['target_provision_state'] is None

    stack.provision(api_url, uuid, 'active')
    node = stack.wait(api_url, uuid, record, timeout=60)
    assert node['provision_state'] == 'active', node
    # (the fast steps may pass between two polls; the order holds)
    order = [
        'deploy',
        'write_image',
        'prepare_instance_boot',
        'tear_down_agent',
        'switch_to_tenant_network',
        'boot_instance',
    ]
    assert seen == [s for s in order if s in seen], seen
    assert seen[:2] == ['deploy', 'write_image'], seen


def test_the_raw_content_of_a_qcow2_image_is_written(
    api_url, agents, tmp_path
):
    uuid, disk, _log = _available(api_url, agents, tmp_path)
    data = _image(tmp_path / 'image.raw', 2 * stack.MIB, seed=3)
    qcow2 = disk_images.qcow2_of(tmp_path / 'image.raw')
    _set_image(
        api_url,
        uuid,
        image_source=f'file://{qcow2}',
        image_os_hash_algo='sha512',
        image_os_hash_value=hashlib.sha512(qcow2.read_bytes()).hexdigest(),
    )
    stack.provision(api_url, uuid, 'active')
    node = _settled(api_url, uuid)
    assert node['provision_state'] == 'active', node
    assert disk.read_bytes()[: len(data)] == data


def test_a_wrong_checksum_ends_in_deploy_failed(api_url, agents, tmp_path):
    uuid, disk, log = _available(api_url, agents, tmp_path)
    _image(tmp_path / 'image.raw', stack.MIB, seed=4)
    _set_image(
        api_url,
        uuid,
        image_source=f'file://{tmp_path / "image.raw"}',
        image_checksum='f' * 32,
    )
    stack.provision(api_url, uuid, 'active')
    node = _settled(api_url, uuid)
    assert node['provision_state'] == 'deploy failed', node
    assert 'f' * 32 in node['last_error'], node
    assert stack.log_lines(log, 'prepare_image: image') == []
    assert disk.read_bytes() == bytes(SIZE)  # cleaned, nothing written


def test_a_short_download_ends_in_deploy_failed(api_url, agents, tmp_path):
    uuid, disk, _log = _available(api_url, agents, tmp_path)
    data = _image(tmp_path / 'image.raw', stack.MIB, seed=5)
    with HalfImageServer(data) as server:
        _set_image(
            api_url,
            uuid,
            image_source=server.url(),
            image_checksum=hashlib.md5(data).hexdigest(),  # noqa: S324
            image_disk_format='raw',
        )
        stack.provision(api_url, uuid, 'active')
        node = _settled(api_url, uuid)
    assert node['provision_state'] == 'deploy failed', node
    assert 'image.raw' in node['last_error'], node
    assert disk.read_bytes() == bytes(SIZE)


def test_no_agent_fails_at_the_callback_timeout_and_undeploy_cleans(
    api_url, agents, tmp_path
):
    uuid, _disk, _log = _available(api_url, agents, tmp_path, agent=False)
    _image(tmp_path / 'image.raw', stack.MIB, seed=6)
    _set_image(api_url, uuid, image_source=f'file://{tmp_path / "image.raw"}')
    stack.provision(api_url, uuid, 'active')
    node = _settled(api_url, uuid, timeout=DEPLOY_CALLBACK_TIMEOUT + 30)
    assert node['provision_state'] == 'deploy failed', node
    assert 'Timeout reached while waiting for callback' in node['last_error']
    assert 'deploy.deploy' in node['last_error']


def test_abort_while_waiting_for_the_agent(api_url, agents, tmp_path):
    uuid, _disk, _log = _available(api_url, agents, tmp_path, agent=False)
    _image(tmp_path / 'image.raw', stack.MIB, seed=7)
    _set_image(api_url, uuid, image_source=f'file://{tmp_path / "image.raw"}')
    stack.provision(api_url, uuid, 'active')
    stack.wait(api_url, uuid, stack.state('wait call-back'))
    stack.provision(api_url, uuid, 'abort')
    node = _settled(api_url, uuid)
    assert node['provision_state'] == 'deploy failed', node
    assert (
        'By request, the deploy operation was aborted' in (node['last_error'])
    )
    assert node['power_state'] == 'power off'


def test_rebuild_writes_the_new_image(api_url, agents, tmp_path):
    uuid, disk, _log = _available(api_url, agents, tmp_path)
    first = _image(tmp_path / 'one.raw', 2 * stack.MIB, seed=8)
    _set_image(api_url, uuid, image_source=f'file://{tmp_path / "one.raw"}')
    stack.provision(api_url, uuid, 'active')
    assert _settled(api_url, uuid)['provision_state'] == 'active'
    assert disk.read_bytes()[: len(first)] == first
    second = _image(tmp_path / 'two.raw', stack.MIB, seed=9)
    _set_image(api_url, uuid, image_source=f'file://{tmp_path / "two.raw"}')
    stack.provision(api_url, uuid, 'rebuild')
    node = _settled(api_url, uuid)
    assert node['provision_state'] == 'active', node
    written = disk.read_bytes()
    assert written[: len(second)] == second
    # (a rebuild writes over what was there, as upstream's)
    assert written[len(second) : len(first)] == first[len(second) :]


BAD_IMAGES = [
    ({}, "Missing are: ['image_source']"),
    ({'image_source': 'ftp://x/y'}, "scheme 'ftp'"),
    ({'image_source': 'http://x/y'}, 'needs image_checksum'),
    (
        {'image_source': 'a', 'image_type': 'partition'},
        'is a partition image: instance_info root_gb',
    ),
]


def test_a_deployment_without_a_usable_image_is_refused(
    api_url, agents, tmp_path
):
    uuid, _disk, _log = _available(api_url, agents, tmp_path, agent=False)
    for info, words in BAD_IMAGES:
        status, body = stack.call(
            api_url,
            'PATCH',
            f'/v1/nodes/{uuid}',
            [{'op': 'add', 'path': '/instance_info', 'value': info}],
        )
        assert status == 200, body
        status, body = stack.call(
            api_url,
            'PUT',
            f'/v1/nodes/{uuid}/states/provision',
            {'target': 'active'},
        )
        assert status == 400, body
        assert words in body['error_message'], body
        status, body = stack.call(api_url, 'GET', f'/v1/nodes/{uuid}/validate')
        assert body['deploy']['result'] is False, body
        assert words in body['deploy']['reason'], body
    node = stack.call(api_url, 'GET', f'/v1/nodes/{uuid}')[1]
    assert node['provision_state'] == 'available', node
