"""The config drive of ``standby.prepare_image``, written as
ironic-python-agent writes it after a whole-disk image: into a partition
at the end of the root device, so that cloud-init or Glean in the
instance finds the ``config-2`` filesystem.

The ``configdrive`` parameter is upstream's: a gzipped, base64 encoded
ISO 9660 image (what the conductor builds), or an ``http(s)://`` URL to
such data or to the raw ISO. Data that is not gzip is taken as it is.
It is decoded (and downloaded) before the image is written, so that a
malformed config drive leaves the disk untouched.

The partition (upstream's ``create_config_drive_partition``):

* a partition of the image whose filesystem is labelled ``config-2`` is
  reused, as upstream does;
* otherwise one is appended with util-linux ``sfdisk`` (Debian:
  ``fdisk``): its start aligned to 1 MiB, at least 64 MiB, ending at the
  last usable sector. A GPT's backup header and table are first moved
  to the end of the disk (a whole-disk image is smaller than the disk);
  an MBR needs a free primary slot and must end within 2 TiB.

A disk with no partition table (raw data, a bare filesystem) or without
64 MiB free after its last partition is refused: nothing is written
over data.
"""

import base64
import binascii
import dataclasses
import http.client
import json
import os
from pathlib import Path
import re
import shutil
import subprocess
from typing import Any
import urllib.parse
import urllib.request
import zlib

from ironic_lite.agent import images

MIB = images.MIB
#: Upstream's ``MAX_CONFIG_DRIVE_SIZE_MB``: the largest config drive,
#: and the size of the partition made for it.
MAX_CONFIG_DRIVE_SIZE_MB = 64
MAX_SIZE = MAX_CONFIG_DRIVE_SIZE_MB * MIB
#: The largest download of a config drive (base64 adds a third).
MAX_DOWNLOAD = 2 * MAX_SIZE
LABEL = 'config-2'
#: Partitions start on 1 MiB boundaries.
ALIGNMENT = MIB
#: Types of the new partition: Linux data.
PARTITION_TYPES = {
    'dos': '83',
    'gpt': '0FC63DAF-8483-4772-8E79-3D69D8477DE4',
}
#: An MBR partition cannot start or end beyond 2**32 sectors.
MBR_MAX_SECTORS = 2**32
#: Seconds sfdisk or blkid may take.
TOOL_TIMEOUT = 60


class ConfigDriveError(images.ImageError):
    """A config drive that cannot be decoded or written."""


@dataclasses.dataclass(frozen=True)
class Partition:
    number: int
    start: int
    sectors: int

    @property
    def end(self) -> int:
        """The first sector after the partition."""
        return self.start + self.sectors


@dataclasses.dataclass(frozen=True)
class PartitionTable:
    label: str
    sector_size: int
    #: The last sector a partition may use.
    last_usable: int
    first_usable: int
    partitions: tuple[Partition, ...]


def _is_url(configdrive: str) -> bool:
    return urllib.parse.urlsplit(configdrive).scheme in ('http', 'https')


def _download(url: str) -> bytes:
    try:
        response = urllib.request.urlopen(  # noqa: S310 (checked schemes)
            url, timeout=images.DOWNLOAD_TIMEOUT
        )
        with response:
            data: bytes = response.read(MAX_DOWNLOAD + 1)
    except (OSError, http.client.HTTPException) as exc:
        raise images.ImageDownloadError(
            f'the config drive could not be downloaded from {url}: {exc}'
        ) from exc
    if len(data) > MAX_DOWNLOAD:
        raise ConfigDriveError(
            f'the config drive at {url} is larger than {MAX_DOWNLOAD} bytes'
        )
    return data


def _base64(data: bytes) -> bytes:
    """``data`` decoded (line breaks ignored); binascii.Error when it
    is not base64."""
    return base64.b64decode(b''.join(data.split()), validate=True)


