"""Upstream Ironic's Bare Metal API microversions, 1.1 to 1.115.

Facts, not code: the number and a one-line summary of each change, from
upstream Ironic 39 (``ironic/api/controllers/v1/versions.py``). What
ironic_lite serves of each is in
:data:`ironic_lite.api.version_history.HISTORY`.
"""

#: Upstream's maximum microversion (Ironic 39, 2026.2).
MAXIMUM = '1.115'

#: minor version -> upstream's summary of its change.
CHANGES: dict[int, str] = {
    1: (
        'The API when versioning was added (nodes, chassis, ports, '
        'drivers, maintenance, vendor passthru, config drive).'
    ),
    2: 'Renamed NOSTATE ("None") to AVAILABLE ("available")',
    3: 'Add node.driver_internal_info',
    4: 'Add MANAGEABLE state',
    5: 'Add logical node names',
    6: 'Add INSPECT* states',
    7: 'Add node.clean_step',
    8: 'Add ability to return a subset of resource fields',
    9: 'Add ability to filter nodes by provision state',
    10: 'Logical node names support RFC 3986 unreserved characters',
    11: 'Nodes appear in ENROLL state by default',
    12: 'Add support for RAID',
    13: "Add 'abort' verb to CLEANWAIT",
    14: "The node's states link and the driver's properties link.",
    15: 'Add ability to do manual cleaning of nodes',
    16: 'Add ability to filter nodes by driver.',
    17: "Add 'adopt' verb for ADOPTING active nodes.",
    18: 'Add port.internal_info.',
    19: 'Add port.local_link_connection and port.pxe_enabled.',
    20: 'Add node.network_interface',
    21: 'Add node.resource_class',
    22: 'Ramdisk lookup and heartbeat endpoints.',
    23: 'Add portgroup support.',
    24: (
        'Add subcontrollers: node.portgroup, portgroup.ports. Add '
        'port.portgroup_uuid field.'
    ),
    25: 'Add possibility to unset chassis_uuid from node.',
    26: 'Add portgroup.mode and portgroup.properties.',
    27: 'Add soft reboot, soft power off and timeout.',
    28: 'Add vifs subcontroller to node',
    29: 'Add inject nmi.',
    30: 'Add dynamic driver interactions.',
    31: 'Add dynamic interfaces fields to node.',
    32: 'Add volume support.',
    33: 'Add node storage interface',
    34: 'Add physical network field to port.',
    35: 'Add ability to provide configdrive when rebuilding node.',
    36: 'Add Ironic Python Agent version support.',
    37: 'Add node traits.',
    38: 'Add rescue and unrescue provision states',
    39: 'Add inspect wait provision state.',
    40: 'Add bios.properties. Add bios_interface to the node object.',
    41: 'Add inspection abort support.',
    42: 'Expose fault field to node.',
    43: 'Add detail=True flag to all API endpoints',
    44: 'Add node deploy_step field',
    45: "reset_interfaces parameter to node's PATCH",
    46: 'Add conductor_group to the node object.',
    47: 'Add automated_clean to the node object.',
    48: 'Add protected to the node object.',
    49: 'Add conductor to the node object and /v1/conductors.',
    50: 'Add owner to the node object.',
    51: 'Add description to the node object.',
    52: 'Add allocation API.',
    53: 'Add support for Smart NIC port',
    54: 'Add events support.',
    55: 'Add deploy templates API.',
    56: 'Add support for building configdrives.',
    57: 'Add support for updating an existing allocation.',
    58: 'Add support for backfilling allocations.',
    59: 'Add support vendor data in configdrives.',
    60: 'Add owner to the allocation object.',
    61: 'Add retired and retired_reason to the node object.',
    62: 'Add agent_token support for agent communication.',
    63: 'Add support for indicators',
    64: 'Add network_type to port.local_link_connection',
    65: 'Add lessee to the node object.',
    66: 'Add support for node network_data field.',
    67: 'Add support for port_uuid/portgroup_uuid in node vif_attach',
    68: 'Add agent_verify_ca to heartbeat.',
    69: 'Add deploy_steps to provisioning',
    70: 'Add disable_ramdisk to manual cleaning.',
    71: 'Add signifier for Scope based roles.',
    72: 'Add agent_status and agent_status_message to /v1/heartbeat',
    73: 'Add support for deploy and undeploy verbs',
    74: 'Add bios registry to /v1/nodes/{node}/bios/{setting}',
    75: 'Add boot_mode, secure_boot fields to node object.',
    76: 'Add support for changing boot_mode and secure_boot state',
    77: 'Add fields selector to drivers list and driver detail.',
    78: 'Add node history endpoint',
    79: 'Change allocation behaviour to prefer node name match',
    80: 'Marker to represent self service node creation/deletion',
    81: 'Add node inventory',
    82: 'Add node sharding capability',
    83: 'Add child node modeling',
    84: 'Add ramdisk callback to continue inspection.',
    85: 'Add unhold verb',
    86: 'Add firmware interface',
    87: 'Add service verb',
    88: 'Add name field to port.',
    89: 'Add API for attaching/detaching virtual media',
    90: (
        'Accept ovn vtep switch metadata schema to port.local_link_connection'
    ),
    91: 'Remove special treatment of .json for API objects',
    92: 'Add runbooks API',
    93: 'Add GET API for virtual media',
    94: 'Add node name support for port creation',
    95: 'Add node support for disable_power_off',
    96: 'Migrate inspection rules from Inspector',
    97: 'Add description field to port.',
    98: 'Add support for object attributes with keys containing ~ or /.',
    99: 'Add conductor group filtering to port and portgroup list',
    100: 'Add vendor field to port.',
    101: 'Add category field to port.',
    102: 'Add physical_network field to portgroup.',
    103: 'Add category field to portgroup',
    104: 'Add instance_name to node',
    105: 'Remove broken ovn vtep metadata support',
    106: 'Add shard filtering support for portgroups',
    107: 'Add X-OpenStack-Request-Id header.',
    108: 'Add disable_ramdisk support for servicing',
    109: 'Add health field to node object.',
    110: 'Add support for aborting deployment in DEPLOYWAIT state',
    111: (
        'Add available_for_dynamic_portgroup to port, dynamic_portgroup '
        'to portgroup'
    ),
    112: (
        'Add runbook traits support: traits set on runbooks, relaxed name '
        'validation, description field, and /v1/runbooks/{ident}/traits '
        'sub-resource.'
    ),
    113: 'Add the project of node history events.',
    114: 'Add vendor, model, serial_number to firmware component response.',
    115: (
        'Add state, target_provision_state and duration_seconds to node '
        'history.'
    ),
}
