"""Policies of the deploy templates (upstream's
``baremetal:deploy_template:*``; its system roles as ``rule:is_admin``)."""

from ironic_lite.policies.base import ADMIN
from ironic_lite.policies.base import rule

TEMPLATE = 'baremetal:deploy_template:%s'
_TEMPLATES = '/deploy_templates'
_ONE = _TEMPLATES + '/{deploy_template_ident}'

rules = [
    rule(TEMPLATE % 'get', ADMIN, 'List and show deploy templates.',
         [('GET', _TEMPLATES), ('GET', _ONE)]),
    rule(TEMPLATE % 'create', ADMIN, 'Create a deploy template.',
         [('POST', _TEMPLATES)]),
    rule(TEMPLATE % 'update', ADMIN, 'Update a deploy template.',
         [('PATCH', _ONE)]),
    rule(TEMPLATE % 'delete', ADMIN, 'Delete a deploy template.',
         [('DELETE', _ONE)]),
]
