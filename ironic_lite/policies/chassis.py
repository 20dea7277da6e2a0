"""Policies of the chassis (upstream's names; administrators only, as
upstream's system-scoped defaults)."""

from ironic_lite.policies.base import ADMIN
from ironic_lite.policies.base import rule

_ONE = '/chassis/{chassis_id}'

rules = [
    rule('baremetal:chassis:get', ADMIN,
         'List chassis, show one, list its nodes.',
         [('GET', '/chassis'), ('GET', '/chassis/detail'), ('GET', _ONE)]),
    rule('baremetal:chassis:create', ADMIN, 'Create a chassis.',
         [('POST', '/chassis')]),
    rule('baremetal:chassis:update', ADMIN, 'Update a chassis.',
         [('PATCH', _ONE)]),
    rule('baremetal:chassis:delete', ADMIN,
         'Delete a chassis (without nodes).', [('DELETE', _ONE)]),
]
