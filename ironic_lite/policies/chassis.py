"""Policies of the chassis (upstream's names; administrators only, as
upstream's system-scoped defaults)."""

from ironic_lite.policies import base
from ironic_lite.policies.base import rule

_ONE = '/chassis/{chassis_id}'

rules = [
    rule(
        'baremetal:chassis:get',
        base.SYSTEM_READER,
        'List chassis, show one, list its nodes.',
        [('GET', '/chassis'), ('GET', '/chassis/detail'), ('GET', _ONE)],
        scope_types=base.SYSTEM_SCOPE,
    ),
    rule(
        'baremetal:chassis:create',
        base.SYSTEM_ADMIN,
        'Create a chassis.',
        [('POST', '/chassis')],
        scope_types=base.SYSTEM_SCOPE,
    ),
    rule(
        'baremetal:chassis:update',
        base.SYSTEM_MEMBER,
        'Update a chassis.',
        [('PATCH', _ONE)],
        scope_types=base.SYSTEM_SCOPE,
    ),
    rule(
        'baremetal:chassis:delete',
        base.SYSTEM_ADMIN,
        'Delete a chassis (without nodes).',
        [('DELETE', _ONE)],
        scope_types=base.SYSTEM_SCOPE,
    ),
]
