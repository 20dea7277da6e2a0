"""The hardware manager of ironic-lite-agent: clean steps on disk image
files that stand for the machine's block devices.

The steps, their priorities and flags are ironic-python-agent's
``GenericHardwareManager``'s:

- ``erase_devices_metadata`` (99): what upstream's ``wipefs --all`` and
  its GPT ``dd`` do: the first and the last MiB of each device (MBR and
  primary GPT, backup GPT, the superblocks of ext2/3/4 at 1 KiB, XFS at
  0, ISO 9660 at 32 KiB, btrfs at 64 KiB, LVM labels, md 1.1/1.2, swap)
  and the signatures further in (btrfs mirrors at 64 MiB and 256 GiB,
  md 0.90 in the last 64 KiB-aligned block) are zeroed.
- ``erase_devices`` (10): every byte overwritten: random passes, then
  zeros (``shred_random_overwrite_iterations``,
  ``shred_final_overwrite_with_zeros``).
"""

from collections.abc import Callable
import os
from pathlib import Path
from typing import Any

MIB = 1024 * 1024
#: Offsets of filesystem or RAID signatures beyond the first MiB: btrfs
#: superblock mirrors (64 MiB, 256 GiB).
FAR_SIGNATURES = (64 * MIB, 256 * 1024 * MIB)
#: Bytes zeroed at each far signature offset.
SIGNATURE_SPAN = 64 * 1024
#: How much is written at a time.
CHUNK = MIB

MANAGER_NAME = 'generic_hardware_manager'
MANAGER_VERSION = '1.2'
#: The class name upstream groups its steps under.
MANAGER_CLASS = 'GenericHardwareManager'

#: (done, total) bytes of the running step.
Progress = Callable[[int, int], None]


def clean_steps() -> list[dict[str, Any]]:
    """Upstream's two erase steps, as ``get_clean_steps`` lists them."""
    return [
        {
            'step': 'erase_devices',
            'priority': 10,
            'interface': 'deploy',
            'reboot_requested': False,
            'abortable': True,
        },
        {
            'step': 'erase_devices_metadata',
            'priority': 99,
            'interface': 'deploy',
            'reboot_requested': False,
            'abortable': True,
        },
    ]


def versions() -> dict[str, str]:
    """``hardware_manager_version`` as upstream reports it."""
    return {MANAGER_NAME: MANAGER_VERSION}


def _zero(handle: Any, offset: int, length: int) -> None:
    handle.seek(offset)
    while length > 0:
        size = min(length, CHUNK)
        handle.write(bytes(size))
        length -= size


def _metadata_ranges(size: int) -> list[tuple[int, int]]:
    """(offset, length) of every range erase_devices_metadata zeroes."""
    ranges = [(0, min(size, MIB)), (max(0, size - MIB), min(size, MIB))]
    md090 = (size // SIGNATURE_SPAN - 1) * SIGNATURE_SPAN
    if md090 > 0:
        ranges.append((md090, size - md090))
    for offset in FAR_SIGNATURES:
        if offset < size:
            ranges.append((offset, min(SIGNATURE_SPAN, size - offset)))
    return ranges


def erase_metadata(path: Path) -> int:
    """Zero the partition tables and signatures of one disk file;
    returns the bytes zeroed."""
    size = path.stat().st_size
    done = 0
    with path.open('r+b') as handle:
        for offset, length in _metadata_ranges(size):
            _zero(handle, offset, length)
            done += length
        handle.flush()
        os.fsync(handle.fileno())
    return done


def _overwrite(
    path: Path,
    fill: Callable[[int], bytes],
    progress: Progress,
    done: int,
    total: int,
    stop: Callable[[], bool],
) -> int:
    size = path.stat().st_size
    with path.open('r+b') as handle:
        offset = 0
        while offset < size:
            if stop():
                raise InterruptedError(f'erasing {path} was stopped')
            length = min(CHUNK, size - offset)
            handle.write(fill(length))
            offset += length
            done += length
            progress(done, total)
        handle.flush()
        os.fsync(handle.fileno())
    return done


def erase(
    paths: list[Path],
    random_passes: int,
    zeros: bool,
    progress: Progress,
    stop: Callable[[], bool],
) -> dict[str, Any]:
    """Overwrite every byte of each disk file: ``random_passes`` of
    random data, then zeros when ``zeros`` (at least one pass)."""
    fills: list[Callable[[int], bytes]] = [os.urandom] * random_passes
    if zeros or not fills:
        fills.append(bytes)
    total = sum(p.stat().st_size for p in paths) * len(fills)
    done = 0
    for path in paths:
        for fill in fills:
            done = _overwrite(path, fill, progress, done, total, stop)
    return {
        'devices': [str(p) for p in paths],
        'passes': len(fills),
        'bytes_written': done,
    }
