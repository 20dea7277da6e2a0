"""``standby.prepare_image`` of a partition image and
``image.install_bootloader``, through the agent's command API, on real
disk files with the real sfdisk, mkfs, mkswap, blkid and qemu-img: the
layout of upstream's ``work_on_disk``, the image's bytes in the root
partition alone, and what must fail without writing anything."""

import hashlib
import json
from pathlib import Path
import subprocess
from typing import Any

import webob

from ironic_lite.agent import api
from ironic_lite.agent import commands
from ironic_lite.agent import images
from ironic_lite.conductor import configdrive as builder
from ironic_lite.tests import disk_images
from ironic_lite.tests.unit import agent_command_api

MIB = images.MIB
SECTOR = 512
DISK = 96 * MIB
NODE = '1be26c0b-03f2-4d2e-ae87-c02d7f33c781'
GPT_TYPES = {
    'efi': 'C12A7328-F81F-11D2-BA4B-00A0C93EC93B',
    'swap': '0657FD6D-A4AB-43C4-84E5-0933C84B4F4F',
    'linux': '0FC63DAF-8483-4772-8E79-3D69D8477DE4',
}


def _disk(path: Path, size: int = DISK) -> Path:
    with path.open('wb') as handle:
        handle.truncate(size)
    return path


def _root_fs(tmp_path: Path, size_mib: int = 12) -> Path:
    """An ext4 filesystem image holding /etc/hostname (mkfs.ext4 -d)."""
    tree = tmp_path / 'tree'
    (tree / 'etc').mkdir(parents=True)
    (tree / 'etc' / 'hostname').write_text('partition-image\n')
    image = tmp_path / 'root.raw'
    _disk(image, size_mib * MIB)
    subprocess.run(
        ['mkfs.ext4', '-q', '-F', '-L', 'img-rootfs', '-d', str(tree), image],
        check=True,
    )
    return image


def _info(path: Path, fmt: str = 'raw', **layout: Any) -> dict[str, Any]:
    return {
        'id': 'c0a2b8a6-0d1c-4d3e-9b5e-3f1f2e7a9c11',
        'urls': [path.as_uri()],
        'disk_format': fmt,
        'os_hash_algo': 'sha256',
        'os_hash_value': hashlib.sha256(path.read_bytes()).hexdigest(),
        'image_type': 'partition',
        'root_mb': 16,
        **layout,
    }


