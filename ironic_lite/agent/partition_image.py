"""``standby.prepare_image`` of a partition image (``image_info``
``image_type = partition``): the agent partitions the root device and
writes the image (a filesystem) into its root partition, as
ironic-python-agent's ``work_on_disk`` lays a disk out.

The parameters are upstream's: ``root_mb`` (required), ``swap_mb``,
``ephemeral_mb`` and ``ephemeral_format`` (``ext2``, ``ext3``, ``ext4``
or ``vfat``; ``ext4`` by default), ``preserve_ephemeral``,
``deploy_boot_mode`` (``bios`` or ``uefi``, ``bios`` by default) and
``disk_label`` (``msdos`` or ``gpt``; by default ``gpt`` for UEFI and
``msdos`` for BIOS).

The partitions start at 1 MiB, each a whole number of MiB, in
upstream's order: the EFI system partition (UEFI; FAT, labelled
``efi-part``, ``[DEFAULT]efi_system_partition_size`` MiB), a 1 MiB BIOS
boot partition (BIOS on GPT), ephemeral (labelled ``ephemeral0``), swap
(``swap1``), the config drive (as large as it is) and, last so that the
instance can grow it, root (bootable on a BIOS MBR). Nothing is written
unless the parameters are valid, the config drive decodes and the
layout fits the device; the image is verified as it is for a whole disk
(:mod:`.images`: raw streamed into the partition while hashed, qcow2
verified before ``qemu-img convert`` writes its raw content into the
partition alone): a mismatch fails the command, and the node never
becomes ``active``.

``preserve_ephemeral`` (a rebuild that keeps the ephemeral partition)
requires the device to hold exactly the layout asked for: the table and
the ephemeral partition are left as they are, the rest is written
again. Otherwise the request fails: no data is lost on a guess.

The result names the root partition as upstream's does, which the
conductor reads: ``root_uuid=<filesystem UUID, else partition UUID>``
and, for UEFI, ``efi_system_partition_uuid=<its FAT volume id>``.

Programs: util-linux ``sfdisk``, ``blkid``, ``mkswap`` (Debian:
``fdisk``, ``util-linux``), ``mkfs.ext4`` (``e2fsprogs``),
``mkfs.vfat`` (``dosfstools``) for UEFI and vfat ephemeral partitions.
"""

from collections.abc import Callable
import dataclasses
import json
import math
import os
from pathlib import Path
import tempfile
from typing import Any

from ironic_lite.agent import configdrive
from ironic_lite.agent import disks
from ironic_lite.agent import images

MIB = images.MIB
SECTOR = 512
#: The 1 MiB before the first partition (the partition table).
LEAD_MIB = 1
#: Room left at the end of the device (a GPT's backup copy).
TAIL_MIB = 1
BIOS_BOOT_MIB = 1
#: Smaller FAT filesystems are FAT16 (an ESP of upstream's 550 MiB is
#: FAT32, as the UEFI specification prefers).
FAT32_FROM_MIB = 512
EPHEMERAL_FORMATS = ('ext2', 'ext3', 'ext4', 'vfat')
BOOT_MODES = ('bios', 'uefi')
DISK_LABELS = ('msdos', 'gpt')

#: Partition types by role, for sfdisk's dos and gpt labels.
_TYPES = {
    'efi': {'dos': 'ef', 'gpt': 'C12A7328-F81F-11D2-BA4B-00A0C93EC93B'},
    'bios_boot': {'gpt': '21686148-6449-6E6F-744E-656564454649'},
    'swap': {'dos': '82', 'gpt': '0657FD6D-A4AB-43C4-84E5-0933C84B4F4F'},
    'linux': {'dos': '83', 'gpt': '0FC63DAF-8483-4772-8E79-3D69D8477DE4'},
}


