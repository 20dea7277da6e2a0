"""Policies of the drivers (hardware types)."""

from ironic_lite.policies import base
from ironic_lite.policies.base import rule

rules = [
    rule(
        'baremetal:driver:get',
        base.SYSTEM_READER,
        'List the drivers (hardware types) and show one.',
        [('GET', '/drivers'), ('GET', '/drivers/{driver_name}')],
        scope_types=base.SYSTEM_SCOPE,
    ),
    rule(
        'baremetal:driver:get_properties',
        base.SYSTEM_READER,
        'Show the driver_info properties a driver reads.',
        [('GET', '/drivers/{driver_name}/properties')],
        scope_types=base.SYSTEM_SCOPE,
    ),
    rule(
        'baremetal:driver:get_raid_logical_disk_properties',
        base.SYSTEM_READER,
        'Show the logical disk properties a target RAID configuration '
        'may use with a driver.',
        [('GET', '/drivers/{driver_name}/raid/logical_disk_properties')],
        scope_types=base.SYSTEM_SCOPE,
    ),
    rule(
        'baremetal:driver:vendor_passthru',
        base.SYSTEM_ADMIN,
        'Call a vendor method of a driver, or list them.',
        [('GET', '/drivers/{driver_name}/vendor_passthru/methods')]
        + [
            (
                method,
                '/drivers/{driver_name}/vendor_passthru?method={method_name}',
            )
            for method in ('GET', 'PUT', 'POST', 'PATCH', 'DELETE')
        ],
        scope_types=base.SYSTEM_SCOPE,
    ),
    rule(
        'baremetal:driver:ipa_lookup',
        '',
        'Look up a node from its ramdisk agent (no credentials: the '
        'agent has none).',
        [('GET', '/lookup')],
    ),
    rule(
        'baremetal:driver:ipa_continue_inspection',
        '',
        'Receive the inspection data of a ramdisk agent (no '
        'credentials: the agent has none; 1.84).',
        [('POST', '/continue_inspection')],
    ),
]
