"""``standby.prepare_image``: an image written to the machine's root
device (the first disk file), as ironic-python-agent writes it.

The ``image_info`` parameters are upstream's: ``id``, ``urls`` (tried
in order; ``http(s)://`` or ``file://``), ``disk_format`` (``raw`` or
``qcow2``), and ``os_hash_algo``/``os_hash_value`` (md5, sha1, sha256
or sha512) or the older MD5 ``checksum``: without a hash the image is
refused, so that no unverified image becomes an instance.

* **raw** is streamed onto the device while it is hashed; a mismatch
  fails the command, which keeps the node from ``active`` (its disk is
  erased by the cleaning that follows a failed deploy).
* **qcow2** is downloaded beside the disk first and verified *before*
  anything is written; ``qemu-img info`` must find a plain qcow2 (no
  backing or external data file) whose virtual size fits the device;
  ``qemu-img convert -n`` then writes its raw content onto the device.

Nothing is written past the device's size: an image larger than the
disk fails with a message that says so.
"""

from collections.abc import Callable
import contextlib
import dataclasses
import hashlib
import json
import os
from pathlib import Path
import shutil
import subprocess
import tempfile
from typing import Any
from typing import BinaryIO
import urllib.parse
import urllib.request

MIB = 1024 * 1024
CHUNK = MIB
HASH_ALGOS = ('md5', 'sha1', 'sha256', 'sha512')
DISK_FORMATS = ('raw', 'qcow2')
#: Seconds a download may stay silent.
DOWNLOAD_TIMEOUT = 60
#: Seconds qemu-img may take (a conversion of a large image is slow).
QEMU_IMG_TIMEOUT = 3600

#: (done, total) bytes; total is None while unknown.
Progress = Callable[[int, int | None], None]


class ImageError(Exception):
    """A refused or failed image write (the command's error)."""

    kind = 'ImageWriteError'


class ImageDownloadError(ImageError):
    kind = 'ImageDownloadError'


class ImageChecksumError(ImageError):
    kind = 'ImageChecksumError'


@dataclasses.dataclass(frozen=True)
class ImageInfo:
    image_id: str
    urls: tuple[str, ...]
    disk_format: str
    hash_algo: str
    hash_value: str

    @classmethod
    def parse(cls, info: Any) -> 'ImageInfo':
        """The parameters, checked; ImageError says what is wrong."""
        if not isinstance(info, dict):
            raise ImageError('image_info must be an object')
        image_id = str(info.get('id') or '')
        urls = info.get('urls')
        if not image_id:
            raise ImageError('image_info has no id')
        if (
            not isinstance(urls, list)
            or not urls
            or not all(isinstance(u, str) for u in urls)
        ):
            raise ImageError(
                f'image {image_id}: urls must be a non-empty list'
            )
        for url in urls:
            if urllib.parse.urlsplit(url).scheme not in (
                'http',
                'https',
                'file',
            ):
                raise ImageError(
                    f'image {image_id}: {url!r} is no http(s):// or '
                    'file:// URL'
                )
        disk_format = info.get('disk_format') or 'raw'
        if disk_format not in DISK_FORMATS:
            raise ImageError(
                f'image {image_id}: disk_format {disk_format!r} is not '
                f'one of {", ".join(DISK_FORMATS)}'
            )
        algo, value = info.get('os_hash_algo'), info.get('os_hash_value')
        if not (algo and value):
            algo, value = 'md5', info.get('checksum')
        if not value:
            raise ImageError(
                f'image {image_id}: no os_hash_algo/os_hash_value nor '
                'checksum to verify it with'
            )
        if algo not in HASH_ALGOS:
            raise ImageError(
                f'image {image_id}: os_hash_algo {algo!r} is not one of '
                f'{", ".join(HASH_ALGOS)}'
            )
        return cls(
            image_id, tuple(urls), disk_format, algo, str(value).lower()
        )


def _open_url(url: str) -> tuple[BinaryIO, int | None]:
    """The data at ``url`` and its length when announced."""
    response = urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT)  # noqa: S310 (checked schemes)
    length = response.headers.get('Content-Length')
    return response, int(length) if length else None


def _download(
    info: ImageInfo,
    sink: Callable[[bytes], object],
    progress: Progress,
    stopping: Callable[[], bool],
) -> tuple[str, str]:
    """Stream the image from the first URL that answers into ``sink``;
    the hex digest of what came, and the URL it came from."""
    failures = []
    for url in info.urls:
        try:
            stream, length = _open_url(url)
        except OSError as exc:
            failures.append(f'{url}: {exc}')
            continue
        digest = hashlib.new(info.hash_algo)
        done = 0
        with contextlib.closing(stream):
            while chunk := stream.read(CHUNK):
                if stopping():
                    raise ImageError(f'image {info.image_id}: stopped')
                digest.update(chunk)
                sink(chunk)
                done += len(chunk)
                progress(done, length)
        if length is not None and done != length:
            raise ImageDownloadError(
                f'image {info.image_id}: the download from {url} ended after '
                f'{done} of {length} bytes'
            )
        return digest.hexdigest(), url
    raise ImageDownloadError(
        f'image {info.image_id} could not be downloaded: '
        + '; '.join(failures)
    )


