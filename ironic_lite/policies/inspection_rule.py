"""Policies of the inspection rules (upstream's
``baremetal:inspection_rule:*`` names and defaults: the system's readers
see them, its administrators manage them)."""

from ironic_lite.policies import base
from ironic_lite.policies.base import rule

RULE = 'baremetal:inspection_rule:%s'
_RULES = '/inspection_rules'
_ONE = _RULES + '/{rule_id}'

rules = [
    rule(
        RULE % 'get',
        base.SYSTEM_READER,
        'Get inspection rule(s)',
        [('GET', _RULES), ('GET', _ONE)],
    ),
    rule(
        RULE % 'list_all',
        base.SYSTEM_READER,
        'Retrieve all inspection_rule records',
        [('GET', _RULES)],
    ),
    rule(
        RULE % 'create',
        base.SYSTEM_ADMIN,
        'Create inspection rule',
        [('POST', _RULES)],
    ),
    rule(
        RULE % 'update',
        base.SYSTEM_ADMIN,
        'Update an inspection rule',
        [('PATCH', _ONE)],
    ),
    rule(
        RULE % 'delete',
        base.SYSTEM_ADMIN,
        'Delete an inspection rule',
        [('DELETE', _ONE)],
    ),
]
