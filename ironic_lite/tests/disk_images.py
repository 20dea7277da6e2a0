"""Disk images for the tests of deployment: whole-disk images with a
real partition table (util-linux ``sfdisk``), and what a config drive
partition on a disk holds (read with pycdlib and ``blkid``)."""

import io
import json
from pathlib import Path
import subprocess
from typing import Any

import pycdlib

MIB = 1024 * 1024
SECTOR = 512


def sfdisk(disk: Path, *args: str, script: str | None = None) -> str:
    done = subprocess.run(
        ['sfdisk', *args, str(disk)],
        input=script,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def table(disk: Path) -> dict[str, Any]:
    """``sfdisk --json``'s partition table."""
    return dict(json.loads(sfdisk(disk, '--json'))['partitiontable'])


def partitioned(
    path: Path,
    label: str,
    parts: list[int],
    size: int,
    disk: int | None = None,
) -> Path:
    """A whole-disk image of ``size`` bytes with a ``label`` (dos, gpt)
    table of partitions of ``parts`` MiB, a marker at the start of each;
    grown (sparse) to ``disk`` bytes when given."""
    with path.open('wb') as handle:
        handle.truncate(size)
    lines = [f'label: {label}']
    lines += [f'size={mib}MiB, type=L' for mib in parts]
    sfdisk(path, '--quiet', script='\n'.join(lines) + '\n')
    with path.open('r+b') as handle:
        for number, part in enumerate(table(path)['partitions'], 1):
            handle.seek(part['start'] * SECTOR)
            handle.write(f'partition {number} data'.encode())
        if disk is not None:
            handle.truncate(disk)
    return path


def qcow2_of(raw: Path, name: str = 'image.qcow2') -> Path:
    """``raw`` converted by the real qemu-img, beside it."""
    qcow2 = raw.with_name(name)
    subprocess.run(
        ['qemu-img', 'convert', '-f', 'raw', '-O', 'qcow2', raw, qcow2],
        check=True,
    )
    return qcow2


def read(disk: Path, offset: int, length: int) -> bytes:
    with disk.open('rb') as handle:
        handle.seek(offset)
        return handle.read(length)


def iso_file(disk: Path, part: dict[str, Any], name: str) -> bytes:
    """File ``name`` of the ISO 9660 image in partition ``part``."""
    data = read(disk, part['start'] * SECTOR, part['size'] * SECTOR)
    reader = pycdlib.PyCdlib()
    reader.open_fp(io.BytesIO(data))
    out = io.BytesIO()
    reader.get_file_from_iso_fp(out, rr_path=name)
    reader.close()
    return out.getvalue()


def meta_data(disk: Path, part: dict[str, Any]) -> dict[str, Any]:
    """``openstack/latest/meta_data.json`` of the config drive in
    ``part``."""
    return dict(
        json.loads(iso_file(disk, part, '/openstack/latest/meta_data.json'))
    )


def blkid(disk: Path, part: dict[str, Any]) -> dict[str, str]:
    """What ``blkid -p`` finds in partition ``part`` (LABEL, TYPE ...)."""
    done = subprocess.run(
        [
            'blkid',
            '-p',
            '-o',
            'export',
            '-O',
            str(part['start'] * SECTOR),
            '-S',
            str(part['size'] * SECTOR),
            str(disk),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    return dict(
        line.split('=', 1) for line in done.stdout.splitlines() if '=' in line
    )
