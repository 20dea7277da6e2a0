"""The ``redfish`` inspect interface: out-of-band inspection from the
system's Redfish inventory (after upstream's redfish inspect.py).

``inspect_hardware`` reads memory (MemorySummary), processors, the
drives of the Storage resources, the EthernetInterfaces and the boot
mode, and then, as upstream's redfish inspection with its default hooks:

- sets the node's ``memory_mb``, ``local_gb`` (the smallest disk of at
  least 4 GiB, less 1 GiB; 0 for a disk-less node) and ``cpu_arch``,
  and the ``boot_mode`` capability when the node has none;
- creates a port for every NIC with a valid MAC the node has no port
  for (a MAC another node uses is logged and skipped);
- stores the inventory (``GET /v1/nodes/{node}/inventory``).

It fails (``inspect failed``) when memory_mb, local_gb or cpu_arch
cannot be found (upstream's essential properties).
"""

from typing import Any

from oslo_log import log as logging
from oslo_utils import netutils

from ironic_lite import exception
from ironic_lite.db import node_inventory
from ironic_lite.db import ports as db_ports
from ironic_lite.drivers import base
from ironic_lite.drivers import standard
from ironic_lite.drivers.redfish import inventory as redfish_inventory
from ironic_lite.drivers.redfish import utils

LOG = logging.getLogger(__name__)

ESSENTIAL_PROPERTIES = ('memory_mb', 'local_gb', 'cpu_arch')


def _with_capability(capabilities: Any, name: str, value: str) -> str:
    """``capabilities`` ("k:v,k2:v2") with ``name`` set when absent."""
    pairs = [p for p in str(capabilities or '').split(',') if p]
    if any(p.split(':', 1)[0] == name for p in pairs):
        return ','.join(pairs)
    return ','.join([*pairs, f'{name}:{value}'])


def create_ports(
    task: base.TaskLike, interfaces: list[dict[str, Any]]
) -> list[str]:
    """A port for each interface's MAC; the MACs added."""
    node = task.node
    known = {
        port['address']
        for port in db_ports.list_page(
            task.context, db_ports.Filters(node_id=node.id)
        )
    }
    added = []
    for interface in interfaces:
        mac = interface['mac_address']
        if mac in known:
            continue
        try:
            db_ports.create(
                task.context,
                {
                    'node_id': node.id,
                    'address': mac,
                    'pxe_enabled': True,
                    'extra': {},
                },
            )
        except exception.MACAlreadyExists:
            LOG.info(
                'Port already exists for MAC address %(mac)s for '
                'node %(node)s',
                {'mac': mac, 'node': node.uuid},
            )
            continue
        LOG.info(
            'Port created for MAC address %(mac)s for node %(node)s',
            {'mac': mac, 'node': node.uuid},
        )
        added.append(mac)
    return added


class RedfishInspect(standard.InspectInterface):
    """Synchronous, out-of-band inspection through the BMC."""

    def get_properties(self) -> dict[str, str]:
        return dict(utils.COMMON_PROPERTIES)

    def validate(self, task: base.TaskLike) -> None:
        utils.parse_driver_info(task.node)

    def inspect_hardware(self, task: base.TaskLike) -> str | None:
        node = task.node
        inventory = utils.call(
            self.conf,
            node,
            lambda system: redfish_inventory.read(system, node.uuid),
            'Reading the hardware inventory',
        )
        properties = dict(node.properties or {})
        properties.update(redfish_inventory.properties(inventory))
        missing = sorted(set(ESSENTIAL_PROPERTIES) - set(properties))
        if missing:
            raise exception.HardwareInspectionFailure(
                error=f'Failed to discover the following properties: '
                f'{", ".join(missing)} on node {node.uuid}'
            )
        boot_mode = inventory.get('boot', {}).get('current_boot_mode')
        if boot_mode:
            properties['capabilities'] = _with_capability(
                properties.get('capabilities'), 'boot_mode', boot_mode
            )
        interfaces = [
            i
            for i in inventory['interfaces']
            if netutils.is_valid_mac(i['mac_address'])
        ]
        added = create_ports(task, interfaces)
        node_inventory.store(task.context, node.id, inventory, {})
        node.properties = properties
        LOG.info(
            'Node %(node)s inspected through Redfish: %(props)s; '
            'ports added for %(macs)s',
            {
                'node': node.uuid,
                'props': properties,
                'macs': ', '.join(added) or 'none',
            },
        )
        return None
