"""Every route of ironic-lite-api, in one table.

A path that exists with another method is a 405 with ``Allow``; an
unknown path is a 404 (both in the Bare Metal error format).

An operation that exists from some microversion on says so here:
``_since`` where a request below it is a 404 (the router's), ``_own``
where the handler answers it itself as upstream does (405 or 406, a 404
after the policy check, or a version that depends on the
configuration); the OpenAPI document reads the ranges from here.
"""

from ironic_lite.api import microversion as mv
from ironic_lite.api.handlers import allocations
from ironic_lite.api.handlers import bios
from ironic_lite.api.handlers import boot_device
from ironic_lite.api.handlers import chassis
from ironic_lite.api.handlers import cleaning
from ironic_lite.api.handlers import conductors
from ironic_lite.api.handlers import console
from ironic_lite.api.handlers import continue_inspection
from ironic_lite.api.handlers import deploy_templates
from ironic_lite.api.handlers import drivers
from ironic_lite.api.handlers import events
from ironic_lite.api.handlers import firmware
from ironic_lite.api.handlers import indicators
from ironic_lite.api.handlers import inspection_rules
from ironic_lite.api.handlers import node_history
from ironic_lite.api.handlers import node_links
from ironic_lite.api.handlers import node_states
from ironic_lite.api.handlers import node_traits
from ironic_lite.api.handlers import node_validate
from ironic_lite.api.handlers import nodes
from ironic_lite.api.handlers import portgroups
from ironic_lite.api.handlers import ports
from ironic_lite.api.handlers import ramdisk
from ironic_lite.api.handlers import root
from ironic_lite.api.handlers import runbook_traits
from ironic_lite.api.handlers import runbooks
from ironic_lite.api.handlers import vendor_passthru
from ironic_lite.api.handlers import vifs
from ironic_lite.api.handlers import vmedia
from ironic_lite.api.handlers import volume
from lite_common.wsgi.router import Handler
from lite_common.wsgi.router import RouteTable
from lite_common.wsgi.router import Versioned


def _since(handler: Handler, version: str) -> Versioned:
    """From ``version`` on; a 404 below it."""
    return Versioned(handler, since=version)


def _own(handler: Handler, version: str) -> Versioned:
    """From ``version`` on; the handler answers below it."""
    return Versioned(handler, since=version, answers_outside=True)


def _all_since(
    version: str, methods: dict[str, Handler], own: bool = False
) -> dict[str, Versioned]:
    """Every method of a path from ``version`` on (``own``: the
    handlers answer below it)."""
    return {
        method: Versioned(handler, since=version, answers_outside=own)
        for method, handler in methods.items()
    }


_NODE = '/v1/nodes/{node_ident}'
_VOLUME = '/v1/volume'
_ITEM = '/{item_uuid}'

