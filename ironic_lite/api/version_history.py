"""What the Bare Metal API serves of each microversion, oldest first.

The range and the headers are in :mod:`ironic_lite.api.microversion`;
upstream's list of versions in :mod:`ironic_lite.api.upstream_versions`.
"""

#: (version, what this API serves of its change), oldest first.
#: The API reference's version history is written from this.
HISTORY: tuple[tuple[str, str], ...] = (
    (
        '1.1',
        'The base API: nodes (uuid, driver, driver_info, extra, '
        'instance_uuid, instance_info, properties, power and provision '
        'states and their targets, provision_updated_at, last_error, '
        'maintenance, maintenance_reason, reservation, created_at, '
        'updated_at, links, ports), GET /v1/nodes/{node_ident}/states, '
        'PUT .../states/power, PUT .../states/provision (active, '
        'with a config drive kept in instance_info, rebuild and '
        'deleted), GET and PUT .../states/console, GET '
        '.../validate, node and driver vendor passthru, '
        'PUT and DELETE .../maintenance, GET and PUT '
        '.../management/boot_device and GET .../boot_device/'
        'supported, drivers and GET /v1/drivers/{name}/properties; '
        'chassis '
        '(create, list, detail, show, JSON patch, delete when empty; '
        'their nodes), the chassis_uuid of nodes and its list '
        'filter; ports (address, extra, node_uuid: create, list with '
        'the node, node_uuid and address filters, detail, paging and '
        'sorting, show by uuid, name or id, JSON patch under the '
        "conductor's state rules, delete; a MAC address belongs to "
        'one port, 409 otherwise), /v1/nodes/{node_ident}/ports. A '
        'node is created in "available"; node names are not '
        'served.',
    ),
    (
        '1.2',
        'The provision state "available" is shown as such; below '
        "1.2 it is null (upstream's NOSTATE).",
    ),
    ('1.3', 'Nodes: driver_internal_info.'),
    ('1.4', 'Provision targets manage and provide.'),
    (
        '1.5',
        'Nodes: name (create, update, show); a node may be named by '
        'its name in URLs.',
    ),
    (
        '1.6',
        'Provision target inspect (manageable or inspect failed -> '
        'inspecting -> manageable, or inspect failed); nodes: '
        'inspection_started_at and inspection_finished_at. Inspection '
        'is synchronous: no node waits in "inspect wait" (1.39).',
    ),
    ('1.7', 'Nodes: clean_step.'),
    ('1.8', 'The fields query parameter of node list and show.'),
    ('1.9', 'Node list: the provision_state filter.'),
    (
        '1.10',
        'Node names may hold any RFC 3986 unreserved character '
        '(letters, digits, "-", ".", "_", "~"); before 1.10 a name '
        'is a lower case host name (RFC 952/1123).',
    ),
    ('1.11', 'A node is created in "enroll" (in "available" before).'),
    (
        '1.12',
        "RAID: the node's raid_config and target_raid_config, PUT "
        ".../states/raid (checked by the node's RAID interface: "
        "upstream's schema, 404 for no-raid) and GET "
        '/v1/drivers/{driver}/raid/logical_disk_properties; node '
        'states show both configurations.',
    ),
    ('1.13', 'Provision target abort.'),
    ('1.14', 'Nodes: the states link; drivers: the properties link.'),
    ('1.15', 'Provision target clean with clean_steps (manual cleaning).'),
    ('1.16', 'Node list: the driver filter.'),
    (
        '1.17',
        'Provision target adopt: a manageable (or adopt failed) node '
        'already running an instance becomes active without a '
        'deployment (adopting -> active, or adopt failed with '
        'last_error); a node in adopt failed may be deleted.',
    ),
    ('1.18', 'Ports: internal_info (read only).'),
    (
        '1.19',
        "Ports: local_link_connection (checked against upstream's "
        'shapes, the switch_id a MAC address or an OpenFlow datapath '
        'id) and pxe_enabled; changing either needs the node in enroll, '
        'manageable, inspecting or inspect wait, or in maintenance '
        '(409).',
    ),
    (
        '1.20',
        'Nodes: network_interface (noop: the network is wired by '
        'someone else).',
    ),
    ('1.21', 'Nodes: resource_class, and the resource_class list filter.'),
    (
        '1.22',
        'Ramdisk agents: GET /v1/lookup (by MAC addresses of the '
        "node's ports or node_uuid; only nodes where an agent runs "
        "unless [api]restrict_lookup is off; the node's uuid, "
        'properties, instance_info, driver_internal_info and links, '
        "and the agent's configuration) and POST "
        "/v1/heartbeat/{node_ident} (202; handed to the node's "
        'deploy interface), both without credentials and refused '
        '(403) where [api]enable_ramdisk_endpoints is off.',
    ),
    (
        '1.23',
        'Portgroups: /v1/portgroups (create by the API, list with the '
        'node, address, shard and conductor_groups filters, detail, '
        'paging and sorting, show by uuid or name, JSON patch and '
        'delete through the conductor; a portgroup with ports is not '
        'deleted or moved, 400), uuid, name, address, extra, '
        'internal_info, standalone_ports_supported, node_uuid; ports '
        'may join one (portgroup_uuid, from 1.24 on the wire); GET /v1 '
        'lists portgroups.',
    ),
    (
        '1.24',
        'Ports: portgroup_uuid; /v1/portgroups/{portgroup}/ports and '
        '/v1/nodes/{node}/portgroups; nodes and portgroups: the '
        'portgroups and ports links; ports: the portgroup list filter.',
    ),
    (
        '1.25',
        'A node may be taken out of its chassis (chassis_uuid '
        'removed or set to null by a patch; 406 before).',
    ),
    (
        '1.26',
        'Portgroups: mode ([DEFAULT]default_portgroup_mode when not '
        'given) and properties.',
    ),
    (
        '1.27',
        'Soft power off and soft reboot (power targets "soft power '
        'off" and "soft rebooting", where the power interface has '
        'them: the fake one does), and the timeout of PUT '
        '.../states/power (accepted; the fake power interface '
        'changes state at once).',
    ),
    (
        '1.28',
        'VIFs: GET and POST /v1/nodes/{node_ident}/vifs, DELETE '
        ".../vifs/{vif_id}, through the node's network interface "
        "(noop: accepted, not recorded, as upstream's).",
    ),
    (
        '1.29',
        'PUT /v1/nodes/{node_ident}/management/inject_nmi through '
        'the management interface (the fake one cannot: 400, as '
        "upstream's).",
    ),
    (
        '1.30',
        'Drivers: type (always "dynamic": hardware types); with '
        'detail (show, and list with ?detail=true) the default and '
        'enabled interfaces of each type that the alive conductors '
        'load.',
    ),
    (
        '1.31',
        'Nodes: boot, console, deploy, inspect, management, power, '
        'raid and vendor interfaces (set at creation, changed by a '
        'patch; the conductor records the defaults it chose).',
    ),
    (
        '1.32',
        'Volume connectors and targets: GET /v1/volume, '
        '/v1/volume/connectors and /v1/volume/targets (create, list '
        'with node filter, fields, detail, paging and sorting, show, '
        'JSON patch while the node is powered off, delete), the '
        'same lists under /v1/nodes/{node_ident}/volume; nodes: the '
        'volume link; GET /v1 lists volume.',
    ),
    (
        '1.33',
        'Nodes: storage_interface (noop by default, '
        '[DEFAULT]default_storage_interface).',
    ),
    (
        '1.34',
        "Ports: physical_network (not empty; that of the port's portgroup).",
    ),
    (
        '1.35',
        'A config drive with the rebuild target (kept in '
        'instance_info, as with active).',
    ),
    ('1.36', 'Heartbeats: agent_version (400 below 1.36).'),
    (
        '1.37',
        'Node traits: GET, PUT (replace every trait) and DELETE (every '
        'trait) /v1/nodes/{node_ident}/traits, PUT and DELETE '
        '.../traits/{trait}; standard (os-traits) or CUSTOM_ names, at '
        'most 50 a node, changed by the conductor under the node lock; '
        'nodes: traits (show and detail).',
    ),
    (
        '1.38',
        'Rescue: provision targets rescue (with rescue_password, '
        'kept masked in instance_info while rescued) and unrescue; '
        'states rescuing, rescue wait, rescue, rescue failed, '
        "unrescuing, unrescue failed; the node's rescue_interface; "
        'drivers show the rescue interfaces.',
    ),
    (
        '1.39',
        'The provision state inspect wait: an inspect interface '
        'that inspects asynchronously leaves the node there '
        '(shown as inspecting below 1.39) until it ends, or '
        '[conductor]inspect_wait_timeout fails it; from 1.39 a node, '
        'port or portgroup is not updated while the node is '
        'inspecting (409).',
    ),
    (
        '1.40',
        "BIOS: the node's bios_interface; GET "
        '/v1/nodes/{node_ident}/bios and .../bios/{setting} (the '
        'settings the BIOS interface recorded: the fake one applies '
        'and factory-resets them in manual cleaning).',
    ),
    (
        '1.41',
        'Provision target abort in inspect wait (406 below 1.41): '
        'the inspect interface stops, the node goes to inspect '
        'failed.',
    ),
    ('1.42', 'Nodes: fault.'),
    (
        '1.43',
        'The detail query parameter of the node, port, portgroup, '
        'chassis and volume lists.',
    ),
    (
        '1.44',
        'Nodes: deploy_step (read only; the deploy interfaces of '
        'ironic_lite run no deploy steps, so it stays {}).',
    ),
    (
        '1.45',
        'reset_interfaces in node PATCH: with a change of driver, '
        'every interface the patch does not set goes back to the new '
        "hardware type's default (400 without a driver change).",
    ),
    (
        '1.46',
        'Nodes: conductor_group (letters, digits, "_", "-", "."; '
        'case insensitive) and the conductor_group list filter; a '
        'node is served only by the conductors of its group '
        '([conductor]conductor_group).',
    ),
    ('1.47', 'Nodes: automated_clean.'),
    (
        '1.48',
        'Nodes: protected and protected_reason (by PATCH only; '
        'protected only in "active"); a protected node refuses to '
        'be undeployed or deleted (403).',
    ),
    (
        '1.49',
        'Nodes: conductor (the conductor the hash ring maps the node '
        'to among the alive conductors of its group) and the conductor '
        'list filter (its next link goes on after the last node read, '
        'whatever the filter left); GET /v1/conductors (list, detail, '
        'fields, paging by hostname, sorting) and '
        '/v1/conductors/{hostname}: hostname, conductor_group, alive, '
        'drivers, timestamps; GET /v1 lists conductors.',
    ),
    (
        '1.50',
        'Nodes: owner and the owner list filter; the members of '
        "the owner's project see and act on the node as upstream's "
        'default policy allows, and a node list without '
        "baremetal:node:list_all holds only the project's nodes.",
    ),
    ('1.51', 'Nodes: description.'),
    (
        '1.52',
        'Allocations: POST /v1/allocations (resource_class, traits, '
        'candidate_nodes by uuid or name, name, uuid, extra; 201 '
        'while allocating, 405 below 1.52), GET /v1/allocations '
        '(node, resource_class and state filters, paging, sorting, '
        'fields), GET and DELETE /v1/allocations/{allocation_ident} '
        'and /v1/nodes/{node_ident}/allocation; a conductor takes a '
        'matching available node (no two allocations take one node) '
        'or sets error with last_error; the node gets the '
        "allocation's uuid as instance_uuid; nodes: allocation_uuid. "
        'Undeploying the node or removing its instance_uuid removes '
        'the allocation; the allocation of an active node is not '
        'deleted (409).',
    ),
    (
        '1.53',
        "Ports: is_smartnic (a Smart NIC port's link names port_id and "
        'hostname).',
    ),
    (
        '1.54',
        'POST /v1/events: external network events (bind_port, '
        'unbind_port, delete_port), validated and logged (204); '
        'GET /v1 lists events.',
    ),
    (
        '1.55',
        'Deploy templates: /v1/deploy_templates (create with a '
        'trait as name and deploy steps, list with uuid, name and '
        'links unless detail or fields, show, JSON patch, delete; '
        '404 reads and 405 writes below 1.55); a node deployed with '
        "the trait in instance_info.traits runs the template's "
        'steps, checked against its interfaces before the '
        'deployment starts (400).',
    ),
    (
        '1.56',
        'A config drive may be the JSON documents to build one from '
        '(meta_data, network_data, user_data as an object, array or '
        'string; only those): kept masked in instance_info for the '
        'deploy interface that writes the disk (400 below 1.56).',
    ),
    (
        '1.57',
        'PATCH /v1/allocations/{allocation_ident}: name and extra '
        '(405 below 1.57).',
    ),
    (
        '1.58',
        'Allocations: backfill, node set at creation for a node '
        'already deployed (its resource class by default, its '
        "instance_uuid as the allocation's uuid).",
    ),
    ('1.59', 'Config drive documents: vendor_data (400 below 1.59).'),
    (
        '1.60',
        'Allocations: owner (only nodes of that owner are taken; a '
        "project member's allocations are its project's) and the "
        'owner filter.',
    ),
    (
        '1.61',
        'Nodes: retired and retired_reason, and the retired list '
        'filter; a retired node refuses provide (400), and its '
        'cleaning after an undeploy ends in "manageable".',
    ),
    (
        '1.62',
        'Agent tokens: the lookup hands out a token made once per '
        'agent (masked for any later lookup); a heartbeat without '
        'the token is refused (400), at every version, as '
        'upstream. Powering off and the end of deploying or '
        "cleaning forget the token and the agent's URL.",
    ),
    (
        '1.63',
        'Indicators: GET /v1/nodes/{node_ident}/management/'
        'indicators, GET and PUT .../indicators/{name@component} '
        'through the management interface (the fake one has '
        "upstream's two LEDs and cannot set them); served at every "
        'version, as upstream.',
    ),
    (
        '1.64',
        'Ports: network_type in local_link_connection (managed or unmanaged).',
    ),
    (
        '1.65',
        "Nodes: lessee and the lessee list filter, with upstream's "
        'lessee policy rules.',
    ),
    (
        '1.66',
        'Nodes: network_data (a network_data.json document with '
        'links, networks and services, or {}).',
    ),
    (
        '1.67',
        'VIFs: an attachment may name port_uuid or '
        'portgroup_uuid (not both: 400).',
    ),
    ('1.68', 'Heartbeats: agent_verify_ca (400 below 1.68).'),
    (
        '1.69',
        'deploy_steps with the active and rebuild targets (406 '
        "below 1.69): run with the driver's and the templates', "
        'replacing theirs of the same interface and step.',
    ),
    (
        '1.70',
        'disable_ramdisk of PUT .../states/provision with clean '
        '(400 with another target): ironic_lite runs clean steps out '
        'of band and boots no ramdisk to clean, so true is what '
        'happens anyway.',
    ),
    (
        '1.71',
        'Scope-based roles (a signifier; the rules hold at every '
        "version): the system scope's admin, member and reader are "
        "the deployment's, a project's roles act on the nodes it "
        "owns or leases, as upstream's defaults.",
    ),
    (
        '1.72',
        'Heartbeats: agent_status (start, end or error) and '
        'agent_status_message (400 below 1.72).',
    ),
    (
        '1.73',
        'Provision targets deploy and undeploy (aliases of active '
        'and deleted).',
    ),
    (
        '1.74',
        'BIOS: the registry fields (attribute_type, '
        'allowable_values, bounds, lengths, read_only, '
        'reset_required, unique) with ?detail=true and in a single '
        'setting; ?fields=.',
    ),
    (
        '1.75',
        'Nodes and node states: boot_mode and secure_boot (read '
        'only; null: the fake interfaces report none).',
    ),
    (
        '1.76',
        'PUT /v1/nodes/{node_ident}/states/boot_mode ({"target": '
        '"bios" | "uefi"}) and .../states/secure_boot ({"target": '
        'true | false}): 202, then the conductor changes them through '
        'the management interface, recording the new value or the '
        'failure in last_error (the fake interface has neither, as '
        "upstream's); 409 while the node is transitioning, 404 below "
        '1.76.',
    ),
    (
        '1.77',
        'The fields parameter of GET /v1/drivers and '
        '/v1/drivers/{driver} (the links are always shown, as '
        "upstream's).",
    ),
    (
        '1.78',
        'Node history: GET /v1/nodes/{node_ident}/history (detail, '
        'paging, sorting) and .../history/{event_ident}; the '
        'conductor records failed verifications, deployments, tear '
        'downs, power changes and cleanings, and the start and end of '
        'each cleaning ([conductor]node_history, '
        'node_history_max_entries, record_step_flows_in_history).',
    ),
    ('1.79', 'Allocations: a node named as the allocation is tried first.'),
    (
        '1.80',
        'Project-scoped node creation and deletion (a signifier): '
        "a project's administrator creates nodes owned by its "
        'project and deletes the nodes it owns, with '
        '[api]project_admin_can_manage_own_nodes.',
    ),
    (
        '1.81',
        "GET /v1/nodes/{node_ident}/inventory: what the node's "
        'last inspection stored (inventory and plugin_data; 404 '
        'when none: the fake inspect interface stores none, as '
        "upstream's), 404 below 1.81.",
    ),
    (
        '1.82',
        'Nodes: shard, the shard and sharded list filters, GET '
        '/v1/shards; the shard filter of the port list.',
    ),
    (
        '1.83',
        'Nodes: parent_node (a node of the same owner); GET '
        '/v1/nodes/{node_ident}/children; node lists leave out '
        'child nodes unless include_children=true, and filter by '
        'parent_node.',
    ),
    (
        '1.84',
        'POST /v1/continue_inspection (no credentials): a ramdisk '
        "agent's inspection data, the node looked up by its MAC or "
        'BMC addresses or ?node_uuid= (1.84), in inspect wait; 202 '
        "with the node and the agent's configuration and token "
        '(1.1: {"uuid"}); the inspect interface takes the data (the '
        "fake one cannot: 400, as upstream's) and the inventory is "
        'stored.',
    ),
    ('1.85', 'Provision target unhold.'),
    (
        '1.86',
        "The node's firmware_interface (and the driver's "
        'default_firmware_interface, enabled_firmware_interfaces); '
        'GET /v1/nodes/{node_ident}/firmware: the firmware components '
        'the firmware interface last recorded (none for fake), '
        '?fields= and ?detail=, 404 below 1.86.',
    ),
    (
        '1.87',
        'Provision target service with service_steps (required, '
        'only with it; policy baremetal:node:set_provision_state:'
        'service_steps): an active node runs service steps of its '
        'interfaces and the reserved power_on, power_off, reboot, hold '
        'and wait (servicing, service wait, service hold, service '
        'failed, back to active); abort in service wait, service '
        'hold and service failed (back to active), unhold in service '
        'hold; nodes: service_step. "wait" needs "seconds" (no agent '
        'heartbeat ends a wait here).',
    ),
    ('1.88', 'Ports: name (unique; a port may be named by it in URLs).'),
    (
        '1.89',
        'POST /v1/nodes/{node_ident}/vmedia (device_type disk, cdrom '
        'or floppy; image_url http, https, nfs, cifs or smb) and '
        'DELETE (?device_types=): through the management interface '
        'on a worker, a failure in last_error (the fake interface has '
        "no virtual media, as upstream's); 404 below 1.89.",
    ),
    (
        '1.90',
        'Ports: OVN VTEP switches (vtep-logical-switch, '
        'vtep-physical-switch) in local_link_connection, until '
        '1.105.',
    ),
    (
        '1.91',
        'A ".json" at the end of a path is taken off below 1.91 '
        '(when X-OpenStack-Ironic-API-Version asks for it), a node '
        'named with it still found; from 1.91 it is part of the '
        'path.',
    ),
    (
        '1.92',
        'Runbooks: /v1/runbooks (create, list with detail, fields, '
        "paging, sorting and the project's own and public ones, show "
        'by uuid or name, JSON patch, delete), named by a trait, with '
        'steps in order, disable_ramdisk, owner and public under '
        "upstream's scoped rules; PUT .../states/provision takes "
        '"runbook" with clean and service: the node must have the '
        "runbook's name among its traits (policy "
        'baremetal:runbook:use).',
    ),
    (
        '1.93',
        'GET /v1/nodes/{node_ident}/vmedia: what the management '
        'interface says is attached (400 for fake, as upstream); '
        '404 below 1.93.',
    ),
    (
        '1.94',
        'Ports: node_ident (a node uuid or name) in place of node_uuid '
        'on create.',
    ),
    (
        '1.95',
        'Nodes: disable_power_off; such a node refuses power off '
        '(409) and stays powered on when it is undeployed.',
    ),
    (
        '1.96',
        'Inspection rules: /v1/inspection_rules (CRUD, 404/405 '
        "below), applied when an inspection's data is processed "
        '(with the built-in rules of [inspection_rules]built_in_rules).',
    ),
    ('1.97', 'Ports: description, and the description_contains list filter.'),
    (
        '1.98',
        'Upstream decodes RFC 6901 escapes in the top-level field '
        'of a patch path before checking it is patchable; the patch '
        'schema of those resources (here volume connectors and '
        'targets, and ports) admits no "~", so no answer changes '
        'at 1.98, as upstream.',
    ),
    ('1.99', 'The conductor_groups filter of the port and portgroup lists.'),
    ('1.100', 'Ports: vendor.'),
    ('1.101', 'Ports: category.'),
    (
        '1.102',
        'Portgroups: physical_network, written to its ports too; a '
        "port's physical_network does not change while it is in a "
        'portgroup (400).',
    ),
    ('1.103', 'Portgroups: category.'),
    (
        '1.104',
        'Nodes: instance_name and the instance_name list filter; '
        'set from instance_info display_name when an update sets '
        'that and instance_name is empty.',
    ),
    (
        '1.105',
        'Ports: OVN VTEP keys of local_link_connection are refused '
        'again (406) and a link holding them is shown empty.',
    ),
    ('1.106', 'The shard filter of the portgroup list.'),
    (
        '1.107',
        'X-OpenStack-Request-Id and Openstack-Request-Id on every '
        'response (at every version, as upstream).',
    ),
    (
        '1.108',
        'disable_ramdisk with the service target (406 below; '
        'service steps run out of band: a step that requires a '
        'ramdisk is refused with it, as upstream).',
    ),
    (
        '1.109',
        'Nodes: health (read only; null: the fake interfaces report none).',
    ),
    (
        '1.110',
        'abort in wait call-back: an asynchronous deploy step is '
        'stopped (abortable) or the deployment ends after it, in '
        'deploy failed (406 below).',
    ),
    (
        '1.111',
        'Ports: available_for_dynamic_portgroup; portgroups: '
        "dynamic_portgroup (read only, as upstream's create and patch "
        'do not take it).',
    ),
    (
        '1.112',
        'Runbooks: traits (GET, PUT and DELETE /v1/runbooks/'
        '{runbook_ident}/traits[/{trait}], 404 below), shown with '
        'the runbook; a node may run a runbook that has one of its '
        'traits (400 when the runbook has none); description; names '
        'of RFC 3986 unreserved characters instead of traits.',
    ),
    ('1.113', 'Node history: the project field (detail).'),
    (
        '1.114',
        'Firmware components: vendor, model and serial_number (in '
        '?fields= from 1.114 only: 400 below).',
    ),
    (
        '1.115',
        'Node history: the state, target_provision_state and '
        'duration_seconds fields (detail).',
    ),
)
