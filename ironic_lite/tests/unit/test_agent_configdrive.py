"""The config drive of ``standby.prepare_image``, on real sparse disk
files whose partition tables the real ``sfdisk`` makes: a config drive
built by the conductor, decoded (base64, gzip, from a URL), written into
a partition added at the end of the disk (after an MBR's partitions, or
a GPT's once its backup header moved to the disk's end) or into the
image's own config-2 partition, then read back with pycdlib and
identified by ``blkid``; and what is refused without writing: no
partition table, a full MBR, too little room, malformed data."""

import base64
import gzip
import hashlib
import http.server
from pathlib import Path
import shutil
import subprocess
import threading
from typing import Any

import pytest

from ironic_lite.agent import configdrive
from ironic_lite.agent import images
from ironic_lite.conductor import configdrive as builder
from ironic_lite.tests import disk_images
from ironic_lite.tests.unit import agent_command_api

MIB = images.MIB
SECTOR = 512
DISK = 200 * MIB
NODE = '1be26c0b-03f2-4d2e-ae87-c02d7f33c123'
IMAGE_ID = 'f6b1b2a4-6a2b-4f6c-9d38-2a5c4f1e0b7d'
LINUX_FS = '0FC63DAF-8483-4772-8E79-3D69D8477DE4'


@pytest.fixture(autouse=True)
def _sfdisk_installed():
    # (no skip: tools/install-packages.sh installs it)
    assert shutil.which('sfdisk', path='/usr/sbin:/sbin:/usr/bin'), (
        'sfdisk missing: Debian fdisk'
    )


def _packed(hostname: str = 'web-1') -> str:
    return builder.build(NODE, 'node-1', {'meta_data': {'hostname': hostname}})


def _iso(hostname: str = 'web-1') -> bytes:
    return builder.build_iso(
        NODE, 'node-1', {'meta_data': {'hostname': hostname}}
    )


def _disk(
    path: Path, label: str, parts: list[int], image: int = 100 * MIB
) -> Path:
    """A whole-disk image of ``image`` bytes on a sparse disk of DISK
    bytes (see :func:`disk_images.partitioned`)."""
    return disk_images.partitioned(path, label, parts, image, DISK)


def _digest(disk: Path) -> str:
    return hashlib.sha256(disk.read_bytes()).hexdigest()


def _assert_config_drive(
    disk: Path, part: dict[str, Any], hostname: str
) -> None:
    assert disk_images.meta_data(disk, part) == {
        'hostname': hostname,
        'uuid': NODE,
        'name': 'node-1',
    }
    found = disk_images.blkid(disk, part)
    assert (found['LABEL'], found['TYPE']) == ('config-2', 'iso9660')


# Decoding the parameter


def test_the_conductors_packed_config_drive_decodes_to_its_iso():
    # (one ISO: its timestamps change by the second)
    iso = _iso()
    assert configdrive.decode(builder.pack(iso)) == iso


def test_base64_without_gzip_is_taken_as_the_iso_and_line_breaks_pass():
    iso = _iso()
    encoded = base64.encodebytes(iso).decode()
    assert '\n' in encoded
    assert configdrive.decode(encoded) == iso


@pytest.mark.parametrize('value', ['H4sI...', 'not base64!', 'Zm9v\u00e9'])
def test_data_that_is_not_base64_is_refused(value):
    with pytest.raises(configdrive.ConfigDriveError, match='not valid base64'):
        configdrive.decode(value)


@pytest.mark.parametrize('value', ['', '  ', {'meta_data': {}}, 42])
def test_a_configdrive_that_is_no_string_or_empty_is_refused(value):
    with pytest.raises(configdrive.ConfigDriveError, match='non-empty'):
        configdrive.decode(value)


def test_a_config_drive_larger_than_64_mib_is_refused():
    packed = base64.b64encode(gzip.compress(bytes(64 * MIB + 1))).decode()
    with pytest.raises(
        configdrive.ConfigDriveError,
        match='config drive is larger than 64 MiB',
    ):
        configdrive.decode(packed)


