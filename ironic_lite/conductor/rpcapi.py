"""Client side of the bare metal conductor RPC API.

Topic ``ironic-lite.conductor``; the server name is the conductor's
``[DEFAULT]host``. A request about a node goes to the conductor that
owns it by the hash ring (:mod:`ironic_lite.conductor.routing`, which
also says what happens when that conductor is down). The calls that
reach a node's hardware and leave its provisioning alone are in
:mod:`ironic_lite.conductor.rpcapi_hardware`.

Calls are synchronous (``call``): the conductor validates the request
and takes the node lock before it answers, so the API can turn a refusal
into the right status (``code`` of the ironic_lite exception: 400
invalid steps or state, 409 NodeLocked, 503 NoFreeConductorWorker);
the long work then runs on the conductor's worker pool.

1.0: create_node, update_node, destroy_node, change_power_state,
     do_provisioning_action, get_clean_steps, continue_node_clean
1.1: update_node takes expected_revision
1.2: update_volume, destroy_volume (volume connectors and targets),
     get_supported_indicators, get_indicator_state, set_indicator_state
1.3: create_node takes provision_state (available: API before 1.11);
     the hash ring honours the nodes' and conductors' conductor groups;
     set_target_raid_config
1.4: add_node_traits, remove_node_traits
1.5: create_port, update_port, destroy_port, update_portgroup,
     destroy_portgroup, get_boot_device, set_boot_device,
     get_supported_boot_devices, get_driver_properties, inject_nmi;
     do_provisioning_action takes configdrive
1.6: validate_driver_interfaces, set_console_mode,
     get_console_information, vendor_passthru,
     get_node_vendor_passthru_methods, driver_vendor_passthru,
     get_driver_vendor_passthru_methods, get_raid_logical_disk_properties,
     vif_attach, vif_detach, vif_list; do_provisioning_action takes
     rescue_password
1.7: get_node_with_token, heartbeat (ramdisk agents)
1.8: create_allocation, destroy_allocation
1.9: change_node_boot_mode, change_node_secure_boot
1.10: do_provisioning_action takes deploy_steps
1.11: get_virtual_media, attach_virtual_media, detach_virtual_media
1.12: continue_inspection
1.13: do_provisioning_action takes service_steps and disable_ramdisk
"""

from typing import Any
from typing import cast

from oslo_config import cfg
import oslo_messaging as messaging

from ironic_lite.common import states
from ironic_lite.conductor import rpcapi_hardware
from lite_common.context import RequestContext

TOPIC = 'ironic-lite.conductor'
VERSION = '1.13'


