"""What the OpenAPI document says of each Bare Metal operation beyond
the route table: the query parameters its handler reads and its success
answers (:class:`lite_common.wsgi.openapi.Described`), and the
operations not described yet.

The query parameters are those the handlers read (``req.GET``, their
``LIST_PARAMS``); one newer than 1.1 says since which version (the
handler answers 406, or 400, below it). The answer schemas are in
:mod:`ironic_lite.api.schemas.responses`.
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
from ironic_lite.api.handlers import node_query
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
from ironic_lite.api.schemas import queries as q
from ironic_lite.api.schemas.responses import node_parts
from ironic_lite.api.schemas.responses import nodes as node_bodies
from ironic_lite.api.schemas.responses import ports as port_bodies
from ironic_lite.api.schemas.responses import ramdisk as ramdisk_bodies
from ironic_lite.api.schemas.responses import resources as bodies
from ironic_lite.api.schemas.responses import root as root_bodies
from ironic_lite.api.schemas.responses import volume as volume_bodies
from ironic_lite.api.views import nodes as node_views
from ironic_lite.api.views import ports as port_views
from ironic_lite.api.views import volume as volume_views
from ironic_lite.db import chassis as db_chassis
from ironic_lite.db import conductors as db_conductors
from ironic_lite.db import nodes as db_nodes
from lite_common.wsgi.openapi import Described
from lite_common.wsgi.openapi import Descriptions

#: Operations (method and route template) without a description yet:
#: their answers are documented as any 2XX.
NOT_YET_DESCRIBED: frozenset[str] = frozenset()

_NO_BODY = Described(responses={204: None})
_ACCEPTED = Described(responses={202: None})
_DETAIL = q.since(q.DETAIL, mv.DETAIL_PARAM)


def _fields(
    allowed: tuple[str, ...] | list[str], version: str = mv.FIELDS
) -> q.Schema:
    return q.since(q.fields(allowed), version)


def _show(
    body: q.Schema,
    allowed: tuple[str, ...] | list[str] = (),
    version: str = mv.FIELDS,
) -> Described:
    """A GET of one item (``?fields=`` of ``allowed``)."""
    query = {'fields': _fields(allowed, version)} if allowed else {}
    return Described(query=query, responses={200: body})


def _node_list_query() -> dict[str, q.Schema]:
    return {
        **q.paging(db_nodes.SORT_KEYS),
        'fields': _fields(tuple(node_views.FIELD_VERSIONS)),
        'detail': _DETAIL,
        'instance_uuid': q.UUID,
        **{
            name: q.since(q.STRING, version)
            for name, version in node_query._STRING_FILTERS.items()
            if name != 'instance_uuid'
        },
        **{
            name: q.since(q.BOOLEAN, version)
            for name, version in node_query._BOOL_FILTERS.items()
        },
        'fault': q.since(q.one_of(node_query.VALID_FAULTS), mv.FAULT),
        'description_contains': q.since(q.STRING, mv.DESCRIPTION),
        'shard': q.since(q.STRING, mv.SHARD),
        'project': q.STRING,
        'include_children': q.since(q.BOOLEAN, mv.PARENT_NODE),
        'chassis_uuid': q.UUID,
        'conductor': q.since(q.STRING, mv.CONDUCTOR),
    }


def _without(query: dict[str, q.Schema], *names: str) -> dict[str, q.Schema]:
    return {
        name: schema for name, schema in query.items() if name not in names
    }


def _nodes() -> Descriptions:
    node = node_bodies.NODE
    listed = _node_list_query()
    return {
        nodes.list_nodes: Described(
            query=listed, responses={200: node_bodies.NODES}
        ),
        nodes.list_nodes_detail: Described(
            query=_without(listed, 'fields', 'detail'),
            responses={200: node_bodies.NODES},
        ),
        nodes.show_node: _show(node, tuple(node_views.FIELD_VERSIONS)),
        nodes.create_node: Described(responses={201: node}),
        nodes.update_node: Described(
            query={
                'reset_interfaces': q.since(q.BOOLEAN, mv.RESET_INTERFACES)
            },
            responses={200: node},
        ),
        nodes.delete_node: _NO_BODY,
        node_states.show_states: _show(node_bodies.STATES),
        node_states.set_power_state: _ACCEPTED,
        node_states.set_provision_state: _ACCEPTED,
        node_states.set_raid_config: _NO_BODY,
        node_states.set_maintenance: _ACCEPTED,
        node_states.clear_maintenance: _ACCEPTED,
        node_states.set_boot_mode: _ACCEPTED,
        node_states.set_secure_boot: _ACCEPTED,
    }


def _node_parts() -> Descriptions:
    return {
        node_traits.list_traits: _show(bodies.TRAITS),
        node_traits.set_traits: _NO_BODY,
        node_traits.add_trait: _NO_BODY,
        node_traits.remove_trait: _NO_BODY,
        node_traits.remove_all_traits: _NO_BODY,
        vifs.list_vifs: _show(node_parts.VIFS),
        vifs.attach_vif: _NO_BODY,
        vifs.detach_vif: _NO_BODY,
        node_history.list_history: Described(
            query={**q.paging(), 'detail': q.DETAIL},
            responses={200: node_parts.HISTORY},
        ),
        node_history.show_history_event: _show(node_parts.EVENT),
        boot_device.show_boot_device: _show(node_parts.BOOT_DEVICE),
        boot_device.set_boot_device: _NO_BODY,
        boot_device.supported_boot_devices: _show(
            node_parts.SUPPORTED_BOOT_DEVICES
        ),
        boot_device.inject_nmi: _NO_BODY,
        console.show_console: _show(node_parts.CONSOLE),
        console.set_console: _ACCEPTED,
        node_validate.validate_node: _show(node_parts.VALIDATION),
        node_links.list_children: _show(node_parts.CHILDREN),
        node_links.list_shards: _show(node_parts.SHARDS),
        node_links.show_inventory: _show(node_parts.INVENTORY),
        cleaning.list_cleaning_steps: _show(node_parts.CLEANING_STEPS),
        indicators.list_indicators: _show(node_parts.INDICATORS),
        indicators.show_indicator: _show(node_parts.INDICATOR_STATE),
        indicators.set_indicator: _NO_BODY,
        bios.list_bios: Described(
            query={
                'detail': q.since(q.DETAIL, mv.BIOS_REGISTRY),
                'fields': _fields(bios.ALL_FIELDS, mv.BIOS_REGISTRY),
            },
            responses={200: node_parts.BIOS},
        ),
        bios.show_bios: _show(node_parts.BIOS_SHOWN),
        firmware.list_firmware: Described(
            query={
                'detail': q.DETAIL,
                'fields': q.fields(firmware.ALL_FIELDS),
            },
            responses={200: node_parts.FIRMWARE},
        ),
        # (The fuzz run's fake driver has no virtual media: the redfish
        # test checks this answer against the document.)
        vmedia.show_vmedia: Described(responses={200: node_parts.VMEDIA}),
        vmedia.attach_vmedia: _NO_BODY,
        vmedia.detach_vmedia: Described(
            query={'device_types': q.STRING}, responses={204: None}
        ),
    }


def _port_list_query(detail_path: bool) -> dict[str, q.Schema]:
    query = {
        **q.paging(),
        'node': q.STRING,
        'node_uuid': q.UUID,
        'address': q.STRING,
        'portgroup': q.since(q.STRING, mv.PORTGROUP_LINKS),
        'shard': q.since(q.STRING, mv.SHARD),
        'description_contains': q.STRING,
        'conductor_groups': q.STRING,
        'fields': _fields(port_views.FIELDS),
        'detail': _DETAIL,
    }
    return _without(query, 'fields', 'detail') if detail_path else query


def _group_list_query(detail_path: bool) -> dict[str, q.Schema]:
    query = {
        **q.paging(),
        'node': q.STRING,
        'address': q.STRING,
        'shard': q.since(q.STRING, mv.PORTGROUP_SHARD),
        'conductor_groups': q.STRING,
        'fields': _fields(portgroups.FIELDS),
        'detail': _DETAIL,
    }
    return _without(query, 'fields', 'detail') if detail_path else query


def _ports() -> Descriptions:
    port, group = port_bodies.PORT, port_bodies.PORTGROUP
    listed = Described(
        query=_port_list_query(False), responses={200: port_bodies.PORTS}
    )
    detailed = Described(
        query=_port_list_query(True), responses={200: port_bodies.PORTS}
    )
    groups = Described(
        query=_group_list_query(False), responses={200: port_bodies.PORTGROUPS}
    )
    groups_detailed = Described(
        query=_group_list_query(True), responses={200: port_bodies.PORTGROUPS}
    )
    return {
        ports.list_ports: listed,
        ports.list_node_ports: listed,
        ports.list_portgroup_ports: listed,
        ports.list_ports_detail: detailed,
        ports.list_node_ports_detail: detailed,
        ports.list_portgroup_ports_detail: detailed,
        ports.show_port: _show(port, port_views.FIELDS),
        ports.create_port: Described(responses={201: port}),
        ports.update_port: Described(responses={200: port}),
        ports.delete_port: _NO_BODY,
        # Upstream's 400 for a port named under a node or portgroup.
        ports.node_port: Described(),
        ports.portgroup_port: Described(),
        portgroups.list_portgroups: groups,
        portgroups.list_node_portgroups: groups,
        portgroups.list_portgroups_detail: groups_detailed,
        portgroups.list_node_portgroups_detail: groups_detailed,
        portgroups.show_portgroup: _show(group, portgroups.FIELDS),
        portgroups.create_portgroup: Described(responses={201: group}),
        portgroups.update_portgroup: Described(responses={200: group}),
        portgroups.delete_portgroup: _NO_BODY,
        portgroups.node_portgroup: Described(),
    }


def _chassis_and_conductors() -> Descriptions:
    listed = {
        **q.paging(db_chassis.SORT_KEYS),
        'fields': _fields(chassis.FIELDS),
        'detail': _DETAIL,
    }
    return {
        chassis.list_chassis: Described(
            query=listed, responses={200: bodies.CHASSIS_LIST}
        ),
        chassis.list_chassis_detail: Described(
            query=_without(listed, 'fields', 'detail'),
            responses={200: bodies.CHASSIS_LIST},
        ),
        chassis.show_chassis: _show(bodies.CHASSIS, chassis.FIELDS),
        chassis.create_chassis: Described(responses={201: bodies.CHASSIS}),
        chassis.update_chassis: Described(responses={200: bodies.CHASSIS}),
        chassis.delete_chassis: _NO_BODY,
        conductors.list_conductors: Described(
            query={
                **q.paging(db_conductors.SORT_KEYS),
                'marker': q.STRING,
                'fields': q.fields(conductors.FIELDS),
                'detail': q.DETAIL,
            },
            responses={200: bodies.CONDUCTORS},
        ),
        conductors.show_conductor: _show(bodies.CONDUCTOR, conductors.FIELDS),
    }


def _drivers() -> Descriptions:
    fields = _fields(drivers.ALL_FIELDS, mv.DRIVER_FIELDS)
    return {
        drivers.list_drivers: Described(
            query={
                'type': q.since(
                    q.one_of(['classic', 'dynamic']), mv.DRIVER_TYPE
                ),
                'detail': q.since(q.DETAIL, mv.DRIVER_TYPE),
                'fields': fields,
            },
            responses={200: bodies.DRIVERS},
        ),
        drivers.show_driver: Described(
            query={'fields': fields}, responses={200: bodies.DRIVER}
        ),
        drivers.show_properties: _show(bodies.DRIVER_PROPERTIES),
    }


def _templates_and_runbooks() -> Descriptions:
    template, runbook = bodies.DEPLOY_TEMPLATE, bodies.RUNBOOK
    runbook_fields = runbooks.FIELDS_1112
    return {
        allocations.list_allocations: Described(
            query={
                **q.paging(),
                'node': q.STRING,
                'resource_class': q.STRING,
                'state': q.STRING,
                'owner': q.since(q.STRING, mv.ALLOCATION_OWNER),
                'fields': q.fields(allocations.FIELDS),
            },
            responses={200: bodies.ALLOCATIONS},
        ),
        allocations.show_allocation: _show(
            bodies.ALLOCATION, allocations.FIELDS, mv.ALLOCATIONS
        ),
        allocations.show_node_allocation: _show(
            bodies.ALLOCATION, allocations.FIELDS, mv.ALLOCATIONS
        ),
        allocations.create_allocation: Described(
            responses={201: bodies.ALLOCATION}
        ),
        allocations.update_allocation: Described(
            responses={200: bodies.ALLOCATION}
        ),
        allocations.delete_allocation: _NO_BODY,
        allocations.delete_node_allocation: _NO_BODY,
        deploy_templates.list_templates: Described(
            query={
                **q.paging(),
                'detail': q.DETAIL,
                'fields': q.fields(deploy_templates.FIELDS),
            },
            responses={200: bodies.DEPLOY_TEMPLATES},
        ),
        deploy_templates.show_template: _show(
            template, deploy_templates.FIELDS, mv.DEPLOY_TEMPLATES
        ),
        deploy_templates.create_template: Described(responses={201: template}),
        deploy_templates.update_template: Described(responses={200: template}),
        deploy_templates.delete_template: _NO_BODY,
        runbooks.list_runbooks: Described(
            query={
                **q.paging(),
                'detail': q.DETAIL,
                'project': q.STRING,
                'fields': q.fields(runbook_fields),
            },
            responses={200: bodies.RUNBOOKS},
        ),
        runbooks.show_runbook: _show(runbook, runbook_fields, mv.RUNBOOKS),
        runbooks.create_runbook: Described(responses={201: runbook}),
        runbooks.update_runbook: Described(responses={200: runbook}),
        runbooks.delete_runbook: _NO_BODY,
        runbook_traits.list_traits: _show(bodies.TRAITS),
        runbook_traits.set_traits: _NO_BODY,
        runbook_traits.add_trait: _NO_BODY,
        runbook_traits.remove_trait: _NO_BODY,
        runbook_traits.remove_all_traits: _NO_BODY,
    }


def _agents_and_rules() -> Descriptions:
    rule = bodies.INSPECTION_RULE
    passthru = Described(
        query={'method': q.STRING}, responses={200: bodies.ANY, 202: None}
    )
    return {
        events.post_events: _NO_BODY,
        ramdisk.lookup: Described(
            query={'addresses': q.STRING, 'node_uuid': q.UUID},
            responses={200: ramdisk_bodies.AGENT_ANSWER},
        ),
        ramdisk.heartbeat: _ACCEPTED,
        continue_inspection.continue_inspection: Described(
            query={'node_uuid': q.UUID},
            responses={202: ramdisk_bodies.CONTINUED},
        ),
        inspection_rules.list_rules: Described(
            query={
                **q.paging(),
                'detail': q.DETAIL,
                'phase': q.STRING,
                'fields': q.fields(inspection_rules.FIELDS),
            },
            responses={200: bodies.INSPECTION_RULES},
        ),
        inspection_rules.show_rule: _show(
            rule, inspection_rules.FIELDS, mv.INSPECTION_RULES
        ),
        inspection_rules.create_rule: Described(responses={201: rule}),
        inspection_rules.update_rule: Described(responses={200: rule}),
        inspection_rules.delete_rule: _NO_BODY,
        drivers.show_raid_logical_disk_properties: _show(
            bodies.RAID_PROPERTIES
        ),
        vendor_passthru.node_vendor_passthru: passthru,
        vendor_passthru.driver_vendor_passthru: passthru,
        vendor_passthru.node_vendor_methods: _show(bodies.VENDOR_METHODS),
        vendor_passthru.driver_vendor_methods: _show(bodies.VENDOR_METHODS),
    }


def _volume_list(shape: volume_views.Shape, body: q.Schema) -> Described:
    return Described(
        query={
            **q.paging(),
            'node': q.STRING,
            'detail': q.DETAIL,
            'fields': q.fields(shape.fields),
        },
        responses={200: body},
    )


def _volume() -> Descriptions:
    connector, target = volume_bodies.CONNECTOR, volume_bodies.TARGET
    connectors = _volume_list(volume_views.CONNECTOR, volume_bodies.CONNECTORS)
    targets = _volume_list(volume_views.TARGET, volume_bodies.TARGETS)
    links = _show(volume_bodies.LINKS)
    return {
        volume.show_volume: links,
        volume.show_node_volume: links,
        volume.list_connectors: connectors,
        volume.list_node_connectors: connectors,
        volume.show_connector: _show(connector, volume_views.CONNECTOR.fields),
        volume.create_connector: Described(responses={201: connector}),
        volume.update_connector: Described(responses={200: connector}),
        volume.delete_connector: _NO_BODY,
        volume.list_targets: targets,
        volume.list_node_targets: targets,
        volume.show_target: _show(target, volume_views.TARGET.fields),
        volume.create_target: Described(responses={201: target}),
        volume.update_target: Described(responses={200: target}),
        volume.delete_target: _NO_BODY,
        # Upstream's 400 for an item named under a node.
        volume.node_connector_create: Described(),
        volume.node_connector: Described(),
        volume.node_target_create: Described(),
        volume.node_target: Described(),
    }


def _root() -> Descriptions:
    return {
        root.list_versions: _show(root_bodies.VERSIONS),
        root.show_v1: _show(root_bodies.V1),
        root.show_openapi: _show(root_bodies.OPENAPI),
    }


def descriptions() -> Descriptions:
    return {
        **_root(),
        **_nodes(),
        **_node_parts(),
        **_ports(),
        **_chassis_and_conductors(),
        **_drivers(),
        **_templates_and_runbooks(),
        **_volume(),
        **_agents_and_rules(),
    }