def _gunzip(data: bytes) -> bytes:
    """``data`` decompressed when it is gzip, at most MAX_SIZE + 1
    bytes of it."""
    if data[:2] != b'\x1f\x8b':
        return data
    inflater = zlib.decompressobj(wbits=31)
    try:
        out = inflater.decompress(data, MAX_SIZE + 1)
    except zlib.error as exc:
        raise ConfigDriveError(
            f'the config drive is not valid gzip: {exc}'
        ) from exc
    if len(out) <= MAX_SIZE and not inflater.eof:
        raise ConfigDriveError('the config drive is truncated gzip')
    return out


def decode(configdrive: Any) -> bytes:
    """The image of a ``configdrive`` parameter: downloaded when it is a
    URL, base64-decoded (a download may be the raw image), gunzipped
    when it is gzip; ConfigDriveError says what is wrong."""
    if not isinstance(configdrive, str) or not configdrive.strip():
        raise ConfigDriveError(
            'configdrive must be a non-empty string (base64 data or an '
            'http(s):// URL)'
        )
    if _is_url(configdrive):
        downloaded = _download(configdrive)
        try:
            data = _base64(downloaded)
        except binascii.Error:
            data = downloaded  # upstream: a raw ISO
    else:
        try:
            data = _base64(configdrive.encode())
        except binascii.Error as exc:
            raise ConfigDriveError(
                f'the config drive is not valid base64: {exc}'
            ) from exc
    image = _gunzip(data)
    if len(image) > MAX_SIZE:
        raise ConfigDriveError(
            f'the config drive is larger than {MAX_CONFIG_DRIVE_SIZE_MB} '
            f'MiB ({len(image)} bytes or more)'
        )
    if not image:
        raise ConfigDriveError('the config drive is empty')
    return image


def tool(
    name: str, package: str, purpose: str = 'the config drive partition'
) -> str:
    """The path of the program ``name``; ImageError names the Debian
    ``package`` to install when it is missing."""
    # (sbin too: the agent's PATH may leave it out)
    path = os.pathsep.join([os.environ.get('PATH', ''), '/usr/sbin:/sbin'])
    found = shutil.which(name, path=path)
    if found is None:
        raise ConfigDriveError(
            f'{name} is not installed (Debian: {package}): {purpose} '
            'cannot be made'
        )
    return found


def run(
    args: list[str], stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            args,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=TOOL_TIMEOUT,
            check=False,
            env={**os.environ, 'LC_ALL': 'C'},
        )
    except subprocess.TimeoutExpired as exc:
        raise ConfigDriveError(f'{" ".join(args)} timed out') from exc


def sfdisk(disk: Path, *args: str, stdin: str | None = None) -> str:
    done = run([tool('sfdisk', 'fdisk'), *args, str(disk)], stdin)
    if done.returncode != 0:
        error = done.stderr.strip()[-500:]
        if 'does not contain a recognized partition table' in error:
            raise ConfigDriveError(
                f'the image on {disk} has no partition table: a config '
                'drive partition cannot be added'
            )
        raise ConfigDriveError(f'sfdisk {args[0]} {disk} failed: {error}')
    return done.stdout


def read_table(disk: Path) -> PartitionTable:
    """The partition table of ``disk`` (``sfdisk --json``)."""
    table = json.loads(sfdisk(disk, '--json'))['partitiontable']
    sector_size = int(table.get('sectorsize', 512))
    sectors = disk.stat().st_size // sector_size
    partitions = tuple(
        Partition(
            int(re.findall(r'\d+$', p['node'])[0]),
            int(p['start']),
            int(p['size']),
        )
        for p in table.get('partitions', [])
    )
    return PartitionTable(
        table['label'],
        sector_size,
        int(table.get('lastlba', sectors - 1)),
        int(table.get('firstlba', 1)),
        partitions,
    )


def _label(disk: Path, table: PartitionTable, part: Partition) -> str:
    """The filesystem label in ``part`` (``blkid --probe``), or ''."""
    done = run(
        [
            tool('blkid', 'util-linux'),
            '--probe',
            '--output',
            'export',
            '--offset',
            str(part.start * table.sector_size),
            '--size',
            str(part.sectors * table.sector_size),
            str(disk),
        ]
    )
    # (exit status 2: nothing found)
    for line in done.stdout.splitlines():
        key, _, value = line.partition('=')
        if key == 'LABEL':
            return value.replace('\\', '')
    return ''