class ConductorAPI(rpcapi_hardware.HardwareCalls):
    """What ironic-lite-api asks of the conductors."""

    def __init__(
        self, conf: cfg.ConfigOpts, timeout: int | None = None
    ) -> None:
        super().__init__(
            conf, messaging.Target(topic=TOPIC, version=VERSION), timeout
        )

    def create_node(
        self,
        context: RequestContext,
        values: dict[str, Any],
        provision_state: str = states.ENROLL,
    ) -> dict[str, Any]:
        """Validate the hardware type and interfaces, insert the node
        in ``provision_state`` (``enroll``, or ``available``: requests
        before API 1.11).

        ``values`` must hold ``uuid`` and ``driver``; returns the node.
        """
        kwargs: dict[str, Any] = {}
        if provision_state != states.ENROLL:
            kwargs['provision_state'] = provision_state
        return cast(
            'dict[str, Any]',
            self._call(
                context, values, 'create_node', values=values, **kwargs
            ),
        )

    def update_node(
        self,
        context: RequestContext,
        node: dict[str, Any],
        values: dict[str, Any],
        expected_revision: int | None = None,
    ) -> dict[str, Any]:
        """Apply ``values`` under the node lock; returns the node. With
        ``expected_revision``, only if the node is still at it
        (:class:`~ironic_lite.exception.NodeChanged` otherwise)."""
        kwargs: dict[str, Any] = {}
        if expected_revision is not None:
            kwargs['expected_revision'] = expected_revision
        return cast(
            'dict[str, Any]',
            self._call(
                context,
                node,
                'update_node',
                node_uuid=node['uuid'],
                values=values,
                **kwargs,
            ),
        )

    def destroy_node(
        self, context: RequestContext, node: dict[str, Any]
    ) -> None:
        self._call(context, node, 'destroy_node', node_uuid=node['uuid'])

    def change_power_state(
        self, context: RequestContext, node: dict[str, Any], target: str
    ) -> None:
        self._call(
            context,
            node,
            'change_power_state',
            node_uuid=node['uuid'],
            target=target,
        )

    def do_provisioning_action(
        self,
        context: RequestContext,
        node: dict[str, Any],
        action: str,
        clean_steps: list[dict[str, Any]] | None = None,
        configdrive: str | dict[str, Any] | None = None,
        rescue_password: str | None = None,
        deploy_steps: list[dict[str, Any]] | None = None,
        service_steps: list[dict[str, Any]] | None = None,
        disable_ramdisk: bool | None = None,
    ) -> None:
        """``action``: an event of :data:`states.ALLOWED_PROVISION_VERBS`;
        ``configdrive`` (a deployment) and ``rescue_password`` (rescue):
        kept in ``instance_info``."""
        kwargs: dict[str, Any] = {}
        if configdrive:
            # Only when given: a conductor of 1.4 takes no such argument.
            kwargs['configdrive'] = configdrive
        if rescue_password:
            # Likewise (1.6).
            kwargs['rescue_password'] = rescue_password
        if deploy_steps:
            # Likewise (1.10).
            kwargs['deploy_steps'] = deploy_steps
        if service_steps:
            # Likewise (1.13).
            kwargs['service_steps'] = service_steps
        if disable_ramdisk is not None and service_steps:
            kwargs['disable_ramdisk'] = disable_ramdisk
        self._call(
            context,
            node,
            'do_provisioning_action',
            node_uuid=node['uuid'],
            action=action,
            clean_steps=clean_steps,
            **kwargs,
        )

    def set_target_raid_config(
        self,
        context: RequestContext,
        node: dict[str, Any],
        target_raid_config: dict[str, Any],
    ) -> None:
        """Validate and store the node's target RAID configuration."""
        self._call(
            context,
            node,
            'set_target_raid_config',
            node_uuid=node['uuid'],
            target_raid_config=target_raid_config,
        )

    def get_clean_steps(
        self, context: RequestContext, node: dict[str, Any]
    ) -> dict[str, list[dict[str, Any]]]:
        """``{'automated': [...in execution order], 'manual': [...]}``."""
        return cast(
            'dict[str, list[dict[str, Any]]]',
            self._call(
                context, node, 'get_clean_steps', node_uuid=node['uuid']
            ),
        )

    def update_volume(
        self,
        context: RequestContext,
        node: dict[str, Any],
        kind: str,
        uuid: str,
        values: dict[str, Any],
    ) -> dict[str, Any]:
        """Change a volume connector or target (``kind``
        ``volume_connector`` or ``volume_target``) of ``node`` (the node
        it belongs to after the change); returns it."""
        return cast(
            'dict[str, Any]',
            self._call(
                context,
                node,
                'update_volume',
                node_uuid=node['uuid'],
                kind=kind,
                uuid=uuid,
                values=values,
            ),
        )

    def destroy_volume(
        self,
        context: RequestContext,
        node: dict[str, Any],
        kind: str,
        uuid: str,
    ) -> None:
        self._call(
            context,
            node,
            'destroy_volume',
            node_uuid=node['uuid'],
            kind=kind,
            uuid=uuid,
        )

    def create_port(
        self,
        context: RequestContext,
        node: dict[str, Any],
        values: dict[str, Any],
    ) -> dict[str, Any]:
        """Create a port of ``node`` (``values`` hold its node_id)."""
        return cast(
            'dict[str, Any]',
            self._call(
                context,
                node,
                'create_port',
                node_uuid=node['uuid'],
                values=values,
            ),
        )

    def update_port(
        self,
        context: RequestContext,
        node: dict[str, Any],
        uuid: str,
        values: dict[str, Any],
    ) -> dict[str, Any]:
        """Change a port of ``node`` (the node it belongs to after the
        change); returns it."""
        return cast(
            'dict[str, Any]',
            self._call(
                context,
                node,
                'update_port',
                node_uuid=node['uuid'],
                uuid=uuid,
                values=values,
            ),
        )

    def destroy_port(
        self, context: RequestContext, node: dict[str, Any], uuid: str
    ) -> None:
        self._call(
            context, node, 'destroy_port', node_uuid=node['uuid'], uuid=uuid
        )

    def update_portgroup(
        self,
        context: RequestContext,
        node: dict[str, Any],
        uuid: str,
        values: dict[str, Any],
    ) -> dict[str, Any]:
        """Change a portgroup of ``node`` (the node it belongs to after
        the change); returns it."""
        return cast(
            'dict[str, Any]',
            self._call(
                context,
                node,
                'update_portgroup',
                node_uuid=node['uuid'],
                uuid=uuid,
                values=values,
            ),
        )

    def destroy_portgroup(
        self, context: RequestContext, node: dict[str, Any], uuid: str
    ) -> None:
        self._call(
            context,
            node,
            'destroy_portgroup',
            node_uuid=node['uuid'],
            uuid=uuid,
        )

    def vif_attach(
        self,
        context: RequestContext,
        node: dict[str, Any],
        vif_info: dict[str, Any],
    ) -> None:
        self._call(
            context,
            node,
            'vif_attach',
            node_uuid=node['uuid'],
            vif_info=vif_info,
        )

    def vif_detach(
        self, context: RequestContext, node: dict[str, Any], vif_id: str
    ) -> None:
        self._call(
            context, node, 'vif_detach', node_uuid=node['uuid'], vif_id=vif_id
        )

    def vif_list(
        self, context: RequestContext, node: dict[str, Any]
    ) -> list[dict[str, Any]]:
        return cast(
            'list[dict[str, Any]]',
            self._call(context, node, 'vif_list', node_uuid=node['uuid']),
        )

    def add_node_traits(
        self,
        context: RequestContext,
        node: dict[str, Any],
        traits: list[str],
        replace: bool,
    ) -> list[str]:
        return cast(
            'list[str]',
            self._call(
                context,
                node,
                'add_node_traits',
                node_uuid=node['uuid'],
                traits=traits,
                replace=replace,
            ),
        )

    def remove_node_traits(
        self,
        context: RequestContext,
        node: dict[str, Any],
        traits: list[str] | None,
    ) -> list[str]:
        return cast(
            'list[str]',
            self._call(
                context,
                node,
                'remove_node_traits',
                node_uuid=node['uuid'],
                traits=traits,
            ),
        )

    def get_node_with_token(
        self, context: RequestContext, node: dict[str, Any]
    ) -> dict[str, Any]:
        result: dict[str, Any] = self._call(
            context, node, 'get_node_with_token', node_uuid=node['uuid']
        )
        return result

    def heartbeat(
        self,
        context: RequestContext,
        node: dict[str, Any],
        callback_url: str,
        agent_version: str | None,
        agent_token: str | None,
        agent_verify_ca: str | None,
        agent_status: str | None,
        agent_status_message: str | None,
    ) -> None:
        self._call(
            context,
            node,
            'heartbeat',
            node_uuid=node['uuid'],
            callback_url=callback_url,
            agent_version=agent_version,
            agent_token=agent_token,
            agent_verify_ca=agent_verify_ca,
            agent_status=agent_status,
            agent_status_message=agent_status_message,
        )

    def create_allocation(
        self,
        context: RequestContext,
        values: dict[str, Any],
        node: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """On the node's conductor when backfilling ``node``, else on
        any alive conductor (which then processes the allocation)."""
        result: dict[str, Any]
        if node is not None:
            result = self._call(
                context,
                node,
                'create_allocation',
                values=values,
                node_uuid=node['uuid'],
            )
        else:
            result = self._call_any(
                context, values['uuid'], 'create_allocation', values=values
            )
        return result

    def destroy_allocation(
        self,
        context: RequestContext,
        allocation: dict[str, Any],
        node: dict[str, Any] | None = None,
    ) -> None:
        if node is not None:
            self._call(
                context,
                node,
                'destroy_allocation',
                allocation_uuid=allocation['uuid'],
            )
        else:
            self._call_any(
                context,
                allocation['uuid'],
                'destroy_allocation',
                allocation_uuid=allocation['uuid'],
            )

    def continue_inspection(
        self,
        context: RequestContext,
        node: dict[str, Any],
        inventory: dict[str, Any],
        plugin_data: dict[str, Any],
    ) -> None:
        self._call(
            context,
            node,
            'continue_inspection',
            node_uuid=node['uuid'],
            inventory=inventory,
            plugin_data=plugin_data,
        )

    def continue_node_clean(
        self, context: RequestContext, node: dict[str, Any]
    ) -> None:
        """Resume cleaning of a node in ``clean wait`` (a step's callback)."""
        self._prepare(context, node).cast(
            context, 'continue_node_clean', node_uuid=node['uuid']
        )