@dataclasses.dataclass(frozen=True)
class Layout:
    """What ``image_info`` asks of the device, checked."""

    root_mb: int
    swap_mb: int
    ephemeral_mb: int
    ephemeral_format: str
    preserve_ephemeral: bool
    boot_mode: str
    disk_label: str

    @classmethod
    def parse(cls, info: dict[str, Any]) -> 'Layout':
        image = info.get('id')

        def size(key: str, least: int) -> int:
            value = info.get(key) or 0
            try:
                number = int(value)
            except (TypeError, ValueError):
                number = -1
            if number < least or isinstance(value, bool):
                raise images.ImageError(
                    f'image {image}: {key} {value!r} is not a whole number '
                    f'of MiB of at least {least}'
                )
            return number

        boot_mode = str(info.get('deploy_boot_mode') or 'bios')
        if boot_mode not in BOOT_MODES:
            raise images.ImageError(
                f'image {image}: deploy_boot_mode {boot_mode!r} is not bios '
                'or uefi'
            )
        label = info.get('disk_label') or (
            'gpt' if boot_mode == 'uefi' else 'msdos'
        )
        if label not in DISK_LABELS:
            raise images.ImageError(
                f'image {image}: disk_label {label!r} is not msdos or gpt'
            )
        fmt = str(info.get('ephemeral_format') or 'ext4')
        if fmt not in EPHEMERAL_FORMATS:
            raise images.ImageError(
                f'image {image}: ephemeral_format {fmt!r} is not one of '
                f'{", ".join(EPHEMERAL_FORMATS)}'
            )
        return cls(
            root_mb=size('root_mb', 1),
            swap_mb=size('swap_mb', 0),
            ephemeral_mb=size('ephemeral_mb', 0),
            ephemeral_format=fmt,
            preserve_ephemeral=bool(info.get('preserve_ephemeral')),
            boot_mode=boot_mode,
            disk_label=label,
        )


@dataclasses.dataclass(frozen=True)
class Part:
    """A planned partition: its role, number and place in MiB."""

    role: str
    number: int
    start_mib: int
    size_mib: int

    @property
    def offset(self) -> int:
        return self.start_mib * MIB

    @property
    def size(self) -> int:
        return self.size_mib * MIB


def plan(layout: Layout, drive_mib: int, efi_mib: int) -> list[Part]:
    """The partitions, in upstream's order."""
    roles: list[tuple[str, int]] = []
    if layout.boot_mode == 'uefi':
        roles.append(('efi', efi_mib))
    elif layout.disk_label == 'gpt':
        roles.append(('bios_boot', BIOS_BOOT_MIB))
    roles += [
        ('ephemeral', layout.ephemeral_mb),
        ('swap', layout.swap_mb),
        ('configdrive', drive_mib),
        ('root', layout.root_mb),
    ]
    parts: list[Part] = []
    start = LEAD_MIB
    for role, size in roles:
        if size:
            parts.append(Part(role, len(parts) + 1, start, size))
            start += size
    return parts


def _script(layout: Layout, parts: list[Part]) -> str:
    label = 'dos' if layout.disk_label == 'msdos' else 'gpt'
    lines = [f'label: {label}']
    for part in parts:
        kind = {'efi': 'efi', 'bios_boot': 'bios_boot', 'swap': 'swap'}.get(
            part.role, 'linux'
        )
        line = (
            f'start={part.start_mib * MIB // SECTOR}, '
            f'size={part.size_mib * MIB // SECTOR}, type={_TYPES[kind][label]}'
        )
        if (
            part.role == 'root'
            and label == 'dos'
            and layout.boot_mode == 'bios'
        ):
            line += ', bootable'
        lines.append(line)
    return '\n'.join(lines) + '\n'


def _table(disk: Path) -> dict[str, Any]:
    """``sfdisk --json`` of ``disk`` ({} without a table)."""
    try:
        text = configdrive.sfdisk(disk, '--json')
    except configdrive.ConfigDriveError:
        return {}
    table: dict[str, Any] = json.loads(text)['partitiontable']
    return table


