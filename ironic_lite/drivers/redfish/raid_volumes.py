"""Redfish volumes for the redfish RAID interface: RAID levels, drive
and storage choice, volume payloads (upstream's), creation and
deletion, and the volumes as ironic logical disks."""

from collections.abc import Callable
import time
from typing import Any

from oslo_log import log as logging
from sushy.taskmonitor import TaskMonitor

from ironic_lite.drivers.redfish import utils

LOG = logging.getLogger(__name__)

GiB = 1024**3
#: ironic RAID level -> (Redfish RAIDType, the fewest drives it needs).
RAID_LEVELS = {
    '0': ('RAID0', 1),
    '1': ('RAID1', 2),
    '5': ('RAID5', 3),
    '6': ('RAID6', 4),
    '1+0': ('RAID10', 4),
    '5+0': ('RAID50', 6),
    '6+0': ('RAID60', 8),
}
_LEVEL_OF = {raid_type: level for level, (raid_type, _) in RAID_LEVELS.items()}


def _raid_types(storage: Any) -> set[str]:
    return {
        str(getattr(t, 'value', t))
        for controller in storage.storage_controllers or []
        for t in controller.raid_types or []
    }


def _storage_for(system: Any, disk: dict[str, Any]) -> Any:
    raid_type = RAID_LEVELS[disk['raid_level']][0]
    storages = system.storage.get_members()
    named = disk.get('controller')
    for storage in storages:
        if named and storage.identity != named:
            continue
        if named or raid_type in _raid_types(storage):
            return storage
    which = f' {named}' if named else ''
    raise utils.RedfishError(
        error=f'no storage controller{which} offers {raid_type} '
        f'(storage: {", ".join(s.identity for s in storages) or "none"})'
    )


def _drives_for(
    storage: Any, disk: dict[str, Any], used: set[str]
) -> list[Any]:
    drives = {drive.identity: drive for drive in storage.drives}
    names = disk.get('physical_disks')
    if names:
        missing = sorted(set(names) - set(drives))
        if missing:
            raise utils.RedfishError(
                error=f'storage {storage.identity} has no drive(s) '
                f'{", ".join(missing)}'
            )
        return [drives[name] for name in names]
    need = RAID_LEVELS[disk['raid_level']][1]
    free = [
        drive for name, drive in sorted(drives.items()) if name not in used
    ]
    if len(free) < need:
        raise utils.RedfishError(
            error=f'RAID {disk["raid_level"]} needs {need} drive(s); '
            f'storage {storage.identity} has {len(free)} free'
        )
    return free[:need]


def payload(disk: dict[str, Any], drives: list[Any]) -> dict[str, Any]:
    """The Volume to POST (upstream's payload)."""
    body: dict[str, Any] = {
        'RAIDType': RAID_LEVELS[disk['raid_level']][0],
        'Links': {'Drives': [{'@odata.id': drive.path} for drive in drives]},
    }
    if disk.get('size_gb') != 'MAX':
        body['CapacityBytes'] = int(disk['size_gb']) * GiB
    if disk.get('volume_name'):
        body['Name'] = disk['volume_name']
    return body


def _wait(
    monitor: Any,
    node_uuid: str,
    what: str,
    timeout: int,
    checkpoint: Callable[[], None],
) -> None:
    deadline = time.monotonic() + timeout
    while monitor.is_processing:
        checkpoint()
        if time.monotonic() >= deadline:
            raise utils.RedfishError(
                error=f'{what} on node {node_uuid} did not end within '
                f'{timeout} s'
            )
        time.sleep(min(monitor.sleep_for or 1, 5))
        monitor.refresh()


def create(
    system: Any,
    node_uuid: str,
    disk: dict[str, Any],
    used: set[str],
    timeout: int,
    checkpoint: Callable[[], None],
) -> None:
    storage = _storage_for(system, disk)
    drives = _drives_for(storage, disk, used)
    used.update(drive.identity for drive in drives)
    body = payload(disk, drives)
    result = storage.volumes.create(body)
    if isinstance(result, TaskMonitor):
        _wait(result, node_uuid, 'Creating a volume', timeout, checkpoint)
    LOG.info(
        'Node %(node)s: RAID %(level)s volume created on storage '
        '%(storage)s with drives %(drives)s',
        {
            'node': node_uuid,
            'level': disk['raid_level'],
            'storage': storage.identity,
            'drives': ', '.join(d.identity for d in drives),
        },
    )


def delete_all(
    system: Any, node_uuid: str, timeout: int, checkpoint: Callable[[], None]
) -> int:
    deleted = 0
    for storage in system.storage.get_members():
        for volume in storage.volumes.get_members():
            if not volume.raid_type:
                continue
            checkpoint()
            result = volume.delete()
            if isinstance(result, TaskMonitor):
                _wait(
                    result, node_uuid, 'Deleting a volume', timeout, checkpoint
                )
            deleted += 1
    LOG.info(
        'Node %(node)s: %(n)d RAID volume(s) deleted',
        {'node': node_uuid, 'n': deleted},
    )
    return deleted


def logical_disks(system: Any) -> list[dict[str, Any]]:
    """The system's RAID volumes as ironic logical disks."""
    found = []
    for storage in system.storage.get_members():
        for volume in storage.volumes.get_members():
            raid_type = getattr(volume.raid_type, 'value', None)
            if raid_type not in _LEVEL_OF:
                continue
            found.append(
                {
                    'id': volume.identity,
                    'name': volume.name,
                    'controller': storage.identity,
                    'size_gb': int((volume.capacity_bytes or 0) / GiB),
                    'raid_level': _LEVEL_OF[raid_type],
                }
            )
    return found