def _fs_uuid(path: Path) -> str:
    return subprocess.run(
        ['blkid', '-p', '-o', 'value', '-s', 'UUID', str(path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def _parts(disk: Path) -> list[dict[str, Any]]:
    return list(disk_images.table(disk)['partitions'])


def _result(body: dict[str, Any]) -> str:
    assert body['command_status'] == 'SUCCEEDED', body
    return str(body['command_result']['result'])


def _install_bootloader(disk: Path, params: dict[str, Any]) -> Any:
    runner = commands.CommandRunner([disk], 0, True)
    app = api.AgentAPI(runner, lambda: agent_command_api.TOKEN)
    req = webob.Request.blank(
        f'/v1/commands/?wait=true&agent_token={agent_command_api.TOKEN}',
        method='POST',
    )
    req.body = json.dumps(
        {'name': 'image.install_bootloader', 'params': params}
    ).encode()
    return json.loads(req.get_response(app).body)


def test_bios_layout_root_last_with_swap_ephemeral_and_config_drive(
    tmp_path,
):
    disk = _disk(tmp_path / 'sda.img')
    image = _root_fs(tmp_path)
    drive = builder.build(NODE, 'node-1', {'meta_data': {'hostname': 'p-1'}})
    body = agent_command_api.prepare_image(
        disk,
        _info(image, swap_mb=8, ephemeral_mb=20, ephemeral_format='ext4'),
        drive,
    )
    message = _result(body)

    table = disk_images.table(disk)
    assert table['label'] == 'dos'
    ephemeral, swap, config, root = _parts(disk)
    # From 1 MiB, whole MiB each, upstream's order, root last and bootable.
    assert [(p['start'], p['size']) for p in (ephemeral, swap, root)] == [
        (MIB // SECTOR, 20 * MIB // SECTOR),
        (21 * MIB // SECTOR, 8 * MIB // SECTOR),
        (config['start'] + config['size'], 16 * MIB // SECTOR),
    ]
    assert [p['type'] for p in (ephemeral, swap, config, root)] == [
        '83',
        '82',
        '83',
        '83',
    ]
    assert root.get('bootable') is True
    # The image's bytes fill the start of the root partition.
    data = image.read_bytes()
    assert disk_images.read(disk, root['start'] * SECTOR, len(data)) == data
    assert message == (
        f'prepare_image: image (c0a2b8a6-0d1c-4d3e-9b5e-3f1f2e7a9c11) '
        f'written to device {disk} root_uuid={_fs_uuid(image)}'
    )
    assert disk_images.blkid(disk, swap)['TYPE'] == 'swap'
    assert disk_images.blkid(disk, swap)['LABEL'] == 'swap1'
    assert disk_images.blkid(disk, ephemeral)['TYPE'] == 'ext4'
    assert disk_images.blkid(disk, ephemeral)['LABEL'] == 'ephemeral0'
    assert disk_images.blkid(disk, config)['LABEL'] == 'config-2'
    assert disk_images.meta_data(disk, config)['hostname'] == 'p-1'

    answer = _install_bootloader(
        disk, {'root_uuid': _fs_uuid(image), 'target_boot_mode': 'bios'}
    )
    assert answer['command_status'] == 'SUCCEEDED', answer
    assert 'root partition 4' in answer['command_result']['result']


def test_uefi_layout_with_a_qcow2_image_and_its_efi_partition(tmp_path):
    disk = _disk(tmp_path / 'sda.img')
    raw = _root_fs(tmp_path)
    qcow2 = disk_images.qcow2_of(raw)
    body = agent_command_api.prepare_image(
        disk,
        _info(qcow2, 'qcow2', deploy_boot_mode='uefi'),
        efi_system_partition_mib=33,
    )
    message = _result(body)
    assert disk_images.table(disk)['label'] == 'gpt'
    efi, root = _parts(disk)
    assert (efi['start'], efi['size']) == (MIB // SECTOR, 33 * MIB // SECTOR)
    assert efi['type'] == GPT_TYPES['efi']
    assert root['type'] == GPT_TYPES['linux']
    # The qcow2's raw content, in the root partition only.
    data = raw.read_bytes()
    assert disk_images.read(disk, root['start'] * SECTOR, len(data)) == data
    efi_fs = disk_images.blkid(disk, efi)
    assert (efi_fs['TYPE'], efi_fs['LABEL']) == ('vfat', 'efi-part')
    assert message.endswith(
        f'root_uuid={_fs_uuid(raw)} efi_system_partition_uuid={efi_fs["UUID"]}'
    )

    good = {
        'root_uuid': _fs_uuid(raw),
        'efi_system_part_uuid': efi_fs['UUID'],
        'target_boot_mode': 'uefi',
    }
    assert _install_bootloader(disk, good)['command_status'] == 'SUCCEEDED'
    wrong = _install_bootloader(disk, {**good, 'root_uuid': 'f' * 8})
    assert wrong['command_status'] == 'FAILED'
    assert wrong['command_error']['type'] == 'BootloaderError'
    assert 'no partition of' in wrong['command_error']['details']


def test_bios_on_gpt_gets_a_bios_boot_partition(tmp_path):
    disk = _disk(tmp_path / 'sda.img')
    image = _root_fs(tmp_path)
    _result(
        agent_command_api.prepare_image(
            disk, _info(image, disk_label='gpt', swap_mb=4)
        )
    )
    boot, swap, root = _parts(disk)
    assert boot['type'] == '21686148-6449-6E6F-744E-656564454649'
    assert boot['size'] == MIB // SECTOR
    assert swap['type'] == GPT_TYPES['swap']
    assert root['size'] == 16 * MIB // SECTOR


def test_a_layout_larger_than_the_device_writes_nothing(tmp_path):
    disk = _disk(tmp_path / 'sda.img', 32 * MIB)
    disk_images.sfdisk(disk, script='label: dos\nstart=2048, type=83\n')
    before = disk.read_bytes()
    image = _root_fs(tmp_path)
    body = agent_command_api.prepare_image(
        disk, _info(image, root_mb=24, swap_mb=8)
    )
    assert body['command_status'] == 'FAILED'
    assert 'need 34 MiB' in body['command_error']['details']
    assert 'has 32 MiB' in body['command_error']['details']
    assert disk.read_bytes() == before


def test_an_image_larger_than_the_root_partition_fails(tmp_path):
    disk = _disk(tmp_path / 'sda.img')
    image = _root_fs(tmp_path, size_mib=20)
    body = agent_command_api.prepare_image(disk, _info(image, root_mb=16))
    assert body['command_status'] == 'FAILED'
    assert (
        'larger than the root partition (16 MiB)'
        in (body['command_error']['details'])
    )


def test_preserve_ephemeral_keeps_the_ephemeral_data(tmp_path):
    disk = _disk(tmp_path / 'sda.img')
    image = _root_fs(tmp_path)
    layout = {'ephemeral_mb': 20, 'swap_mb': 4}
    _result(agent_command_api.prepare_image(disk, _info(image, **layout)))
    ephemeral = _parts(disk)[0]
    offset = ephemeral['start'] * SECTOR + 10 * MIB
    with disk.open('r+b') as handle:
        handle.seek(offset)
        handle.write(b'tenant data')

    # Rebuilt with preserve_ephemeral: the data stays.
    _result(
        agent_command_api.prepare_image(
            disk, _info(image, preserve_ephemeral=True, **layout)
        )
    )
    assert disk_images.read(disk, offset, 11) == b'tenant data'
    # Rebuilt without it: the ephemeral partition is made anew.
    _result(agent_command_api.prepare_image(disk, _info(image, **layout)))
    assert disk_images.read(disk, offset, 11) != b'tenant data'

    # Another layout cannot keep it: refused, nothing written.
    with disk.open('r+b') as handle:
        handle.seek(offset)
        handle.write(b'tenant data')
    before = disk.read_bytes()
    body = agent_command_api.prepare_image(
        disk, _info(image, preserve_ephemeral=True, ephemeral_mb=24)
    )
    assert body['command_status'] == 'FAILED'
    assert 'preserve_ephemeral' in body['command_error']['details']
    assert disk.read_bytes() == before


def test_bad_layout_parameters_are_refused(tmp_path):
    disk = _disk(tmp_path / 'sda.img')
    image = _root_fs(tmp_path)
    for bad, words in (
        ({'root_mb': 0}, 'root_mb 0'),
        ({'swap_mb': 'x'}, "swap_mb 'x'"),
        ({'ephemeral_mb': 4, 'ephemeral_format': 'ntfs'}, 'ntfs'),
        ({'deploy_boot_mode': 'legacy'}, 'legacy'),
        ({'disk_label': 'sun'}, 'sun'),
    ):
        body = agent_command_api.prepare_image(disk, _info(image, **bad))
        assert body['command_status'] == 'FAILED', bad
        assert words in body['command_error']['details'], body
    assert disk.read_bytes() == bytes(DISK)
