"""Policies of the management of a node: its boot device and its
indicators (upstream's names)."""

from ironic_lite.policies import base
from ironic_lite.policies.base import rule

_INDICATORS = '/nodes/{node_ident}/management/indicators'
_BOOT_DEVICE = '/nodes/{node_ident}/management/boot_device'

rules = [
    rule(
        'baremetal:node:get_indicator_state',
        base.SYSTEM_OR_PROJECT_READER,
        'List the indicators of a node and show the state of one.',
        [
            ('GET', _INDICATORS),
            ('GET', _INDICATORS + '/{component}/{indicator}'),
        ],
    ),
    rule(
        'baremetal:node:set_indicator_state',
        base.SYSTEM_MEMBER_OR_OWNER_MEMBER,
        'Change the state of an indicator of a node.',
        [('PUT', _INDICATORS + '/{component}/{indicator}')],
    ),
    rule(
        'baremetal:node:get_boot_device',
        base.SYSTEM_MEMBER_OR_OWNER_ADMIN,
        'Show the boot device of a node and the devices it supports.',
        [('GET', _BOOT_DEVICE), ('GET', _BOOT_DEVICE + '/supported')],
    ),
    rule(
        'baremetal:node:set_boot_device',
        base.SYSTEM_MEMBER_OR_OWNER_ADMIN,
        'Set the boot device of a node.',
        [('PUT', _BOOT_DEVICE)],
    ),
    rule(
        'baremetal:node:inject_nmi',
        base.SYSTEM_MEMBER_OR_OWNER_ADMIN,
        'Send a node a non-maskable interrupt.',
        [('PUT', '/nodes/{node_ident}/management/inject_nmi')],
    ),
]
