"""Policies of the nodes (upstream's ``baremetal:node:*`` names).

The defaults are upstream Ironic's, with one substitution: upstream's
system-scoped roles (``role:... and system_scope:all``) are
``rule:is_admin`` here, the administrator of the Bare Metal API (see
:mod:`ironic_lite.policies.base`). The project rules are upstream's: a
member of the project owning a node (``node.owner``) or leasing it
(``node.lessee``) sees and acts on that node as upstream allows.
"""

from ironic_lite.policies.base import ADMIN
from ironic_lite.policies.base import rule

NODE = 'baremetal:node:%s'
_ONE = '/nodes/{node_ident}'

_OWNER = 'project_id:%(node.owner)s'
_LESSEE = 'project_id:%(node.lessee)s'
_OWNER_OR_LESSEE = f'({_OWNER} or {_LESSEE})'
_SERVICE_OWNER = f'role:service and {_OWNER}'


def any_of(*checks: str) -> str:
    return ' or '.join(f'({check})' for check in checks)


#: Readers of the owner's or the lessee's project.
READER = any_of(ADMIN, f'role:reader and {_OWNER_OR_LESSEE}',
                _SERVICE_OWNER)
#: Members of the owner's or the lessee's project.
MEMBER = any_of(ADMIN, f'role:member and {_OWNER_OR_LESSEE}')
#: Readers of the owner's project only.
OWNER_READER = any_of(ADMIN, f'role:reader and {_OWNER}', _SERVICE_OWNER)
#: Members of the owner's project only.
OWNER_MEMBER = any_of(ADMIN, f'role:member and {_OWNER}', _SERVICE_OWNER)
#: Administrators and managers of the owner's project.
OWNER_ADMIN = any_of(ADMIN, f'role:admin and {_OWNER}',
                     f'role:manager and {_OWNER}', _SERVICE_OWNER)
#: Members of the owner's project, administrators and managers of the
#: lessee's.
OWNER_MEMBER_LESSEE_ADMIN = any_of(
    ADMIN, f'role:member and {_OWNER}', f'role:admin and {_LESSEE}',
    f'role:manager and {_LESSEE}', _SERVICE_OWNER)

_STATES = _ONE + '/states'

