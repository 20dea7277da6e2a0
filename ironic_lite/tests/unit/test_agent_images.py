"""``standby.prepare_image`` of ironic-lite-agent, through its command
API, on real disk files: raw images streamed, qcow2 images converted by
the real ``qemu-img``, from ``file://`` URLs and a real HTTP server; and
what must fail: a wrong hash (a qcow2's before anything is written), a
short download, an image larger than the disk, no hash at all, a qcow2
with a backing file."""

import hashlib
import http.server
import os
from pathlib import Path
import shutil
import subprocess
import threading

from ironic_lite.agent import images
from ironic_lite.tests import disk_images
from ironic_lite.tests.unit import agent_command_api

MIB = images.MIB
DISK = 8 * MIB


def _disk(path: Path) -> Path:
    with path.open('wb') as handle:
        handle.truncate(DISK)
        handle.seek(DISK - 4)
        handle.write(b'tail')
    return path


def _image(tmp_path: Path, size: int = 3 * MIB + 4097) -> tuple[Path, bytes]:
    data = os.urandom(size)
    path = tmp_path / 'image.raw'
    path.write_bytes(data)
    return path, data


def _info(path: Path, fmt: str = 'raw', algo: str = 'sha512') -> dict:  # type: ignore[no-untyped-def]
    digest = hashlib.new(algo, path.read_bytes()).hexdigest()
    return {
        'id': 'f6b1b2a4-6a2b-4f6c-9d38-2a5c4f1e0b7d',
        'urls': [path.as_uri()],
        'disk_format': fmt,
        'os_hash_algo': algo,
        'os_hash_value': digest,
    }


def _read(disk: Path, length: int, offset: int = 0) -> bytes:
    with disk.open('rb') as handle:
        handle.seek(offset)
        return handle.read(length)


def test_a_raw_image_is_streamed_onto_the_root_device(tmp_path):
    disk = _disk(tmp_path / 'sda.img')
    path, data = _image(tmp_path)
    body = agent_command_api.prepare_image(disk, _info(path))
    assert body['command_status'] == 'SUCCEEDED', body
    assert body['command_result'] == {
        'result': 'prepare_image: image '
        f'(f6b1b2a4-6a2b-4f6c-9d38-2a5c4f1e0b7d) written to device {disk}'
    }
    assert _read(disk, len(data)) == data
    # The rest of the device is as it was; its size too.
    assert _read(disk, 4, DISK - 4) == b'tail'
    assert disk.stat().st_size == DISK


def test_the_older_md5_checksum_verifies_too(tmp_path):
    disk = _disk(tmp_path / 'sda.img')
    path, data = _image(tmp_path, 1000)
    info = _info(path)
    del info['os_hash_algo'], info['os_hash_value']
    info['checksum'] = hashlib.md5(data).hexdigest()
    assert (
        agent_command_api.prepare_image(disk, info)['command_status']
        == 'SUCCEEDED'
    )
    assert _read(disk, 1000) == data


def test_a_wrong_hash_fails_the_command(tmp_path):
    disk = _disk(tmp_path / 'sda.img')
    path, _data = _image(tmp_path)
    info = _info(path)
    info['os_hash_value'] = '0' * 128
    body = agent_command_api.prepare_image(disk, info)
    assert body['command_status'] == 'FAILED'
    assert body['command_error']['type'] == 'ImageChecksumError'
    assert (
        'Image failed to verify against checksum'
        in (body['command_error']['details'])
    )


def test_no_hash_no_image(tmp_path):
    disk = _disk(tmp_path / 'sda.img')
    path, _data = _image(tmp_path, 100)
    info = _info(path)
    del info['os_hash_algo'], info['os_hash_value']
    body = agent_command_api.prepare_image(disk, info)
    assert body['command_status'] == 'FAILED'
    assert 'to verify it with' in body['command_error']['details']
    assert _read(disk, 100) == bytes(100)


