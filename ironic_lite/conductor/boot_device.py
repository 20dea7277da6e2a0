"""RPC endpoints of a node's boot device, through its management
interface, and of a driver's properties (other endpoints of topic
``ironic-lite.conductor``).

A change takes the node lock and is saved with the node (the fake
interface keeps it in ``driver_internal_info``); reads share the node,
so that a read never makes a concurrent change fail with NodeLocked
(upstream locks for the current boot device too).
"""

from typing import Any

from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.conductor import endpoint
from ironic_lite.conductor.indicators import management_of
from ironic_lite.drivers import hardware
from ironic_lite.drivers import noop
from ironic_lite.drivers import standard
from lite_common import rpc
from lite_common.context import RequestContext

LOG = logging.getLogger(__name__)


class DriverManager(endpoint.NodeEndpoint):
    """get_driver_properties, get_raid_logical_disk_properties (no node:
    a hardware type this conductor loads)."""

    @rpc.expected_exceptions(*endpoint.EXPECTED)
    def get_driver_properties(
        self, context: RequestContext, driver_name: str
    ) -> dict[str, str]:
        return hardware.driver_properties(self.conf, driver_name)

    @rpc.expected_exceptions(*endpoint.EXPECTED)
    def get_raid_logical_disk_properties(
        self, context: RequestContext, driver_name: str
    ) -> dict[str, str]:
        """Of the hardware type's default RAID interface.

        :raises UnsupportedDriverExtension: that is ``no-raid``.
        """
        raid = hardware.load_interfaces(self.conf, driver_name, {})['raid']
        if isinstance(raid, noop.NoRAID):
            raise exception.UnsupportedDriverExtension(
                driver=driver_name, extension='raid'
            )
        assert isinstance(raid, standard.RAIDInterface)
        return raid.get_logical_disk_properties()


class BootDeviceManager(endpoint.NodeEndpoint):
    """get_boot_device, set_boot_device, get_supported_boot_devices,
    inject_nmi."""

    @rpc.expected_exceptions(*endpoint.EXPECTED)
    def get_boot_device(
        self, context: RequestContext, node_uuid: str
    ) -> dict[str, Any]:
        with self._task(
            context, node_uuid, 'getting boot device', shared=True
        ) as task:
            management = management_of(task)
            management.validate(task)
            return management.get_boot_device(task)

    @rpc.expected_exceptions(*endpoint.EXPECTED)
    def get_supported_boot_devices(
        self, context: RequestContext, node_uuid: str
    ) -> list[str]:
        with self._task(
            context, node_uuid, 'getting supported boot devices', shared=True
        ) as task:
            return management_of(task).get_supported_boot_devices(task)

    @rpc.expected_exceptions(*endpoint.EXPECTED)
    def set_boot_device(
        self,
        context: RequestContext,
        node_uuid: str,
        device: str,
        persistent: bool = False,
    ) -> None:
        """:raises InvalidParameterValue: a device the node's management
        interface does not support."""
        with self._task(context, node_uuid, 'setting boot device') as task:
            management = management_of(task)
            management.validate(task)
            management.set_boot_device(task, device, persistent=persistent)
            task.save()
        LOG.info(
            'Boot device of node %(node)s set to %(device)s '
            '(persistent: %(persistent)s)',
            {'node': node_uuid, 'device': device, 'persistent': persistent},
        )

    @rpc.expected_exceptions(*endpoint.EXPECTED)
    def inject_nmi(self, context: RequestContext, node_uuid: str) -> None:
        """:raises UnsupportedDriverExtension: the management interface
        cannot."""
        with self._task(context, node_uuid, 'inject nmi') as task:
            management = management_of(task)
            management.validate(task)
            management.inject_nmi(task)
        LOG.info('Injected an NMI into node %s', node_uuid)
