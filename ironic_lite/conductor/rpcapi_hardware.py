"""The calls of the conductor RPC API that reach a node's hardware
through its driver interfaces and leave its provisioning alone:
management (boot device, NMI, indicators, boot mode, secure boot,
virtual media), console, vendor passthru, and what a hardware type
declares (properties, RAID disk properties, interface validation).

The versions they came with are in :mod:`ironic_lite.conductor.rpcapi`.
"""

from typing import Any
from typing import cast

from ironic_lite.conductor import routing
from lite_common.context import RequestContext


class HardwareCalls(routing.RoutedClient):
    """What ironic-lite-api asks of a node's hardware."""

    def get_driver_properties(
        self, context: RequestContext, driver_name: str
    ) -> dict[str, str]:
        """On a conductor that loads hardware type ``driver_name``.

        :raises NoValidHost: none does.
        """
        return cast(
            'dict[str, str]',
            self._call(
                context,
                {'uuid': driver_name, 'driver': driver_name},
                'get_driver_properties',
                driver_name=driver_name,
            ),
        )

    def validate_driver_interfaces(
        self, context: RequestContext, node: dict[str, Any]
    ) -> dict[str, dict[str, Any]]:
        return cast(
            'dict[str, dict[str, Any]]',
            self._call(
                context,
                node,
                'validate_driver_interfaces',
                node_uuid=node['uuid'],
            ),
        )

    def set_console_mode(
        self, context: RequestContext, node: dict[str, Any], enabled: bool
    ) -> None:
        self._call(
            context,
            node,
            'set_console_mode',
            node_uuid=node['uuid'],
            enabled=enabled,
        )

    def get_console_information(
        self, context: RequestContext, node: dict[str, Any]
    ) -> dict[str, Any]:
        return cast(
            'dict[str, Any]',
            self._call(
                context,
                node,
                'get_console_information',
                node_uuid=node['uuid'],
            ),
        )

    def vendor_passthru(
        self,
        context: RequestContext,
        node: dict[str, Any],
        method: str,
        http_method: str,
        args: dict[str, Any],
    ) -> dict[str, Any]:
        return cast(
            'dict[str, Any]',
            self._call(
                context,
                node,
                'vendor_passthru',
                node_uuid=node['uuid'],
                driver_method=method,
                http_method=http_method,
                args=args,
            ),
        )

    def get_node_vendor_passthru_methods(
        self, context: RequestContext, node: dict[str, Any]
    ) -> dict[str, Any]:
        return cast(
            'dict[str, Any]',
            self._call(
                context,
                node,
                'get_node_vendor_passthru_methods',
                node_uuid=node['uuid'],
            ),
        )

    def driver_vendor_passthru(
        self,
        context: RequestContext,
        driver_name: str,
        method: str,
        http_method: str,
        args: dict[str, Any],
    ) -> dict[str, Any]:
        """On a conductor that loads hardware type ``driver_name``."""
        return cast(
            'dict[str, Any]',
            self._call(
                context,
                {'uuid': driver_name, 'driver': driver_name},
                'driver_vendor_passthru',
                driver_name=driver_name,
                driver_method=method,
                http_method=http_method,
                args=args,
            ),
        )

    def get_driver_vendor_passthru_methods(
        self, context: RequestContext, driver_name: str
    ) -> dict[str, Any]:
        return cast(
            'dict[str, Any]',
            self._call(
                context,
                {'uuid': driver_name, 'driver': driver_name},
                'get_driver_vendor_passthru_methods',
                driver_name=driver_name,
            ),
        )

    def get_raid_logical_disk_properties(
        self, context: RequestContext, driver_name: str
    ) -> dict[str, str]:
        """On a conductor that loads hardware type ``driver_name``."""
        return cast(
            'dict[str, str]',
            self._call(
                context,
                {'uuid': driver_name, 'driver': driver_name},
                'get_raid_logical_disk_properties',
                driver_name=driver_name,
            ),
        )

    def inject_nmi(
        self, context: RequestContext, node: dict[str, Any]
    ) -> None:
        self._call(context, node, 'inject_nmi', node_uuid=node['uuid'])

    def get_boot_device(
        self, context: RequestContext, node: dict[str, Any]
    ) -> dict[str, Any]:
        return cast(
            'dict[str, Any]',
            self._call(
                context, node, 'get_boot_device', node_uuid=node['uuid']
            ),
        )

    def get_supported_boot_devices(
        self, context: RequestContext, node: dict[str, Any]
    ) -> list[str]:
        return cast(
            'list[str]',
            self._call(
                context,
                node,
                'get_supported_boot_devices',
                node_uuid=node['uuid'],
            ),
        )

    def set_boot_device(
        self,
        context: RequestContext,
        node: dict[str, Any],
        device: str,
        persistent: bool,
    ) -> None:
        self._call(
            context,
            node,
            'set_boot_device',
            node_uuid=node['uuid'],
            device=device,
            persistent=persistent,
        )

    def get_supported_indicators(
        self, context: RequestContext, node: dict[str, Any]
    ) -> dict[str, dict[str, Any]]:
        return cast(
            'dict[str, dict[str, Any]]',
            self._call(
                context,
                node,
                'get_supported_indicators',
                node_uuid=node['uuid'],
            ),
        )

    def get_indicator_state(
        self,
        context: RequestContext,
        node: dict[str, Any],
        component: str,
        indicator: str,
    ) -> str:
        return cast(
            str,
            self._call(
                context,
                node,
                'get_indicator_state',
                node_uuid=node['uuid'],
                component=component,
                indicator=indicator,
            ),
        )

    def set_indicator_state(
        self,
        context: RequestContext,
        node: dict[str, Any],
        component: str,
        indicator: str,
        state: str,
    ) -> None:
        self._call(
            context,
            node,
            'set_indicator_state',
            node_uuid=node['uuid'],
            component=component,
            indicator=indicator,
            state=state,
        )

    def get_virtual_media(
        self, context: RequestContext, node: dict[str, Any]
    ) -> Any:
        return self._call(
            context, node, 'get_virtual_media', node_uuid=node['uuid']
        )

    def attach_virtual_media(
        self,
        context: RequestContext,
        node: dict[str, Any],
        device_type: str,
        image_url: str,
    ) -> None:
        self._call(
            context,
            node,
            'attach_virtual_media',
            node_uuid=node['uuid'],
            device_type=device_type,
            image_url=image_url,
        )

    def detach_virtual_media(
        self,
        context: RequestContext,
        node: dict[str, Any],
        device_types: list[str] | None,
    ) -> None:
        self._call(
            context,
            node,
            'detach_virtual_media',
            node_uuid=node['uuid'],
            device_types=device_types,
        )

    def change_node_boot_mode(
        self, context: RequestContext, node: dict[str, Any], new_state: str
    ) -> None:
        self._call(
            context,
            node,
            'change_node_boot_mode',
            node_uuid=node['uuid'],
            new_state=new_state,
        )

    def change_node_secure_boot(
        self, context: RequestContext, node: dict[str, Any], new_state: bool
    ) -> None:
        self._call(
            context,
            node,
            'change_node_secure_boot',
            node_uuid=node['uuid'],
            new_state=new_state,
        )