def find_config_drive(disk: Path, table: PartitionTable) -> Partition | None:
    """The partition of ``disk`` labelled config-2, if any."""
    found = [p for p in table.partitions if _label(disk, table, p) == LABEL]
    if len(found) > 1:
        raise ConfigDriveError(
            f'{disk} has more than one partition labelled {LABEL}: '
            + ', '.join(str(p.number) for p in found)
        )
    return found[0] if found else None


def _place(disk: Path, table: PartitionTable) -> tuple[int, int]:
    """Start and sectors of the new partition: ending at the last
    usable sector, starting MAX_SIZE before it (rounded down to
    ALIGNMENT)."""
    per_mib = ALIGNMENT // table.sector_size
    end = table.last_usable + 1
    start = (end - MAX_SIZE // table.sector_size) // per_mib * per_mib
    used = max([table.first_usable, *(p.end for p in table.partitions)])
    if start < used:
        raise ConfigDriveError(
            f'{disk} has {(end - used) * table.sector_size} bytes free '
            f'after its last partition (from byte {used * table.sector_size}'
            f' to {end * table.sector_size}): a config drive partition '
            f'needs {(end - start) * table.sector_size} bytes '
            f'({MAX_CONFIG_DRIVE_SIZE_MB} MiB, 1 MiB aligned)'
        )
    return start, end - start


def _check_mbr(disk: Path, table: PartitionTable) -> None:
    primaries = [p for p in table.partitions if p.number <= 4]
    if len(primaries) >= 4:
        raise ConfigDriveError(
            f'{disk} has an MBR (dos) partition table whose 4 primary '
            'partitions are all used: a config drive partition cannot be '
            'added'
        )
    if table.last_usable >= MBR_MAX_SECTORS:
        raise ConfigDriveError(
            f'{disk} is larger than an MBR (dos) partition table can '
            'address (2 TiB): a config drive partition cannot be added '
            'at its end'
        )


def add_partition(disk: Path, table: PartitionTable) -> Partition:
    """A new partition at the end of ``disk`` for the config drive."""
    if table.label == 'dos':
        _check_mbr(disk, table)
    elif table.label == 'gpt':
        # The image's backup GPT sits at the end of the image, not of
        # the (larger) disk: moved there, the disk's end becomes usable.
        sfdisk(disk, '--relocate', 'gpt-bak-std')
        table = read_table(disk)
    else:
        raise ConfigDriveError(
            f'{disk} has a {table.label} partition table: a config drive '
            'partition can only be added to an MBR (dos) or GPT one'
        )
    start, sectors = _place(disk, table)
    sfdisk(
        disk,
        '--append',
        '--no-reread',
        '--no-tell-kernel',
        stdin=f'start={start}, size={sectors}, '
        f'type={PARTITION_TYPES[table.label]}\n',
    )
    made = [p for p in read_table(disk).partitions if p.start == start]
    if not made:
        raise ConfigDriveError(
            f'sfdisk --append did not make the partition at sector '
            f'{start} of {disk}'
        )
    return made[0]


def write(disk: Path, image: bytes) -> str:
    """Write the config drive ``image`` into its partition of ``disk``
    (found or added); the message for the command's result."""
    table = read_table(disk)
    part = find_config_drive(disk, table)
    if part is None:
        part = add_partition(disk, table)
        how = 'a new partition'
    else:
        how = f'the existing {LABEL} partition'
    size = part.sectors * table.sector_size
    if len(image) > size:
        raise ConfigDriveError(
            f'the config drive ({len(image)} bytes) is larger than '
            f'{how} {part.number} of {disk} ({size} bytes)'
        )
    offset = part.start * table.sector_size
    with disk.open('r+b') as device:
        device.seek(offset)
        device.write(image)
        device.flush()
        os.fsync(device.fileno())
    return (
        f'configdrive ({len(image)} bytes) copied onto partition '
        f'{part.number} of {disk} ({how}, {size} bytes at byte {offset})'
    )