def _same_layout(disk: Path, layout: Layout, parts: list[Part]) -> None:
    """``preserve_ephemeral``: the device must hold these partitions."""
    table = _table(disk)
    label = 'dos' if layout.disk_label == 'msdos' else 'gpt'
    found = [
        (int(p['start']), int(p['size'])) for p in table.get('partitions', [])
    ]
    wanted = [(p.offset // SECTOR, p.size // SECTOR) for p in parts]
    if table.get('label') != label or found != wanted:
        raise images.ImageError(
            f'preserve_ephemeral: the partitions of {disk} are not those '
            'this deployment asks for (another size of root, swap, '
            'ephemeral or config drive): the ephemeral partition cannot be '
            'kept, nothing was written'
        )


def _probe(disk: Path, part: Part, key: str) -> str:
    """A value ``blkid`` finds in ``part`` (UUID, TYPE ...), or ''."""
    done = configdrive.run(
        [
            configdrive.tool('blkid', 'util-linux'),
            '--probe',
            '--output',
            'export',
            '--offset',
            str(part.offset),
            '--size',
            str(part.size),
            str(disk),
        ]
    )
    for line in done.stdout.splitlines():
        name, _, value = line.partition('=')
        if name == key:
            return value
    return ''


def _partition_uuid(disk: Path, part: Part) -> str:
    """The partition's own UUID (GPT) or ``<disk id>-<number>`` (MBR),
    as the kernel's PARTUUID."""
    table = _table(disk)
    if table.get('label') == 'gpt':
        entries = table.get('partitions', [])
        return str(entries[part.number - 1]['uuid']).lower()
    disk_id = str(table.get('id', '0x0')).removeprefix('0x')
    return f'{disk_id.lower()}-{part.number:02x}'


def _check(result: Any, what: str) -> None:
    if result.returncode != 0:
        raise images.ImageError(
            f'{what} failed: {result.stderr.strip()[-500:]}'
        )


def _mkfs(disk: Path, part: Part, fmt: str, label: str) -> None:
    """A filesystem of ``fmt`` inside ``part`` only."""
    purpose = f'the {label} filesystem'
    if fmt == 'vfat':
        args = [
            configdrive.tool('mkfs.vfat', 'dosfstools', purpose),
            # (chosen by the partition's size, as mkfs.fat would for a
            # device of that size: it looks at the whole file)
            '-F',
            '32' if part.size_mib >= FAT32_FROM_MIB else '16',
            '-n',
            label,
            '--offset',
            str(part.offset // SECTOR),
            str(disk),
            str(part.size // 1024),
        ]
    else:
        args = [
            configdrive.tool(f'mkfs.{fmt}', 'e2fsprogs', purpose),
            '-F',
            '-q',
            '-L',
            label,
            '-E',
            f'offset={part.offset}',
            str(disk),
            f'{part.size // 1024}k',
        ]
    _check(configdrive.run(args), f'mkfs.{fmt} of partition {part.number}')


def _mkswap(disk: Path, part: Part, work: Path) -> None:
    """A swap signature (``swap1``) at the start of ``part``: made by
    mkswap on a file of the partition's size, its first page copied."""
    scratch = work / 'swap'
    with scratch.open('wb') as handle:
        handle.truncate(part.size)
    scratch.chmod(0o600)
    _check(
        configdrive.run(
            [
                configdrive.tool('mkswap', 'util-linux', 'the swap partition'),
                '-L',
                'swap1',
                str(scratch),
            ]
        ),
        'mkswap',
    )
    header = scratch.read_bytes()[: os.sysconf('SC_PAGE_SIZE')]
    with disk.open('r+b') as device:
        device.seek(part.offset)
        device.write(header)


def _write_drive(disk: Path, part: Part, iso: bytes) -> None:
    with disk.open('r+b') as device:
        device.seek(part.offset)
        device.write(iso)
        device.flush()
        os.fsync(device.fileno())


def prepare(
    disk: Path,
    image_info: Any,
    iso: bytes | None,
    efi_mib: int,
    progress: images.Progress,
    stopping: Callable[[], bool],
) -> str:
    """Partition ``disk`` and write the image into its root partition
    (and ``iso``, the config drive, into its own); upstream's result
    message with ``root_uuid=``."""
    info = images.ImageInfo.parse(image_info)
    layout = Layout.parse(image_info)
    if not disk.is_file():
        raise images.ImageError(f'the root device {disk} does not exist')
    drive_mib = math.ceil(len(iso) / MIB) if iso else 0
    parts = plan(layout, drive_mib, efi_mib)
    need = LEAD_MIB + sum(p.size_mib for p in parts) + TAIL_MIB
    have = disk.stat().st_size // MIB
    if need > have:
        sizes = ', '.join(f'{p.role} {p.size_mib}' for p in parts)
        raise images.ImageError(
            f'the partitions of image {info.image_id} need {need} MiB '
            f'({sizes}, and {LEAD_MIB + TAIL_MIB} for the table): the '
            f'device {disk} has {have} MiB'
        )
    by_role = {p.role: p for p in parts}
    root = by_role['root']
    if layout.preserve_ephemeral and 'ephemeral' in by_role:
        _same_layout(disk, layout, parts)
    else:
        disks.erase_metadata(disk)
        configdrive.sfdisk(
            disk,
            '--no-reread',
            '--no-tell-kernel',
            stdin=_script(layout, parts),
        )
    if iso is not None:
        _write_drive(disk, by_role['configdrive'], iso)
    images.write_image(
        disk,
        info,
        progress,
        stopping,
        images.Area(
            root.offset,
            root.size,
            f'the root partition ({layout.root_mb} MiB)',
        ),
    )
    if 'swap' in by_role:
        with tempfile.TemporaryDirectory(
            prefix='.swap-', dir=disk.parent
        ) as work:
            _mkswap(disk, by_role['swap'], Path(work))
    if 'ephemeral' in by_role and not layout.preserve_ephemeral:
        _mkfs(
            disk, by_role['ephemeral'], layout.ephemeral_format, 'ephemeral0'
        )
    root_uuid = _probe(disk, root, 'UUID') or _partition_uuid(disk, root)
    message = (
        f'prepare_image: image ({info.image_id}) written to device {disk} '
        f'root_uuid={root_uuid}'
    )
    if layout.boot_mode == 'uefi':
        efi = by_role['efi']
        _mkfs(disk, efi, 'vfat', 'efi-part')
        message += f' efi_system_partition_uuid={_probe(disk, efi, "UUID")}'
    return message


def _parts_on(disk: Path) -> list[Part]:
    table = _table(disk)
    return [
        Part(
            'found',
            number,
            int(p['start']) * SECTOR // MIB,
            int(p['size']) * SECTOR // MIB,
        )
        for number, p in enumerate(table.get('partitions', []), 1)
    ]


def _find(disk: Path, uuid: str, what: str) -> Part:
    """The partition of ``disk`` whose filesystem or own UUID is
    ``uuid``."""
    wanted = uuid.lower()
    for part in _parts_on(disk):
        if wanted in (
            _probe(disk, part, 'UUID').lower(),
            _partition_uuid(disk, part),
        ):
            return part
    raise images.ImageError(
        f'no partition of {disk} has the UUID {uuid} of the {what}'
    )


def install_bootloader(disk: Path, params: dict[str, Any]) -> str:
    """``image.install_bootloader``: the partitions the conductor names
    must be on the device (the root, and the EFI system partition in
    UEFI mode), else the command fails.

    The disk of an emulated machine is a file that no firmware reads:
    this agent installs no GRUB into it and says so in its result
    (ironic-python-agent does, on real hardware, through the same
    command).
    """
    root_uuid = params.get('root_uuid')
    if not root_uuid:
        raise images.ImageError('install_bootloader: root_uuid is required')
    root = _find(disk, str(root_uuid), 'root partition')
    message = (
        f'install_bootloader: root partition {root.number} of {disk} has '
        f'UUID {root_uuid}'
    )
    efi_uuid = params.get('efi_system_part_uuid')
    if params.get('target_boot_mode') == 'uefi' and efi_uuid:
        efi = _find(disk, str(efi_uuid), 'EFI system partition')
        if _probe(disk, efi, 'TYPE') != 'vfat':
            raise images.ImageError(
                f'the EFI system partition {efi.number} of {disk} holds no '
                'FAT filesystem'
            )
        message += f'; EFI system partition {efi.number} has UUID {efi_uuid}'
    return (
        message + '; no boot loader written: the disk file of an emulated '
        'machine is not booted by firmware'
    )