ROUTES: RouteTable = {
    '/': {'GET': root.list_versions},
    '/v1': {'GET': root.show_v1},
    '/openapi.json': {'GET': root.show_openapi},
    '/v1/nodes': {'GET': nodes.list_nodes, 'POST': nodes.create_node},
    '/v1/nodes/detail': {'GET': nodes.list_nodes_detail},
    _NODE: {
        'GET': nodes.show_node,
        'PATCH': nodes.update_node,
        'DELETE': nodes.delete_node,
    },
    _NODE + '/states': {'GET': node_states.show_states},
    _NODE + '/validate': {'GET': node_validate.validate_node},
    _NODE + '/bios': {'GET': _since(bios.list_bios, mv.BIOS)},
    _NODE + '/firmware': {'GET': _since(firmware.list_firmware, mv.FIRMWARE)},
    _NODE + '/vmedia': {
        'GET': _since(vmedia.show_vmedia, mv.VMEDIA_GET),
        'POST': _since(vmedia.attach_vmedia, mv.VMEDIA),
        'DELETE': _since(vmedia.detach_vmedia, mv.VMEDIA),
    },
    _NODE + '/bios/{setting_name}': {'GET': _since(bios.show_bios, mv.BIOS)},
    _NODE + '/vifs': {
        'GET': _since(vifs.list_vifs, mv.VIFS),
        'POST': _since(vifs.attach_vif, mv.VIFS),
    },
    _NODE + '/vifs/{vif_id}': {'DELETE': _since(vifs.detach_vif, mv.VIFS)},
    _NODE + '/vendor_passthru': {
        method: vendor_passthru.node_vendor_passthru
        for method in ('GET', 'PUT', 'POST', 'PATCH', 'DELETE')
    },
    _NODE + '/vendor_passthru/methods': {
        'GET': vendor_passthru.node_vendor_methods
    },
    _NODE + '/vendor_passthru/{method_name}': {
        method: vendor_passthru.node_vendor_passthru
        for method in ('GET', 'PUT', 'POST', 'PATCH', 'DELETE')
    },
    _NODE + '/states/power': {'PUT': node_states.set_power_state},
    _NODE + '/states/provision': {'PUT': node_states.set_provision_state},
    _NODE + '/states/raid': {
        'PUT': _own(node_states.set_raid_config, mv.RAID)
    },
    _NODE + '/states/boot_mode': {
        'PUT': _own(node_states.set_boot_mode, mv.BOOT_MODE_CHANGE)
    },
    _NODE + '/states/secure_boot': {
        'PUT': _own(node_states.set_secure_boot, mv.BOOT_MODE_CHANGE)
    },
    _NODE + '/states/console': {
        'GET': console.show_console,
        'PUT': console.set_console,
    },
    _NODE + '/maintenance': {
        'PUT': node_states.set_maintenance,
        'DELETE': node_states.clear_maintenance,
    },
    _NODE + '/cleaning/steps': {
        'GET': _own(cleaning.list_cleaning_steps, mv.COMPLETE_VERSION)
    },
    _NODE + '/management/boot_device': {
        'GET': boot_device.show_boot_device,
        'PUT': boot_device.set_boot_device,
    },
    _NODE + '/management/boot_device/supported': {
        'GET': boot_device.supported_boot_devices
    },
    _NODE + '/management/inject_nmi': {
        'PUT': _since(boot_device.inject_nmi, mv.INJECT_NMI)
    },
    _NODE + '/management/indicators': {'GET': indicators.list_indicators},
    _NODE + '/management/indicators/{indicator}': {
        'GET': indicators.show_indicator,
        'PUT': indicators.set_indicator,
    },
    _NODE + '/history': {
        'GET': _since(node_history.list_history, mv.NODE_HISTORY)
    },
    _NODE + '/history/{event_ident}': {
        'GET': _since(node_history.show_history_event, mv.NODE_HISTORY)
    },
    _NODE + '/volume': _all_since(mv.VOLUME, {'GET': volume.show_node_volume}),
    _NODE + '/volume/connectors': _all_since(
        mv.VOLUME,
        {
            'GET': volume.list_node_connectors,
            'POST': volume.node_connector_create,
        },
    ),
    _NODE + '/volume/connectors' + _ITEM: _all_since(
        mv.VOLUME,
        {
            'GET': volume.node_connector,
            'PATCH': volume.node_connector,
            'DELETE': volume.node_connector,
        },
    ),
    _NODE + '/volume/targets': _all_since(
        mv.VOLUME,
        {'GET': volume.list_node_targets, 'POST': volume.node_target_create},
    ),
    _NODE + '/volume/targets' + _ITEM: _all_since(
        mv.VOLUME,
        {
            'GET': volume.node_target,
            'PATCH': volume.node_target,
            'DELETE': volume.node_target,
        },
    ),
    _VOLUME: _all_since(mv.VOLUME, {'GET': volume.show_volume}),
    _VOLUME + '/connectors': _all_since(
        mv.VOLUME,
        {'GET': volume.list_connectors, 'POST': volume.create_connector},
    ),
    _VOLUME + '/connectors' + _ITEM: _all_since(
        mv.VOLUME,
        {
            'GET': volume.show_connector,
            'PATCH': volume.update_connector,
            'DELETE': volume.delete_connector,
        },
    ),
    _VOLUME + '/targets': _all_since(
        mv.VOLUME, {'GET': volume.list_targets, 'POST': volume.create_target}
    ),
    _VOLUME + '/targets' + _ITEM: _all_since(
        mv.VOLUME,
        {
            'GET': volume.show_target,
            'PATCH': volume.update_target,
            'DELETE': volume.delete_target,
        },
    ),
    '/v1/events': {'POST': _since(events.post_events, mv.EVENTS)},
    '/v1/deploy_templates': _all_since(
        mv.DEPLOY_TEMPLATES,
        {
            'GET': deploy_templates.list_templates,
            'POST': deploy_templates.create_template,
        },
        own=True,
    ),
    '/v1/runbooks': _all_since(
        mv.RUNBOOKS,
        {'GET': runbooks.list_runbooks, 'POST': runbooks.create_runbook},
        own=True,
    ),
    '/v1/runbooks/{runbook_ident}': _all_since(
        mv.RUNBOOKS,
        {
            'GET': runbooks.show_runbook,
            'PATCH': runbooks.update_runbook,
            'DELETE': runbooks.delete_runbook,
        },
        own=True,
    ),
    '/v1/runbooks/{runbook_ident}/traits': _all_since(
        mv.RUNBOOK_TRAITS,
        {
            'GET': runbook_traits.list_traits,
            'PUT': runbook_traits.set_traits,
            'DELETE': runbook_traits.remove_all_traits,
        },
        own=True,
    ),
    '/v1/runbooks/{runbook_ident}/traits/{trait}': _all_since(
        mv.RUNBOOK_TRAITS,
        {
            'PUT': runbook_traits.add_trait,
            'DELETE': runbook_traits.remove_trait,
        },
        own=True,
    ),
    '/v1/inspection_rules': _all_since(
        mv.INSPECTION_RULES,
        {
            'GET': inspection_rules.list_rules,
            'POST': inspection_rules.create_rule,
        },
        own=True,
    ),
    '/v1/inspection_rules/{rule_id}': _all_since(
        mv.INSPECTION_RULES,
        {
            'GET': inspection_rules.show_rule,
            'PATCH': inspection_rules.update_rule,
            'DELETE': inspection_rules.delete_rule,
        },
        own=True,
    ),
    '/v1/deploy_templates/{template_ident}': _all_since(
        mv.DEPLOY_TEMPLATES,
        {
            'GET': deploy_templates.show_template,
            'PATCH': deploy_templates.update_template,
            'DELETE': deploy_templates.delete_template,
        },
        own=True,
    ),
    '/v1/allocations': _all_since(
        mv.ALLOCATIONS,
        {
            'GET': allocations.list_allocations,
            'POST': allocations.create_allocation,
        },
        own=True,
    ),
    '/v1/allocations/{allocation_ident}': _all_since(
        mv.ALLOCATIONS,
        {
            'GET': allocations.show_allocation,
            'PATCH': allocations.update_allocation,
            'DELETE': allocations.delete_allocation,
        },
        own=True,
    ),
    _NODE + '/allocation': {
        'GET': _since(allocations.show_node_allocation, mv.ALLOCATIONS),
        'DELETE': _since(allocations.delete_node_allocation, mv.ALLOCATIONS),
    },
    '/v1/lookup': {'GET': _own(ramdisk.lookup, mv.RAMDISK)},
    '/v1/continue_inspection': {
        'POST': continue_inspection.continue_inspection
    },
    '/v1/heartbeat/{node_ident}': {
        'POST': _own(ramdisk.heartbeat, mv.RAMDISK)
    },
    _NODE + '/children': {
        'GET': _since(node_links.list_children, mv.PARENT_NODE)
    },
    _NODE + '/inventory': {
        'GET': _since(node_links.show_inventory, mv.NODE_INVENTORY)
    },
    _NODE + '/traits': _all_since(
        mv.TRAITS,
        {
            'GET': node_traits.list_traits,
            'PUT': node_traits.set_traits,
            'DELETE': node_traits.remove_all_traits,
        },
        own=True,
    ),
    _NODE + '/traits/{trait}': _all_since(
        mv.TRAITS,
        {'PUT': node_traits.add_trait, 'DELETE': node_traits.remove_trait},
        own=True,
    ),
    '/v1/shards': {'GET': _since(node_links.list_shards, mv.SHARD)},
    '/v1/ports': {'GET': ports.list_ports, 'POST': ports.create_port},
    '/v1/ports/detail': {'GET': ports.list_ports_detail},
    '/v1/ports/{port_ident}': {
        'GET': ports.show_port,
        'PATCH': ports.update_port,
        'DELETE': ports.delete_port,
    },
    _NODE + '/ports': {'GET': ports.list_node_ports, 'POST': ports.node_port},
    _NODE + '/ports/detail': {'GET': ports.list_node_ports_detail},
    _NODE + '/ports/{port_ident}': {
        'GET': ports.node_port,
        'PATCH': ports.node_port,
        'DELETE': ports.node_port,
    },
    '/v1/portgroups': _all_since(
        mv.PORTGROUPS,
        {
            'GET': portgroups.list_portgroups,
            'POST': portgroups.create_portgroup,
        },
    ),
    '/v1/portgroups/detail': _all_since(
        mv.PORTGROUPS, {'GET': portgroups.list_portgroups_detail}
    ),
    '/v1/portgroups/{portgroup_ident}': _all_since(
        mv.PORTGROUPS,
        {
            'GET': portgroups.show_portgroup,
            'PATCH': portgroups.update_portgroup,
            'DELETE': portgroups.delete_portgroup,
        },
    ),
    '/v1/portgroups/{portgroup_ident}/ports': _all_since(
        mv.PORTGROUP_LINKS,
        {'GET': ports.list_portgroup_ports, 'POST': ports.portgroup_port},
    ),
    '/v1/portgroups/{portgroup_ident}/ports/detail': _all_since(
        mv.PORTGROUP_LINKS, {'GET': ports.list_portgroup_ports_detail}
    ),
    '/v1/portgroups/{portgroup_ident}/ports/{port_ident}': _all_since(
        mv.PORTGROUP_LINKS,
        {
            'GET': ports.portgroup_port,
            'PATCH': ports.portgroup_port,
            'DELETE': ports.portgroup_port,
        },
    ),
    _NODE + '/portgroups': _all_since(
        mv.PORTGROUP_LINKS,
        {
            'GET': portgroups.list_node_portgroups,
            'POST': portgroups.node_portgroup,
        },
    ),
    _NODE + '/portgroups/detail': _all_since(
        mv.PORTGROUP_LINKS, {'GET': portgroups.list_node_portgroups_detail}
    ),
    _NODE + '/portgroups/{portgroup_ident}': _all_since(
        mv.PORTGROUP_LINKS,
        {
            'GET': portgroups.node_portgroup,
            'PATCH': portgroups.node_portgroup,
            'DELETE': portgroups.node_portgroup,
        },
    ),
    '/v1/chassis': {
        'GET': chassis.list_chassis,
        'POST': chassis.create_chassis,
    },
    '/v1/chassis/detail': {'GET': chassis.list_chassis_detail},
    '/v1/chassis/{chassis_uuid}': {
        'GET': chassis.show_chassis,
        'PATCH': chassis.update_chassis,
        'DELETE': chassis.delete_chassis,
    },
    '/v1/chassis/{chassis_uuid}/nodes': {'GET': nodes.list_nodes},
    '/v1/chassis/{chassis_uuid}/nodes/detail': {
        'GET': nodes.list_nodes_detail
    },
    '/v1/conductors': {
        'GET': _since(conductors.list_conductors, mv.CONDUCTOR)
    },
    '/v1/conductors/{hostname}': {
        'GET': _since(conductors.show_conductor, mv.CONDUCTOR)
    },
    '/v1/drivers': {'GET': drivers.list_drivers},
    '/v1/drivers/{driver_name}': {'GET': drivers.show_driver},
    '/v1/drivers/{driver_name}/properties': {'GET': drivers.show_properties},
    '/v1/drivers/{driver_name}/raid/logical_disk_properties': {
        'GET': _own(drivers.show_raid_logical_disk_properties, mv.RAID)
    },
    '/v1/drivers/{driver_name}/vendor_passthru': {
        method: vendor_passthru.driver_vendor_passthru
        for method in ('GET', 'PUT', 'POST', 'PATCH', 'DELETE')
    },
    '/v1/drivers/{driver_name}/vendor_passthru/methods': {
        'GET': vendor_passthru.driver_vendor_methods
    },
    '/v1/drivers/{driver_name}/vendor_passthru/{method_name}': {
        method: vendor_passthru.driver_vendor_passthru
        for method in ('GET', 'PUT', 'POST', 'PATCH', 'DELETE')
    },
}
