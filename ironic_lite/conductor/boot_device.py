"""RPC endpoint of a node's boot device, through its management
interface (another endpoint of topic ``ironic-lite.conductor``).

A change takes the node lock and is saved with the node (the fake
interface keeps it in ``driver_internal_info``); reads share the node,
so that a read never makes a concurrent change fail with NodeLocked
(upstream locks for the current boot device too).
"""

from typing import Any

from oslo_log import log as logging
import oslo_messaging as messaging

from ironic_lite.conductor import endpoint
from ironic_lite.conductor.indicators import management_of

LOG = logging.getLogger(__name__)


class BootDeviceManager(endpoint.NodeEndpoint):
    """get_boot_device, set_boot_device, get_supported_boot_devices."""

    @messaging.expected_exceptions(*endpoint.EXPECTED)
    def get_boot_device(self, context: Any, node_uuid: str
                        ) -> dict[str, Any]:
        with self._task(context, node_uuid, 'getting boot device',
                        shared=True) as task:
            management = management_of(task)
            management.validate(task)
            return management.get_boot_device(task)

    @messaging.expected_exceptions(*endpoint.EXPECTED)
    def get_supported_boot_devices(self, context: Any,
                                   node_uuid: str) -> list[str]:
        with self._task(context, node_uuid,
                        'getting supported boot devices',
                        shared=True) as task:
            return management_of(task).get_supported_boot_devices(task)

    @messaging.expected_exceptions(*endpoint.EXPECTED)
    def set_boot_device(self, context: Any, node_uuid: str, device: str,
                        persistent: bool = False) -> None:
        """:raises InvalidParameterValue: a device the node's management
        interface does not support."""
        with self._task(context, node_uuid, 'setting boot device') as task:
            management = management_of(task)
            management.validate(task)
            management.set_boot_device(task, device, persistent=persistent)
            task.save()
        LOG.info('Boot device of node %(node)s set to %(device)s '
                 '(persistent: %(persistent)s)',
                 {'node': node_uuid, 'device': device,
                  'persistent': persistent})
