"""Every route of ironic-lite-api, in one table.

A path that exists with another method is a 405 with ``Allow``; an
unknown path is a 404 (both in the Bare Metal error format).
"""

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
from lite_common.wsgi.router import RouteTable

_NODE = '/v1/nodes/{node_ident}'
_VOLUME = '/v1/volume'
_ITEM = '/{item_uuid}'

ROUTES: RouteTable = {
    '/': {'GET': root.list_versions},
    '/v1': {'GET': root.show_v1},
    '/openapi.json': {'GET': root.show_openapi},
    '/v1/nodes': {'GET': nodes.list_nodes, 'POST': nodes.create_node},
    '/v1/nodes/detail': {'GET': nodes.list_nodes_detail},
    _NODE: {'GET': nodes.show_node, 'PATCH': nodes.update_node,
            'DELETE': nodes.delete_node},
    _NODE + '/states': {'GET': node_states.show_states},
    _NODE + '/validate': {'GET': node_validate.validate_node},
    _NODE + '/bios': {'GET': bios.list_bios},
    _NODE + '/firmware': {'GET': firmware.list_firmware},
    _NODE + '/vmedia': {'GET': vmedia.show_vmedia,
                        'POST': vmedia.attach_vmedia,
                        'DELETE': vmedia.detach_vmedia},
    _NODE + '/bios/{setting_name}': {'GET': bios.show_bios},
    _NODE + '/vifs': {'GET': vifs.list_vifs, 'POST': vifs.attach_vif},
    _NODE + '/vifs/{vif_id}': {'DELETE': vifs.detach_vif},
    _NODE + '/vendor_passthru': {
        method: vendor_passthru.node_vendor_passthru
        for method in ('GET', 'PUT', 'POST', 'PATCH', 'DELETE')},
    _NODE + '/vendor_passthru/methods': {
        'GET': vendor_passthru.node_vendor_methods},
    _NODE + '/vendor_passthru/{method_name}': {
        method: vendor_passthru.node_vendor_passthru
        for method in ('GET', 'PUT', 'POST', 'PATCH', 'DELETE')},
    _NODE + '/states/power': {'PUT': node_states.set_power_state},
    _NODE + '/states/provision': {'PUT': node_states.set_provision_state},
    _NODE + '/states/raid': {'PUT': node_states.set_raid_config},
    _NODE + '/states/boot_mode': {'PUT': node_states.set_boot_mode},
    _NODE + '/states/secure_boot': {'PUT': node_states.set_secure_boot},
    _NODE + '/states/console': {'GET': console.show_console,
                                'PUT': console.set_console},
    _NODE + '/maintenance': {'PUT': node_states.set_maintenance,
                             'DELETE': node_states.clear_maintenance},
    _NODE + '/cleaning/steps': {'GET': cleaning.list_cleaning_steps},
    _NODE + '/management/boot_device': {
        'GET': boot_device.show_boot_device,
        'PUT': boot_device.set_boot_device},
    _NODE + '/management/boot_device/supported': {
        'GET': boot_device.supported_boot_devices},
    _NODE + '/management/inject_nmi': {'PUT': boot_device.inject_nmi},
    _NODE + '/management/indicators': {
        'GET': indicators.list_indicators},
    _NODE + '/management/indicators/{indicator}': {
        'GET': indicators.show_indicator, 'PUT': indicators.set_indicator},
    _NODE + '/history': {'GET': node_history.list_history},
    _NODE + '/history/{event_ident}': {
        'GET': node_history.show_history_event},
    _NODE + '/volume': {'GET': volume.show_node_volume},
    _NODE + '/volume/connectors': {
        'GET': volume.list_node_connectors,
        'POST': volume.node_connector_create},
    _NODE + '/volume/connectors' + _ITEM: {
        'GET': volume.node_connector, 'PATCH': volume.node_connector,
        'DELETE': volume.node_connector},
    _NODE + '/volume/targets': {
        'GET': volume.list_node_targets,
        'POST': volume.node_target_create},
    _NODE + '/volume/targets' + _ITEM: {
        'GET': volume.node_target, 'PATCH': volume.node_target,
        'DELETE': volume.node_target},
    _VOLUME: {'GET': volume.show_volume},
    _VOLUME + '/connectors': {'GET': volume.list_connectors,
                              'POST': volume.create_connector},
    _VOLUME + '/connectors' + _ITEM: {
        'GET': volume.show_connector, 'PATCH': volume.update_connector,
        'DELETE': volume.delete_connector},
    _VOLUME + '/targets': {'GET': volume.list_targets,
                           'POST': volume.create_target},
    _VOLUME + '/targets' + _ITEM: {
        'GET': volume.show_target, 'PATCH': volume.update_target,
        'DELETE': volume.delete_target},
    '/v1/events': {'POST': events.post_events},
    '/v1/deploy_templates': {'GET': deploy_templates.list_templates,
                             'POST': deploy_templates.create_template},
    '/v1/runbooks': {'GET': runbooks.list_runbooks,
                     'POST': runbooks.create_runbook},
    '/v1/runbooks/{runbook_ident}': {
        'GET': runbooks.show_runbook,
        'PATCH': runbooks.update_runbook,
        'DELETE': runbooks.delete_runbook},
    '/v1/runbooks/{runbook_ident}/traits': {
        'GET': runbook_traits.list_traits,
        'PUT': runbook_traits.set_traits,
        'DELETE': runbook_traits.remove_all_traits},
    '/v1/runbooks/{runbook_ident}/traits/{trait}': {
        'PUT': runbook_traits.add_trait,
        'DELETE': runbook_traits.remove_trait},
    '/v1/inspection_rules': {'GET': inspection_rules.list_rules,
                             'POST': inspection_rules.create_rule},
    '/v1/inspection_rules/{rule_id}': {
        'GET': inspection_rules.show_rule,
        'PATCH': inspection_rules.update_rule,
        'DELETE': inspection_rules.delete_rule},
    '/v1/deploy_templates/{template_ident}': {
        'GET': deploy_templates.show_template,
        'PATCH': deploy_templates.update_template,
        'DELETE': deploy_templates.delete_template},
    '/v1/allocations': {'GET': allocations.list_allocations,
                        'POST': allocations.create_allocation},
    '/v1/allocations/{allocation_ident}': {
        'GET': allocations.show_allocation,
        'PATCH': allocations.update_allocation,
        'DELETE': allocations.delete_allocation},
    _NODE + '/allocation': {'GET': allocations.show_node_allocation,
                            'DELETE': allocations.delete_node_allocation},
    '/v1/lookup': {'GET': ramdisk.lookup},
    '/v1/continue_inspection': {
        'POST': continue_inspection.continue_inspection},
    '/v1/heartbeat/{node_ident}': {'POST': ramdisk.heartbeat},
    _NODE + '/children': {'GET': node_links.list_children},
    _NODE + '/inventory': {'GET': node_links.show_inventory},
    _NODE + '/traits': {'GET': node_traits.list_traits,
                        'PUT': node_traits.set_traits,
                        'DELETE': node_traits.remove_all_traits},
    _NODE + '/traits/{trait}': {'PUT': node_traits.add_trait,
                                'DELETE': node_traits.remove_trait},
    '/v1/shards': {'GET': node_links.list_shards},
    '/v1/ports': {'GET': ports.list_ports, 'POST': ports.create_port},
    '/v1/ports/detail': {'GET': ports.list_ports_detail},
    '/v1/ports/{port_ident}': {'GET': ports.show_port,
                               'PATCH': ports.update_port,
                               'DELETE': ports.delete_port},
    _NODE + '/ports': {'GET': ports.list_node_ports,
                       'POST': ports.node_port},
    _NODE + '/ports/detail': {'GET': ports.list_node_ports_detail},
    _NODE + '/ports/{port_ident}': {'GET': ports.node_port,
                                    'PATCH': ports.node_port,
                                    'DELETE': ports.node_port},
    '/v1/portgroups': {'GET': portgroups.list_portgroups,
                       'POST': portgroups.create_portgroup},
    '/v1/portgroups/detail': {'GET': portgroups.list_portgroups_detail},
    '/v1/portgroups/{portgroup_ident}': {
        'GET': portgroups.show_portgroup,
        'PATCH': portgroups.update_portgroup,
        'DELETE': portgroups.delete_portgroup},
    '/v1/portgroups/{portgroup_ident}/ports': {
        'GET': ports.list_portgroup_ports, 'POST': ports.portgroup_port},
    '/v1/portgroups/{portgroup_ident}/ports/detail': {
        'GET': ports.list_portgroup_ports_detail},
    '/v1/portgroups/{portgroup_ident}/ports/{port_ident}': {
        'GET': ports.portgroup_port, 'PATCH': ports.portgroup_port,
        'DELETE': ports.portgroup_port},
    _NODE + '/portgroups': {'GET': portgroups.list_node_portgroups,
                            'POST': portgroups.node_portgroup},
    _NODE + '/portgroups/detail': {
        'GET': portgroups.list_node_portgroups_detail},
    _NODE + '/portgroups/{portgroup_ident}': {
        'GET': portgroups.node_portgroup, 'PATCH': portgroups.node_portgroup,
        'DELETE': portgroups.node_portgroup},
    '/v1/chassis': {'GET': chassis.list_chassis,
                    'POST': chassis.create_chassis},
    '/v1/chassis/detail': {'GET': chassis.list_chassis_detail},
    '/v1/chassis/{chassis_uuid}': {'GET': chassis.show_chassis,
                                   'PATCH': chassis.update_chassis,
                                   'DELETE': chassis.delete_chassis},
    '/v1/chassis/{chassis_uuid}/nodes': {'GET': nodes.list_nodes},
    '/v1/chassis/{chassis_uuid}/nodes/detail': {
        'GET': nodes.list_nodes_detail},
    '/v1/conductors': {'GET': conductors.list_conductors},
    '/v1/conductors/{hostname}': {'GET': conductors.show_conductor},
    '/v1/drivers': {'GET': drivers.list_drivers},
    '/v1/drivers/{driver_name}': {'GET': drivers.show_driver},
    '/v1/drivers/{driver_name}/properties': {
        'GET': drivers.show_properties},
    '/v1/drivers/{driver_name}/raid/logical_disk_properties': {
        'GET': drivers.show_raid_logical_disk_properties},
    '/v1/drivers/{driver_name}/vendor_passthru': {
        method: vendor_passthru.driver_vendor_passthru
        for method in ('GET', 'PUT', 'POST', 'PATCH', 'DELETE')},
    '/v1/drivers/{driver_name}/vendor_passthru/methods': {
        'GET': vendor_passthru.driver_vendor_methods},
    '/v1/drivers/{driver_name}/vendor_passthru/{method_name}': {
        method: vendor_passthru.driver_vendor_passthru
        for method in ('GET', 'PUT', 'POST', 'PATCH', 'DELETE')},
}
