"""A local driver disk as a qcow2 image (createImage, createBackup,
shelve) and back (unshelve): ``qemu-img convert``, which skips the
disk's holes, so that a snapshot of a large, mostly empty disk is small
and the disk made of it is sparse again.

A qcow2 image may name other files (a backing file, an external data
file) that ``qemu-img`` would read: one that does is refused, as
upstream Nova refuses it, since the snapshot's data is no more trusted
than any image's.
"""

import json
from pathlib import Path
import shutil
import subprocess
from typing import Any

from nova_lite import exception

#: Seconds a conversion may take before the snapshot fails.
TIMEOUT = 3600
#: Seconds ``qemu-img info`` may take.
INFO_TIMEOUT = 60


def _qemu_img(*args: str | Path, timeout: int = TIMEOUT) -> str:
    """Run ``qemu-img`` with ``args``; its output.

    :raises VirtDriverError: no qemu-img, or it failed (with its error).
    """
    qemu_img = shutil.which('qemu-img')
    if qemu_img is None:
        raise exception.VirtDriverError(
            reason='qemu-img not found: install it (Debian: qemu-utils) '
            'or set [virt_resources]snapshot_image_format = raw'
        )
    try:
        done = subprocess.run(
            [qemu_img, *args],
            check=True,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.CalledProcessError as exc:
        raise exception.VirtDriverError(
            reason=f'qemu-img {args[0]} failed: {exc.stderr.strip()}'
        ) from exc
    except subprocess.TimeoutExpired as exc:
        raise exception.VirtDriverError(
            reason=f'qemu-img {args[0]} took more than {timeout} s'
        ) from exc
    return done.stdout


def to_qcow2(disk: Path, dest: Path) -> None:
    """Convert the raw ``disk`` into the new file ``dest``.

    :raises VirtDriverError: no qemu-img, or it failed (with its error).
    """
    _qemu_img('convert', '-f', 'raw', '-O', 'qcow2', disk, dest)


def _info(image: Path) -> dict[str, Any]:
    out = _qemu_img(
        'info', '-f', 'qcow2', '--output=json', image, timeout=INFO_TIMEOUT
    )
    try:
        info: dict[str, Any] = json.loads(out)
    except ValueError as exc:
        raise exception.VirtDriverError(
            reason=f'qemu-img info gave no JSON: {exc}'
        ) from exc
    return info


def to_raw(image: Path, dest: Path) -> None:
    """Convert the qcow2 ``image`` into the new raw file ``dest``
    (sparse), refusing one that names other files.

    :raises VirtDriverError: no qemu-img, a backing or data file, or
        qemu-img failed.
    """
    info = _info(image)
    data_file = (info.get('format-specific') or {}).get('data', {})
    if info.get('backing-filename') or data_file.get('data-file'):
        raise exception.VirtDriverError(
            reason=f'the qcow2 image {image.name} names another file '
            f'(a backing or data file): refused'
        )
    _qemu_img('convert', '-f', 'qcow2', '-O', 'raw', image, dest)
