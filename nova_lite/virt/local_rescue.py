"""Rescue on the local driver: ``<state_path>/instances/<uuid>/disk.rescue``.

A rescued guest boots from a rescue disk written beside its own disk;
the rescue disk holds a small JSON header naming the instance, the
rescue image and a SHA-256 digest of the rescue password (never the
password itself), so an operator can see which guests are rescued and
with what. The instance's own ``disk`` is never touched: unrescue
deletes the rescue disk and boots the guest from its disk again.
"""

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from nova_lite import exception

RESCUE_DISK = 'disk.rescue'


def password_digest(password: str) -> str:
    return hashlib.sha256(password.encode()).hexdigest()


def write_rescue_disk(
    path: Path, instance: Any, image_ref: str, password: str
) -> None:
    """Write the rescue disk atomically (a partial one never appears
    under its name)."""
    header = json.dumps(
        {
            'instance': instance.uuid,
            'image': image_ref,
            'password_sha256': password_digest(password),
        }
    )
    part = path.with_name(path.name + '.part')
    try:
        with open(part, 'w') as disk:
            disk.write(header)
            disk.flush()
            os.fsync(disk.fileno())
        os.replace(part, path)
    except OSError as exc:
        part.unlink(missing_ok=True)
        raise exception.VirtDriverError(
            reason=f'cannot write the rescue disk {path}: {exc}'
        ) from exc


def read_rescue_disk(path: Path) -> dict[str, Any] | None:
    """The header of a rescue disk; None when the guest is not rescued."""
    try:
        return dict(json.loads(path.read_text()))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise exception.VirtDriverError(
            reason=f'{path} is unreadable: {exc}'
        ) from exc
