"""Policies of the nodes (upstream's ``baremetal:node:*`` names)."""

from ironic_lite.policies.base import ADMIN
from ironic_lite.policies.base import rule

NODE = 'baremetal:node:%s'
_ONE = '/nodes/{node_ident}'

rules = [
    rule(NODE % 'get', ADMIN, 'Show a node and its states.',
         [('GET', _ONE), ('GET', _ONE + '/states')]),
    rule(NODE % 'list', ADMIN, 'List nodes.',
         [('GET', '/nodes'), ('GET', '/nodes/detail')]),
    rule(NODE % 'create', ADMIN, 'Create a node.', [('POST', '/nodes')]),
    rule(NODE % 'update', ADMIN, 'Update a node (JSON patch).',
         [('PATCH', _ONE)]),
    rule(NODE % 'delete', ADMIN, 'Delete a node.', [('DELETE', _ONE)]),
    rule(NODE % 'set_power_state', ADMIN,
         'Change the power state of a node.',
         [('PUT', _ONE + '/states/power')]),
    rule(NODE % 'set_provision_state', ADMIN,
         'Change the provision state of a node (manage, provide, clean, '
         'abort, ...).', [('PUT', _ONE + '/states/provision')]),
    rule(NODE % 'set_maintenance', ADMIN, 'Put a node in maintenance.',
         [('PUT', _ONE + '/maintenance')]),
    rule(NODE % 'clear_maintenance', ADMIN,
         'Take a node out of maintenance.',
         [('DELETE', _ONE + '/maintenance')]),
    rule(NODE % 'get_cleaning_steps', ADMIN,
         'List the clean steps of a node (an extension, served at the '
         'maximum version).',
         [('GET', _ONE + '/cleaning/steps')]),
]