def test_an_image_larger_than_the_disk_is_refused(tmp_path):
    disk = _disk(tmp_path / 'sda.img')
    path, _data = _image(tmp_path, DISK + 1)
    body = agent_command_api.prepare_image(disk, _info(path))
    assert body['command_status'] == 'FAILED'
    assert body['command_error']['type'] == 'ImageWriteError'
    assert 'is larger than the device' in body['command_error']['details']
    assert disk.stat().st_size == DISK


def test_a_malformed_config_drive_fails_before_the_image_is_written(
    tmp_path,
):
    # (config drives written: test_agent_configdrive.py)
    disk = _disk(tmp_path / 'sda.img')
    path, _data = _image(tmp_path, 100)
    body = agent_command_api.prepare_image(
        disk, _info(path), configdrive='H4sI...'
    )
    assert body['command_status'] == 'FAILED'
    assert 'config drive' in body['command_error']['details']
    assert _read(disk, 100) == bytes(100)


class _ShortHandler(http.server.BaseHTTPRequestHandler):
    """Announces more bytes than it sends, then closes."""

    payload = b''

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self.send_response(200)
        self.send_header('Content-Length', str(len(self.payload) + 1000))
        self.end_headers()
        self.wfile.write(self.payload)
        self.wfile.flush()
        self.close_connection = True

    def log_message(self, *args: object) -> None:
        pass


def test_a_short_download_fails_the_command(tmp_path):
    disk = _disk(tmp_path / 'sda.img')
    path, data = _image(tmp_path, 5000)
    _ShortHandler.payload = data
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _ShortHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        info = _info(path)
        port = server.server_address[1]
        # The first URL refuses connections: the next one is tried.
        info['urls'] = [
            'http://127.0.0.1:9/nothing',
            f'http://127.0.0.1:{port}/image',
        ]
        body = agent_command_api.prepare_image(disk, info)
    finally:
        server.shutdown()
        server.server_close()
    assert body['command_status'] == 'FAILED'
    assert body['command_error']['type'] in (
        'ImageDownloadError',
        'ImageWriteError',
    )
    assert 'image' in body['command_error']['details']


def test_a_qcow2_image_is_verified_then_converted(tmp_path):
    # (no skip without qemu-img: tools/install-packages.sh installs it)
    assert shutil.which('qemu-img'), 'qemu-img missing: Debian qemu-utils'
    disk = _disk(tmp_path / 'sda.img')
    raw, data = _image(tmp_path)
    qcow2 = disk_images.qcow2_of(raw)
    assert qcow2.read_bytes()[:4] == b'QFI\xfb'
    body = agent_command_api.prepare_image(
        disk, _info(qcow2, 'qcow2', 'sha256')
    )
    assert body['command_status'] == 'SUCCEEDED', body
    # The raw content, not the qcow2 container, is on the device.
    assert _read(disk, len(data)) == data
    assert _read(disk, 4, DISK - 4) == b'tail'
    assert disk.stat().st_size == DISK
    # No staged download is left beside the disk.
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        'image.qcow2',
        'image.raw',
        'sda.img',
    ]


def test_a_qcow2_with_a_wrong_hash_writes_nothing(tmp_path):
    disk = _disk(tmp_path / 'sda.img')
    raw, _data = _image(tmp_path)
    qcow2 = disk_images.qcow2_of(raw)
    info = _info(qcow2, 'qcow2')
    info['os_hash_value'] = 'f' * 128
    body = agent_command_api.prepare_image(disk, info)
    assert body['command_error']['type'] == 'ImageChecksumError'
    assert _read(disk, MIB) == bytes(MIB)


def test_a_qcow2_with_a_backing_file_is_refused(tmp_path):
    disk = _disk(tmp_path / 'sda.img')
    base, _data = _image(tmp_path, MIB)
    overlay = tmp_path / 'overlay.qcow2'
    subprocess.run(
        [
            'qemu-img',
            'create',
            '-f',
            'qcow2',
            '-F',
            'raw',
            '-b',
            base,
            overlay,
        ],
        check=True,
        capture_output=True,
    )
    body = agent_command_api.prepare_image(disk, _info(overlay, 'qcow2'))
    assert body['command_status'] == 'FAILED'
    assert 'backing' in body['command_error']['details']
    assert _read(disk, MIB) == bytes(MIB)