rules = [
    rule(NODE % 'create', ADMIN, 'Create a node.', [('POST', '/nodes')]),
    rule(NODE % 'list', 'role:reader or role:service',
         'List nodes: without baremetal:node:list_all, only the nodes '
         'whose owner or lessee is the project of the request.',
         [('GET', '/nodes'), ('GET', '/nodes/detail')]),
    rule(NODE % 'list_all', ADMIN,
         'List every node, whatever its owner and lessee.',
         [('GET', '/nodes'), ('GET', '/nodes/detail')]),
    rule(NODE % 'get', READER, 'Show a node.', [('GET', _ONE)]),
    rule(NODE % 'get:filter_threshold', ADMIN,
         'Who sees every field of a node without the per-field checks '
         'below (baremetal:node:get:last_error ...).', [('GET', _ONE)]),
    rule(NODE % 'get:last_error', OWNER_READER,
         'See the last_error of a node (redacted otherwise).',
         [('GET', _ONE)]),
    rule(NODE % 'get:reservation', OWNER_READER,
         'See the reservation of a node (redacted otherwise).',
         [('GET', _ONE)]),
    rule(NODE % 'get:driver_internal_info', OWNER_READER,
         'See the driver_internal_info of a node (redacted otherwise).',
         [('GET', _ONE)]),
    rule(NODE % 'get:driver_info', OWNER_READER,
         'See the driver_info of a node (redacted otherwise).',
         [('GET', _ONE)]),
    rule(NODE % 'get_states', READER, 'Show the states of a node.',
         [('GET', _STATES)]),
    rule(NODE % 'update', MEMBER,
         'Update a node (JSON patch): the fields without a rule of '
         'their own.', [('PATCH', _ONE)]),
    rule(NODE % 'update:driver_info', OWNER_MEMBER,
         'Update driver_info.', [('PATCH', _ONE)]),
    rule(NODE % 'update:properties', OWNER_MEMBER, 'Update properties.',
         [('PATCH', _ONE)]),
    rule(NODE % 'update:instance_uuid', OWNER_MEMBER,
         'Update instance_uuid.', [('PATCH', _ONE)]),
    rule(NODE % 'update:lessee', OWNER_MEMBER, 'Update lessee.',
         [('PATCH', _ONE)]),
    rule(NODE % 'update:owner', ADMIN, 'Update owner.', [('PATCH', _ONE)]),
    rule(NODE % 'update:chassis_uuid', ADMIN,
         'Move a node into a chassis, or out of it.', [('PATCH', _ONE)]),
    rule(NODE % 'update:driver_interfaces', OWNER_ADMIN,
         'Update the driver and the *_interface fields.',
         [('PATCH', _ONE)]),
    rule(NODE % 'update:network_data', OWNER_MEMBER,
         'Update network_data.', [('PATCH', _ONE)]),
    rule(NODE % 'update:conductor_group', ADMIN, 'Update conductor_group.',
         [('PATCH', _ONE)]),
    rule(NODE % 'update:name', OWNER_MEMBER, 'Update name.',
         [('PATCH', _ONE)]),
    rule(NODE % 'update:retired', OWNER_MEMBER,
         'Update retired and retired_reason.', [('PATCH', _ONE)]),
    rule(NODE % 'update:shard', ADMIN, 'Update shard.', [('PATCH', _ONE)]),
    rule(NODE % 'update:parent_node', ADMIN, 'Update parent_node.',
         [('PATCH', _ONE)]),
    rule(NODE % 'update:disable_power_off', ADMIN,
         'Update disable_power_off.', [('PATCH', _ONE)]),
    rule(NODE % 'update_extra', MEMBER, 'Update extra.',
         [('PATCH', _ONE)]),
    rule(NODE % 'update_instance_info', OWNER_MEMBER_LESSEE_ADMIN,
         'Update instance_info and instance_name.', [('PATCH', _ONE)]),
    rule(NODE % 'update_owner_provisioned', ADMIN,
         'Change the owner of an active node.', [('PATCH', _ONE)]),
    rule(NODE % 'disable_cleaning', ADMIN,
         'Set automated_clean to false.', [('PATCH', _ONE)]),
    rule(NODE % 'delete', ADMIN, 'Delete a node.', [('DELETE', _ONE)]),
    rule(NODE % 'set_power_state', MEMBER,
         'Change the power state of a node.',
         [('PUT', _STATES + '/power')]),
    rule(NODE % 'get_console', OWNER_MEMBER,
         'Show whether the console of a node is enabled and how to reach '
         'it.', [('GET', _STATES + '/console')]),
    rule(NODE % 'set_console_state', OWNER_MEMBER,
         'Enable or disable the console of a node.',
         [('PUT', _STATES + '/console')]),
    rule(NODE % 'vendor_passthru', ADMIN,
         'Call a vendor method of a node, or list them.',
         [('GET', _ONE + '/vendor_passthru/methods')] + [
             (method, _ONE + '/vendor_passthru?method={method_name}')
             for method in ('GET', 'PUT', 'POST', 'PATCH', 'DELETE')]),
    rule(NODE % 'vif:list', READER, 'List the VIFs attached to a node.',
         [('GET', _ONE + '/vifs')]),
    rule(NODE % 'vif:attach', OWNER_MEMBER_LESSEE_ADMIN,
         'Attach a VIF to a node.', [('POST', _ONE + '/vifs')]),
    rule(NODE % 'vif:detach', OWNER_MEMBER_LESSEE_ADMIN,
         'Detach a VIF from a node.', [('DELETE', _ONE + '/vifs/{vif_id}')]),
    rule(NODE % 'bios:get', READER, 'Show the BIOS settings of a node.',
         [('GET', _ONE + '/bios'), ('GET', _ONE + '/bios/{setting_name}')]),
    rule(NODE % 'set_boot_mode', MEMBER,
         'Change the boot mode of a node.',
         [('PUT', _STATES + '/boot_mode')]),
    rule(NODE % 'set_secure_boot', MEMBER,
         'Turn secure boot of a node on or off.',
         [('PUT', _STATES + '/secure_boot')]),
    rule(NODE % 'inventory:get', OWNER_READER,
         'Show what the last inspection of a node found.',
         [('GET', _ONE + '/inventory')]),
    rule(NODE % 'ipa_heartbeat', '',
         'Receive the heartbeat of a ramdisk agent (no credentials: the '
         'agent token it carries is checked instead).',
         [('POST', '/heartbeat/{node_ident}')]),
    rule(NODE % 'validate', OWNER_MEMBER_LESSEE_ADMIN,
         'Ask the node\'s interfaces to check what they need.',
         [('GET', '/nodes/{node_ident}/validate')]),
    rule(NODE % 'set_provision_state', OWNER_MEMBER_LESSEE_ADMIN,
         'Change the provision state of a node (manage, provide, clean, '
         'abort, ...).', [('PUT', _STATES + '/provision')]),
    rule(NODE % 'set_provision_state:clean_steps',
         OWNER_MEMBER_LESSEE_ADMIN, 'Request manual cleaning with steps.',
         [('PUT', _STATES + '/provision')]),
    rule(NODE % 'set_raid_state', OWNER_MEMBER,
         'Set the target RAID configuration of a node.',
         [('PUT', _STATES + '/raid')]),
    rule(NODE % 'set_maintenance', OWNER_MEMBER_LESSEE_ADMIN,
         'Put a node in maintenance.', [('PUT', _ONE + '/maintenance')]),
    rule(NODE % 'clear_maintenance', OWNER_MEMBER_LESSEE_ADMIN,
         'Take a node out of maintenance.',
         [('DELETE', _ONE + '/maintenance')]),
    rule(NODE % 'traits:list', READER, 'List the traits of a node.',
         [('GET', _ONE + '/traits')]),
    rule(NODE % 'traits:set', OWNER_ADMIN,
         'Add a trait to, or replace every trait of, a node.',
         [('PUT', _ONE + '/traits'), ('PUT', _ONE + '/traits/{trait}')]),
    rule(NODE % 'traits:delete', OWNER_ADMIN,
         'Remove one or every trait of a node.',
         [('DELETE', _ONE + '/traits'),
          ('DELETE', _ONE + '/traits/{trait}')]),
    rule(NODE % 'get_cleaning_steps', ADMIN,
         'List the clean steps of a node (an extension, served at the '
         'maximum version).',
         [('GET', _ONE + '/cleaning/steps')]),
    rule('baremetal:shards:get', ADMIN, 'List the shards and their node '
         'counts (1.82).', [('GET', '/shards')]),
]
