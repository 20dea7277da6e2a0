"""Deploying a partition image with the ``agent`` deploy interface: the
Bare Metal API and the conductor in process, ironic-lite-agent as a
separate process that partitions a disk file and writes the image into
its root partition.

The node's boot mode lays the disk out (``boot_mode`` capability); the
root partition's UUID the agent reports is kept in the node's
``driver_internal_info`` and handed back to the agent's
``image.install_bootloader``; the config drive gets its own partition.
"""

import hashlib
import subprocess

import pytest

from ironic_lite.tests import disk_images
from ironic_lite.tests.functional import agent_stack as stack

SECTOR = 512
#: root_gb 1 (1024 MiB), swap, the config drive and the table.
SIZE = 1100 * stack.MIB
EFI_MIB = 33


@pytest.fixture(scope='module')
def api_url(tmp_path_factory):
    cache = tmp_path_factory.mktemp('image-cache')
    with stack.serving(
        {
            'enabled_deploy_interfaces': ['fake', 'agent'],
            'conductor.clean_step_poll_interval': 1,
            'conductor.deploy_callback_timeout': 20,
            'api.ramdisk_heartbeat_timeout': 2,
            'deploy.image_cache_dir': str(cache),
            # (a 1 GiB root: cleaning erases metadata only)
            'deploy.erase_devices_priority': 0,
        }
    ) as url:
        yield url


def _root_fs(tmp_path, hostname):
    tree = tmp_path / 'tree'
    (tree / 'etc').mkdir(parents=True)
    (tree / 'etc' / 'hostname').write_text(hostname)
    image = tmp_path / 'root.raw'
    with image.open('wb') as handle:
        handle.truncate(12 * stack.MIB)
    subprocess.run(
        ['mkfs.ext4', '-q', '-F', '-d', str(tree), str(image)], check=True
    )
    uuid = subprocess.run(
        ['blkid', '-p', '-o', 'value', '-s', 'UUID', str(image)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return image, uuid


def _deploy(
    api_url, agents, tmp_path, mac, capabilities, configdrive=None, **instance
):
    disk = stack.make_disk(tmp_path / 'sda.img', SIZE)
    uuid = stack.create_node(api_url, mac)
    stack.patch_node(
        api_url, uuid, 'add', '/properties/capabilities', capabilities
    )
    stack.manageable(api_url, uuid)
    log = tmp_path / 'agent.log'
    agents.append(
        stack.Agent(
            api_url,
            mac,
            disk,
            log,
            extra_args=('--efi_system_partition_size', str(EFI_MIB)),
        )
    )
    stack.provision(api_url, uuid, 'provide')
    assert stack.wait(api_url, uuid, stack.state('available'))
    stack.patch_node(api_url, uuid, 'add', '/instance_info', instance)
    extra = {} if configdrive is None else {'configdrive': configdrive}
    stack.provision(api_url, uuid, 'active', **extra)
    return uuid, disk, log


def test_a_bios_partition_image_with_swap_and_config_drive(
    api_url, agents, tmp_path
):
    raw, fs_uuid = _root_fs(tmp_path, 'bios-host\n')
    qcow2 = disk_images.qcow2_of(raw)
    uuid, disk, log = _deploy(
        api_url,
        agents,
        tmp_path,
        '52:54:00:00:05:01',
        'boot_mode:bios',
        image_source=f'file://{qcow2}',
        image_checksum=hashlib.sha256(qcow2.read_bytes()).hexdigest(),
        image_type='partition',
        root_gb=1,
        swap_mb=16,
    )
    node = stack.settled(api_url, uuid, timeout=90)
    assert node['provision_state'] == 'active', node['last_error']
    info = node['driver_internal_info']
    assert info['is_whole_disk_image'] is False
    assert info['root_uuid_or_disk_id'] == fs_uuid
    assert 'efi_system_partition_uuid' not in info

    table = disk_images.table(disk)
    assert table['label'] == 'dos'
    swap, root = table['partitions']
    assert swap['type'] == '82' and swap['start'] == stack.MIB // SECTOR
    assert root['size'] == 1024 * stack.MIB // SECTOR
    assert root.get('bootable') is True
    data = raw.read_bytes()
    assert disk_images.read(disk, root['start'] * SECTOR, len(data)) == data
    assert disk_images.blkid(disk, swap)['TYPE'] == 'swap'
    # The agent was asked to install the boot loader on that root.
    lines = stack.log_lines(log, 'install_bootloader: root partition 2')
    assert len(lines) == 1, lines
    assert fs_uuid in lines[0]


def test_a_uefi_partition_image_gets_an_efi_system_partition(
    api_url, agents, tmp_path
):
    raw, fs_uuid = _root_fs(tmp_path, 'uefi-host\n')
    uuid, disk, _log = _deploy(
        api_url,
        agents,
        tmp_path,
        '52:54:00:00:05:02',
        'boot_mode:uefi',
        image_source=f'file://{raw}',
        image_type='partition',
        root_gb=1,
        configdrive={'meta_data': {'hostname': 'uefi-host'}},
    )
    node = stack.settled(api_url, uuid, timeout=90)
    assert node['provision_state'] == 'active', node['last_error']
    table = disk_images.table(disk)
    assert table['label'] == 'gpt'
    efi, config, root = table['partitions']
    assert efi['size'] == EFI_MIB * stack.MIB // SECTOR
    efi_fs = disk_images.blkid(disk, efi)
    assert efi_fs['TYPE'] == 'vfat'
    info = node['driver_internal_info']
    assert info['root_uuid_or_disk_id'] == fs_uuid
    assert info['efi_system_partition_uuid'] == efi_fs['UUID']
    assert disk_images.meta_data(disk, config)['hostname'] == 'uefi-host'
    data = raw.read_bytes()
    assert disk_images.read(disk, root['start'] * SECTOR, len(data)) == data