def _verify(info: ImageInfo, actual: str, url: str) -> None:
    if actual != info.hash_value:
        raise ImageChecksumError(
            f'Image failed to verify against checksum. location: {url}; '
            f'image ID: {info.image_id}; image checksum: {info.hash_value}; '
            f'verification checksum: {actual}'
        )


def _write_raw(
    disk: Path,
    info: ImageInfo,
    progress: Progress,
    stopping: Callable[[], bool],
    area: 'Area',
) -> None:
    written = 0
    with disk.open('r+b') as device:
        device.seek(area.offset)

        def sink(chunk: bytes) -> None:
            nonlocal written
            if written + len(chunk) > area.size:
                raise ImageError(
                    f'image {info.image_id} is larger than {area.name} '
                    f'({area.size} bytes)'
                )
            device.write(chunk)
            written += len(chunk)

        actual, url = _download(info, sink, progress, stopping)
        device.flush()
        os.fsync(device.fileno())
    _verify(info, actual, url)


def _qemu_img(*args: str) -> str:
    if shutil.which('qemu-img') is None:
        raise ImageError(
            'qemu-img is not installed (Debian: qemu-utils): a qcow2 image '
            'cannot be converted'
        )
    try:
        done = subprocess.run(
            ['qemu-img', *args],
            capture_output=True,
            text=True,
            timeout=QEMU_IMG_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise ImageError(f'qemu-img {args[0]} timed out') from exc
    if done.returncode != 0:
        raise ImageError(
            f'qemu-img {args[0]} failed: {done.stderr.strip()[-500:]}'
        )
    return done.stdout


def _write_qcow2(
    disk: Path,
    info: ImageInfo,
    progress: Progress,
    stopping: Callable[[], bool],
    area: 'Area',
) -> None:
    with tempfile.TemporaryDirectory(
        # (the id may be a URL: not part of a file name)
        prefix='.image-',
        dir=disk.parent,
    ) as work:
        staged = Path(work) / 'image.qcow2'
        with staged.open('wb') as out:
            actual, url = _download(info, out.write, progress, stopping)
        _verify(info, actual, url)
        details = json.loads(
            _qemu_img('info', '-f', 'qcow2', '--output=json', str(staged))
        )
        if details.get('backing-filename') or (
            details.get('format-specific', {}).get('data', {}).get('data-file')
        ):
            raise ImageError(
                f'image {info.image_id}: a qcow2 with a backing or data file '
                'is refused'
            )
        virtual = int(details['virtual-size'])
        if virtual > area.size:
            raise ImageError(
                f'image {info.image_id} ({virtual} bytes) is larger than '
                f'{area.name} ({area.size} bytes)'
            )
        if area.whole_disk:
            target = ['-O', 'raw', str(disk)]
        else:
            # Only the area of the disk is written (a partition).
            target = [
                '--target-image-opts',
                f'driver=raw,offset={area.offset},size={area.size},'
                f'file.driver=file,file.filename={disk}',
            ]
        _qemu_img('convert', '-n', '-f', 'qcow2', str(staged), *target)


@dataclasses.dataclass(frozen=True)
class Area:
    """Where on the device an image goes: all of it, or a partition."""

    offset: int
    size: int
    #: How messages name it.
    name: str
    whole_disk: bool = False


def write_image(
    disk: Path,
    info: ImageInfo,
    progress: Progress,
    stopping: Callable[[], bool],
    area: Area,
) -> None:
    """Download, verify and write the image into ``area`` of ``disk``."""
    if info.disk_format == 'raw':
        _write_raw(disk, info, progress, stopping, area)
    else:
        _write_qcow2(disk, info, progress, stopping, area)


def prepare_image(
    disk: Path,
    image_info: Any,
    progress: Progress,
    stopping: Callable[[], bool],
) -> str:
    """Write the image onto ``disk``; upstream's result message."""
    info = ImageInfo.parse(image_info)
    if not disk.is_file():
        raise ImageError(f'the root device {disk} does not exist')
    size = disk.stat().st_size
    area = Area(0, size, f'the device {disk}', whole_disk=True)
    write_image(disk, info, progress, stopping, area)
    return f'prepare_image: image ({info.image_id}) written to device {disk}'