def test_truncated_gzip_is_refused():
    data = gzip.compress(_iso())
    packed = base64.b64encode(data[: len(data) // 2]).decode()
    with pytest.raises(configdrive.ConfigDriveError, match='gzip'):
        configdrive.decode(packed)


class _Handler(http.server.BaseHTTPRequestHandler):
    payloads: dict[str, bytes] = {}

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        payload = self.payloads.get(self.path)
        if payload is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header('Content-Length', str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def http_server():
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f'http://127.0.0.1:{server.server_address[1]}'
    server.shutdown()
    server.server_close()


def test_a_url_to_packed_data_or_to_the_raw_iso_is_downloaded(http_server):
    iso = _iso()
    _Handler.payloads = {
        '/packed': builder.pack(iso).encode(),
        '/raw.iso': iso,
    }
    assert configdrive.decode(f'{http_server}/packed') == iso
    assert configdrive.decode(f'{http_server}/raw.iso') == iso


def test_a_url_that_fails_is_a_download_error(http_server):
    _Handler.payloads = {}
    with pytest.raises(images.ImageDownloadError, match='404'):
        configdrive.decode(f'{http_server}/missing')


# Writing it onto the disk


def test_mbr_image_gets_a_64_mib_partition_at_the_disk_end(tmp_path):
    disk = _disk(tmp_path / 'sda.img', 'dos', [40])
    message = configdrive.write(disk, _iso())
    table = disk_images.table(disk)
    first, added = table['partitions']
    sectors = DISK // SECTOR
    # Ends at the disk's last sector, starts 1 MiB aligned, >= 64 MiB.
    assert added['start'] + added['size'] == sectors
    assert added['start'] % 2048 == 0
    assert 64 * MIB <= added['size'] * SECTOR < 65 * MIB
    assert added['type'] == '83'
    assert first['size'] == 40 * MIB // SECTOR
    assert (
        disk_images.read(disk, first['start'] * SECTOR, 16)
        == b'partition 1 data'
    )
    _assert_config_drive(disk, added, 'web-1')
    assert 'partition 2 of' in message and 'a new partition' in message
    assert disk.stat().st_size == DISK


def test_gpt_backup_header_moves_to_the_disk_end_first(tmp_path):
    disk = _disk(tmp_path / 'sda.img', 'gpt', [40])
    before = subprocess.run(
        ['sfdisk', '--verify', str(disk)], capture_output=True, text=True
    )
    assert 'backup GPT table is not on the end' in before.stderr
    configdrive.write(disk, _iso('gpt-1'))
    after = subprocess.run(
        ['sfdisk', '--verify', str(disk)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert 'No errors detected' in after.stdout
    assert after.stderr == ''
    table = disk_images.table(disk)
    # The usable area now reaches the end (33 sectors of backup GPT).
    assert table['lastlba'] == DISK // SECTOR - 34
    first, added = table['partitions']
    assert added['start'] + added['size'] - 1 == table['lastlba']
    assert added['start'] % 2048 == 0
    assert added['size'] * SECTOR >= 64 * MIB
    assert added['type'] == LINUX_FS
    assert (
        disk_images.read(disk, first['start'] * SECTOR, 16)
        == b'partition 1 data'
    )
    _assert_config_drive(disk, added, 'gpt-1')


def test_the_images_own_config_2_partition_is_reused(tmp_path):
    disk = _disk(tmp_path / 'sda.img', 'gpt', [40, 10])
    before = disk_images.table(disk)
    old = before['partitions'][1]
    with disk.open('r+b') as handle:
        handle.seek(old['start'] * SECTOR)
        handle.write(_iso('old'))
    message = configdrive.write(disk, _iso('new'))
    # No partition added, the GPT left as the image has it.
    assert disk_images.table(disk) == before
    _assert_config_drive(disk, old, 'new')
    assert 'partition 2 of' in message
    assert 'the existing config-2 partition' in message


def test_a_disk_without_partition_table_is_refused(tmp_path):
    # A bare filesystem as the whole-disk image: an ISO 9660 here.
    disk = tmp_path / 'sda.img'
    disk.write_bytes(_iso('bare'))
    with disk.open('r+b') as handle:
        handle.truncate(DISK)
    before = _digest(disk)
    with pytest.raises(
        configdrive.ConfigDriveError,
        match='the image on .* has no partition table: a config drive '
        'partition cannot be added',
    ):
        configdrive.write(disk, _iso())
    assert _digest(disk) == before


def test_an_mbr_with_four_primary_partitions_is_refused(tmp_path):
    disk = _disk(tmp_path / 'sda.img', 'dos', [10, 10, 10, 10])
    before = _digest(disk)
    with pytest.raises(
        configdrive.ConfigDriveError, match='4 primary partitions'
    ):
        configdrive.write(disk, _iso())
    assert _digest(disk) == before


def test_too_little_room_after_the_last_partition_is_refused(tmp_path):
    # 200 MiB disk, partitions up to 1 + 150 MiB: 49 MiB free.
    disk = _disk(tmp_path / 'sda.img', 'dos', [150], image=DISK)
    before = _digest(disk)
    with pytest.raises(configdrive.ConfigDriveError) as error:
        configdrive.write(disk, _iso())
    end = 151 * MIB
    assert str(error.value) == (
        f'{disk} has {DISK - end} bytes free after its last partition '
        f'(from byte {end} to {DISK}): a config drive partition needs '
        f'{64 * MIB} bytes (64 MiB, 1 MiB aligned)'
    )
    assert _digest(disk) == before


def test_a_gpt_disk_the_size_of_its_image_has_no_room(tmp_path):
    disk = _disk(tmp_path / 'sda.img', 'gpt', [170], image=DISK)
    with pytest.raises(configdrive.ConfigDriveError, match='bytes free'):
        configdrive.write(disk, _iso())
    assert len(disk_images.table(disk)['partitions']) == 1


# Through the agent's command API


def _image_info(image: Path) -> dict[str, Any]:
    return {
        'id': IMAGE_ID,
        'urls': [image.as_uri()],
        'disk_format': 'raw',
        'os_hash_algo': 'sha256',
        'os_hash_value': hashlib.sha256(image.read_bytes()).hexdigest(),
    }


def _whole_disk_image(path: Path, label: str) -> Path:
    """An 8 MiB whole-disk image with one 4 MiB partition."""
    with path.open('wb') as handle:
        handle.truncate(8 * MIB)
    disk_images.sfdisk(
        path, '--quiet', script=f'label: {label}\nsize=4MiB, type=L\n'
    )
    return path


@pytest.mark.parametrize('label', ['dos', 'gpt'])
def test_prepare_image_writes_the_image_then_the_config_drive(
    tmp_path, http_server, label
):
    image = _whole_disk_image(tmp_path / 'image.raw', label)
    disk = tmp_path / 'sda.img'
    with disk.open('wb') as handle:
        handle.truncate(100 * MIB)
    _Handler.payloads = {'/configdrive': _packed('e2e').encode()}
    body = agent_command_api.prepare_image(
        disk, _image_info(image), f'{http_server}/configdrive'
    )
    assert body['command_status'] == 'SUCCEEDED', body
    message = body['command_result']['result']
    assert message.startswith(
        f'prepare_image: image ({IMAGE_ID}) written to device {disk}; '
        'configdrive ('
    )
    assert 'copied onto partition 2 of' in message
    first, added = disk_images.table(disk)['partitions']
    assert first['size'] == 4 * MIB // SECTOR
    _assert_config_drive(disk, added, 'e2e')
    # The image's first MiB (its partition table) is on the disk.
    assert disk_images.read(disk, 0, 440) == disk_images.read(image, 0, 440)


def test_prepare_image_with_a_malformed_config_drive_writes_nothing(
    tmp_path,
):
    image = _whole_disk_image(tmp_path / 'image.raw', 'dos')
    disk = tmp_path / 'sda.img'
    with disk.open('wb') as handle:
        handle.truncate(100 * MIB)
    body = agent_command_api.prepare_image(disk, _image_info(image), 'H4sI...')
    assert body['command_status'] == 'FAILED'
    assert body['command_error']['type'] == 'ImageWriteError'
    assert 'not valid base64' in body['command_error']['details']
    assert disk_images.read(disk, 0, MIB) == bytes(MIB)


def test_prepare_image_of_a_bare_filesystem_fails_the_config_drive(
    tmp_path,
):
    image = tmp_path / 'image.raw'
    image.write_bytes(_iso('bare'))
    disk = tmp_path / 'sda.img'
    with disk.open('wb') as handle:
        handle.truncate(100 * MIB)
    body = agent_command_api.prepare_image(disk, _image_info(image), _packed())
    assert body['command_status'] == 'FAILED'
    assert body['command_error']['type'] == 'ImageWriteError'
    assert 'has no partition table' in body['command_error']['details']


def test_an_mbr_disk_beyond_2_tib_is_refused(tmp_path):
    disk = _disk(tmp_path / 'sda.img', 'dos', [40])
    with disk.open('r+b') as handle:
        handle.truncate(3 * 1024 * 1024 * MIB)  # sparse: 3 TiB
    with pytest.raises(configdrive.ConfigDriveError, match='2 TiB'):
        configdrive.write(disk, _iso())
    assert len(disk_images.table(disk)['partitions']) == 1


def test_two_config_2_partitions_are_refused(tmp_path):
    disk = _disk(tmp_path / 'sda.img', 'gpt', [10, 10, 10])
    with disk.open('r+b') as handle:
        for part in disk_images.table(disk)['partitions'][1:]:
            handle.seek(part['start'] * SECTOR)
            handle.write(_iso('twice'))
    with pytest.raises(
        configdrive.ConfigDriveError,
        match='more than one partition labelled config-2: 2, 3',
    ):
        configdrive.write(disk, _iso())
