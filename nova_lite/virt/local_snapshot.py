"""A local driver disk as a qcow2 image (createImage, createBackup):
``qemu-img convert``, which skips the disk's holes, so that a snapshot
of a large, mostly empty disk is small."""

from pathlib import Path
import shutil
import subprocess

from nova_lite import exception

#: Seconds a conversion may take before the snapshot fails.
TIMEOUT = 3600


def to_qcow2(disk: Path, dest: Path) -> None:
    """Convert the raw ``disk`` into the new file ``dest``.

    :raises VirtDriverError: no qemu-img, or it failed (with its error).
    """
    qemu_img = shutil.which('qemu-img')
    if qemu_img is None:
        raise exception.VirtDriverError(
            reason='qemu-img not found: install it (Debian: qemu-utils) '
            'or set [virt_resources]snapshot_image_format = raw'
        )
    try:
        subprocess.run(
            [qemu_img, 'convert', '-f', 'raw', '-O', 'qcow2', disk, dest],
            check=True,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    except subprocess.CalledProcessError as exc:
        raise exception.VirtDriverError(
            reason=f'qemu-img convert failed: {exc.stderr.strip()}'
        ) from exc
    except subprocess.TimeoutExpired as exc:
        raise exception.VirtDriverError(
            reason=f'qemu-img convert took more than {TIMEOUT} s'
        ) from exc
