"""A Redfish system's hardware as an inventory in the agent's format
(what upstream's redfish inspection stores), and the node properties it
gives."""

from typing import Any

from oslo_log import log as logging
import sushy

LOG = logging.getLogger(__name__)

#: Redfish InstructionSet -> cpu architecture (upstream's map).
ARCHITECTURES = {
    sushy.InstructionSet.ARM_A32: 'arm',
    sushy.InstructionSet.ARM_A64: 'aarch64',
    sushy.InstructionSet.IA_64: 'ia64',
    sushy.InstructionSet.MIPS32: 'mips',
    sushy.InstructionSet.MIPS64: 'mips64',
    sushy.InstructionSet.X86: 'i686',
    sushy.InstructionSet.X86_64: 'x86_64',
}
BOOT_MODES = {
    sushy.BOOT_SOURCE_MODE_UEFI: 'uefi',
    sushy.BOOT_SOURCE_MODE_BIOS: 'bios',
}
GiB = 1024**3
#: Disks smaller than this are not the root disk (upstream's 4 GiB).
MIN_DISK_BYTES = 4 * GiB


def _optional(node_uuid: str, what: str, read: Any) -> Any:
    """``read()``, or None when the BMC does not describe ``what``."""
    try:
        return read()
    except (
        sushy.exceptions.MissingAttributeError,
        sushy.exceptions.SushyError,
    ) as exc:
        LOG.debug(
            'Node %(node)s: no %(what)s in the Redfish inventory: %(err)s',
            {'node': node_uuid, 'what': what, 'err': exc},
        )
        return None


def _cpu(system: Any) -> dict[str, Any]:
    cpu: dict[str, Any] = {'count': 0, 'architecture': ''}
    processors = system.processors
    if not processors:
        return cpu
    if processors.summary:
        cpu['count'] = processors.summary[0]
    members = processors.get_members()
    if members:
        first = members[0]
        if first.model is not None:
            cpu['model_name'] = str(first.model)
        if first.max_speed_mhz is not None:
            cpu['frequency'] = first.max_speed_mhz
        cpu['architecture'] = ARCHITECTURES.get(first.instruction_set, '')
    return cpu


def _disks(system: Any) -> list[dict[str, Any]]:
    return [
        {'name': drive.name, 'size': drive.capacity_bytes}
        for storage in system.storage.get_members()
        for drive in storage.drives
    ]


def _interfaces(system: Any) -> list[dict[str, Any]]:
    found = []
    for nic in system.ethernet_interfaces.get_members():
        if not nic.mac_address:
            continue
        interface: dict[str, Any] = {
            'name': nic.identity,
            'mac_address': nic.mac_address.lower(),
        }
        if nic.speed_mbps is not None:
            interface['speed_mbps'] = int(nic.speed_mbps)
        found.append(interface)
    return found


def read(system: Any, node_uuid: str) -> dict[str, Any]:
    """The inventory: memory, cpu, disks, interfaces, boot."""
    system.refresh(force=True)
    inventory: dict[str, Any] = {
        'cpu': _optional(node_uuid, 'processors', lambda: _cpu(system))
        or {'count': 0, 'architecture': ''},
        'interfaces': _optional(node_uuid, 'NICs', lambda: _interfaces(system))
        or [],
    }
    memory = system.memory_summary
    if memory is not None and memory.size_gib:
        inventory['memory'] = {'physical_mb': int(memory.size_gib * 1024)}
    disks = _optional(node_uuid, 'storage', lambda: _disks(system))
    if disks is not None:
        inventory['disks'] = disks
    mode = BOOT_MODES.get(system.boot.mode)
    if mode:
        inventory['boot'] = {'current_boot_mode': mode}
    return inventory


def properties(inventory: dict[str, Any]) -> dict[str, Any]:
    """memory_mb, local_gb and cpu_arch, where the inventory has them."""
    found: dict[str, Any] = {}
    if 'memory' in inventory:
        found['memory_mb'] = inventory['memory']['physical_mb']
    if inventory['cpu'].get('architecture'):
        found['cpu_arch'] = inventory['cpu']['architecture']
    sizes = [
        d['size']
        for d in inventory.get('disks') or []
        if d.get('size') and d['size'] >= MIN_DISK_BYTES
    ]
    # The smallest big enough disk, less 1 GiB for partitioning (as
    # upstream); a disk-less node has 0.
    found['local_gb'] = max(0, min(sizes) // GiB - 1) if sizes else 0
    return found
