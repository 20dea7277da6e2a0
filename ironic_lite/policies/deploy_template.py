"""Policies of the deploy templates (upstream's
``baremetal:deploy_template:*`` names and defaults: the system's
readers see them, its administrators manage them)."""

from ironic_lite.policies import base
from ironic_lite.policies.base import rule

TEMPLATE = 'baremetal:deploy_template:%s'
_TEMPLATES = '/deploy_templates'
_ONE = _TEMPLATES + '/{deploy_template_ident}'

rules = [
    rule(
        TEMPLATE % 'get',
        base.SYSTEM_READER,
        'List and show deploy templates.',
        [('GET', _TEMPLATES), ('GET', _ONE)],
    ),
    rule(
        TEMPLATE % 'create',
        base.SYSTEM_ADMIN,
        'Create a deploy template.',
        [('POST', _TEMPLATES)],
    ),
    rule(
        TEMPLATE % 'update',
        base.SYSTEM_ADMIN,
        'Update a deploy template.',
        [('PATCH', _ONE)],
    ),
    rule(
        TEMPLATE % 'delete',
        base.SYSTEM_ADMIN,
        'Delete a deploy template.',
        [('DELETE', _ONE)],
    ),
]
