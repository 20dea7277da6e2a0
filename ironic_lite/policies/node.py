"""Policies of the nodes (upstream's ``baremetal:node:*`` names).

The defaults are upstream Ironic's (the personas of
:mod:`ironic_lite.policies.base`): the system's administrators, members
and readers, and the projects owning a node (``node.owner``) or leasing
it (``node.lessee``), each as upstream allows.
"""

from ironic_lite.policies import base
from ironic_lite.policies.base import rule

NODE = 'baremetal:node:%s'
_ONE = '/nodes/{node_ident}'

_STATES = _ONE + '/states'
#: The operations of using a node: the system's members, the owner's
#: members, the lessee's administrators.
_USE = base.SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN

rules = [
    rule(
        NODE % 'create',
        base.any_of(base.SYSTEM_ADMIN, base.SYSTEM_SERVICE),
        'Create a node.',
        [('POST', '/nodes')],
    ),
    rule(
        NODE % 'create:self_owned_node',
        '(role:admin) or (role:service)',
        "Create a node owned by one's project (a project's "
        'administrator, with [api]project_admin_can_manage_own_nodes; '
        'API 1.80).',
        [('POST', '/nodes')],
    ),
    rule(
        NODE % 'list',
        base.API_READER,
        'List nodes: without baremetal:node:list_all, only the nodes '
        'whose owner or lessee is the project of the request.',
        [('GET', '/nodes'), ('GET', '/nodes/detail')],
    ),
    rule(
        NODE % 'list_all',
        base.SYSTEM_READER,
        'List every node, whatever its owner and lessee.',
        [('GET', '/nodes'), ('GET', '/nodes/detail')],
    ),
    rule(
        NODE % 'get',
        base.SYSTEM_OR_PROJECT_READER,
        'Show a node.',
        [('GET', _ONE)],
    ),
    rule(
        NODE % 'get:filter_threshold',
        base.SYSTEM_READER,
        'Who sees every field of a node without the per-field checks '
        'below (baremetal:node:get:last_error ...).',
        [('GET', _ONE)],
    ),
    rule(
        NODE % 'get:last_error',
        base.SYSTEM_OR_OWNER_READER,
        'See the last_error of a node (redacted otherwise).',
        [('GET', _ONE)],
    ),
    rule(
        NODE % 'get:reservation',
        base.SYSTEM_OR_OWNER_READER,
        'See the reservation of a node (redacted otherwise).',
        [('GET', _ONE)],
    ),
    rule(
        NODE % 'get:driver_internal_info',
        base.SYSTEM_OR_OWNER_READER,
        'See the driver_internal_info of a node (redacted otherwise).',
        [('GET', _ONE)],
    ),
    rule(
        NODE % 'get:driver_info',
        base.SYSTEM_OR_OWNER_READER,
        'See the driver_info of a node (redacted otherwise).',
        [('GET', _ONE)],
    ),
    rule(
        NODE % 'get_states',
        base.SYSTEM_OR_PROJECT_READER,
        'Show the states of a node.',
        [('GET', _STATES)],
    ),
    rule(
        NODE % 'update',
        base.SYSTEM_OR_PROJECT_MEMBER,
        'Update a node (JSON patch): the fields without a rule of their own.',
        [('PATCH', _ONE)],
    ),
    rule(
        NODE % 'update:driver_info',
        base.SYSTEM_MEMBER_OR_OWNER_MEMBER,
        'Update driver_info.',
        [('PATCH', _ONE)],
    ),
    rule(
        NODE % 'update:properties',
        base.SYSTEM_MEMBER_OR_OWNER_MEMBER,
        'Update properties.',
        [('PATCH', _ONE)],
    ),
    rule(
        NODE % 'update:instance_uuid',
        base.SYSTEM_MEMBER_OR_OWNER_MEMBER,
        'Update instance_uuid.',
        [('PATCH', _ONE)],
    ),
    rule(
        NODE % 'update:lessee',
        base.SYSTEM_MEMBER_OR_OWNER_MEMBER,
        'Update lessee.',
        [('PATCH', _ONE)],
    ),
    rule(
        NODE % 'update:owner',
        base.SYSTEM_MEMBER,
        'Update owner.',
        [('PATCH', _ONE)],
    ),
    rule(
        NODE % 'update:chassis_uuid',
        base.SYSTEM_ADMIN,
        'Move a node into a chassis, or out of it.',
        [('PATCH', _ONE)],
    ),
    rule(
        NODE % 'update:driver_interfaces',
        base.SYSTEM_MEMBER_OR_OWNER_ADMIN,
        'Update the driver and the *_interface fields.',
        [('PATCH', _ONE)],
    ),
    rule(
        NODE % 'update:network_data',
        base.SYSTEM_MEMBER_OR_OWNER_MEMBER,
        'Update network_data.',
        [('PATCH', _ONE)],
    ),
    rule(
        NODE % 'update:conductor_group',
        base.SYSTEM_MEMBER,
        'Update conductor_group.',
        [('PATCH', _ONE)],
    ),
    rule(
        NODE % 'update:name',
        base.SYSTEM_MEMBER_OR_OWNER_MEMBER,
        'Update name.',
        [('PATCH', _ONE)],
    ),
    rule(
        NODE % 'update:retired',
        base.SYSTEM_MEMBER_OR_OWNER_MEMBER,
        'Update retired and retired_reason.',
        [('PATCH', _ONE)],
    ),
    rule(
        NODE % 'update:shard',
        base.SYSTEM_ADMIN,
        'Update shard.',
        [('PATCH', _ONE)],
    ),
    rule(
        NODE % 'update:parent_node',
        base.SYSTEM_MEMBER,
        'Update parent_node.',
        [('PATCH', _ONE)],
    ),
    rule(
        NODE % 'update:disable_power_off',
        base.SYSTEM_ADMIN,
        'Update disable_power_off.',
        [('PATCH', _ONE)],
    ),
    rule(
        NODE % 'update_extra',
        base.SYSTEM_OR_PROJECT_MEMBER,
        'Update extra.',
        [('PATCH', _ONE)],
    ),
    rule(
        NODE % 'update_instance_info',
        _USE,
        'Update instance_info and instance_name.',
        [('PATCH', _ONE)],
    ),
    rule(
        NODE % 'update_owner_provisioned',
        base.SYSTEM_ADMIN,
        'Change the owner of an active node.',
        [('PATCH', _ONE)],
        base.SYSTEM_SCOPE,
    ),
    rule(
        NODE % 'disable_cleaning',
        base.SYSTEM_ADMIN,
        'Set automated_clean to false.',
        [('PATCH', _ONE)],
    ),
    rule(
        NODE % 'delete:self_owned_node',
        base.role_of('admin', base.OWNER),
        "Delete a node one's project owns (its administrator, with "
        '[api]project_admin_can_manage_own_nodes; API 1.80).',
        [('DELETE', _ONE)],
    ),
    rule(
        NODE % 'delete',
        base.SYSTEM_ADMIN,
        'Delete a node.',
        [('DELETE', _ONE)],
    ),
    rule(
        NODE % 'set_power_state',
        base.SYSTEM_OR_PROJECT_MEMBER,
        'Change the power state of a node.',
        [('PUT', _STATES + '/power')],
    ),
    rule(
        NODE % 'get_console',
        base.SYSTEM_MEMBER_OR_OWNER_MEMBER,
        'Show whether the console of a node is enabled and how to reach it.',
        [('GET', _STATES + '/console')],
    ),
    rule(
        NODE % 'set_console_state',
        base.SYSTEM_MEMBER_OR_OWNER_MEMBER,
        'Enable or disable the console of a node.',
        [('PUT', _STATES + '/console')],
    ),
    rule(
        NODE % 'vendor_passthru',
        base.SYSTEM_ADMIN,
        'Call a vendor method of a node, or list them.',
        [('GET', _ONE + '/vendor_passthru/methods')]
        + [
            (method, _ONE + '/vendor_passthru?method={method_name}')
            for method in ('GET', 'PUT', 'POST', 'PATCH', 'DELETE')
        ],
    ),
    rule(
        NODE % 'vif:list',
        base.SYSTEM_OR_PROJECT_READER,
        'List the VIFs attached to a node.',
        [('GET', _ONE + '/vifs')],
    ),
    rule(
        NODE % 'vif:attach',
        _USE,
        'Attach a VIF to a node.',
        [('POST', _ONE + '/vifs')],
    ),
    rule(
        NODE % 'vif:detach',
        _USE,
        'Detach a VIF from a node.',
        [('DELETE', _ONE + '/vifs/{vif_id}')],
    ),
    rule(
        NODE % 'bios:get',
        base.SYSTEM_OR_PROJECT_READER,
        'Show the BIOS settings of a node.',
        [('GET', _ONE + '/bios'), ('GET', _ONE + '/bios/{setting_name}')],
    ),
    rule(
        NODE % 'set_boot_mode',
        base.SYSTEM_OR_PROJECT_MEMBER,
        'Change the boot mode of a node.',
        [('PUT', _STATES + '/boot_mode')],
    ),
    rule(
        NODE % 'set_secure_boot',
        base.SYSTEM_OR_PROJECT_MEMBER,
        'Turn secure boot of a node on or off.',
        [('PUT', _STATES + '/secure_boot')],
    ),
    rule(
        NODE % 'firmware:get',
        base.SYSTEM_OR_PROJECT_READER,
        'Show the firmware components of a node (1.86).',
        [('GET', _ONE + '/firmware')],
    ),
    rule(
        NODE % 'vmedia:attach',
        base.SYSTEM_OR_PROJECT_MEMBER,
        'Attach virtual media to a node (1.89).',
        [('POST', _ONE + '/vmedia')],
    ),
    rule(
        NODE % 'vmedia:detach',
        base.SYSTEM_OR_PROJECT_MEMBER,
        'Detach virtual media from a node (1.89).',
        [('DELETE', _ONE + '/vmedia')],
    ),
    rule(
        NODE % 'vmedia:get',
        base.SYSTEM_OR_PROJECT_READER,
        'Show the virtual media attached to a node (1.93).',
        [('GET', _ONE + '/vmedia')],
    ),
    rule(
        NODE % 'inventory:get',
        base.SYSTEM_OR_OWNER_READER,
        'Show what the last inspection of a node found.',
        [('GET', _ONE + '/inventory')],
    ),
    rule(
        NODE % 'ipa_heartbeat',
        '',
        'Receive the heartbeat of a ramdisk agent (no credentials: the '
        'agent token it carries is checked instead).',
        [('POST', '/heartbeat/{node_ident}')],
    ),
    rule(
        NODE % 'validate',
        _USE,
        "Ask the node's interfaces to check what they need.",
        [('GET', '/nodes/{node_ident}/validate')],
    ),
    rule(
        NODE % 'set_provision_state',
        _USE,
        'Change the provision state of a node (manage, provide, clean, '
        'abort, ...).',
        [('PUT', _STATES + '/provision')],
    ),
    rule(
        NODE % 'set_provision_state:clean_steps',
        _USE,
        'Request manual cleaning with steps.',
        [('PUT', _STATES + '/provision')],
    ),
    rule(
        NODE % 'set_provision_state:service_steps',
        _USE,
        'Request the servicing of an active node with steps.',
        [('PUT', _STATES + '/provision')],
    ),
    rule(
        NODE % 'set_raid_state',
        base.SYSTEM_MEMBER_OR_OWNER_MEMBER,
        'Set the target RAID configuration of a node.',
        [('PUT', _STATES + '/raid')],
    ),
    rule(
        NODE % 'set_maintenance',
        _USE,
        'Put a node in maintenance.',
        [('PUT', _ONE + '/maintenance')],
    ),
    rule(
        NODE % 'clear_maintenance',
        _USE,
        'Take a node out of maintenance.',
        [('DELETE', _ONE + '/maintenance')],
    ),
    rule(
        NODE % 'traits:list',
        base.SYSTEM_OR_PROJECT_READER,
        'List the traits of a node.',
        [('GET', _ONE + '/traits')],
    ),
    rule(
        NODE % 'traits:set',
        base.SYSTEM_MEMBER_OR_OWNER_ADMIN,
        'Add a trait to, or replace every trait of, a node.',
        [('PUT', _ONE + '/traits'), ('PUT', _ONE + '/traits/{trait}')],
    ),
    rule(
        NODE % 'traits:delete',
        base.SYSTEM_MEMBER_OR_OWNER_ADMIN,
        'Remove one or every trait of a node.',
        [('DELETE', _ONE + '/traits'), ('DELETE', _ONE + '/traits/{trait}')],
    ),
    rule(
        NODE % 'get_cleaning_steps',
        base.SYSTEM_READER,
        'List the clean steps of a node (an extension, served at the '
        'maximum version).',
        [('GET', _ONE + '/cleaning/steps')],
    ),
    rule(
        'baremetal:shards:get',
        base.SYSTEM_READER,
        'List the shards and their node counts (1.82).',
        [('GET', '/shards')],
    ),
]
