"""Policies of the ports (upstream's ``baremetal:port:*`` names)."""

from ironic_lite.policies import base
from ironic_lite.policies.base import rule

PORT = 'baremetal:port:%s'
_PORTS = '/ports'
_PORT = _PORTS + '/{port_ident}'
_LISTS = [
    ('GET', _PORTS),
    ('GET', _PORTS + '/detail'),
    ('GET', '/nodes/{node_ident}/ports'),
    ('GET', '/nodes/{node_ident}/ports/detail'),
]

rules = [
    rule(PORT % 'list_all', base.SYSTEM_READER, 'List every port.', _LISTS),
    rule(
        PORT % 'list',
        base.API_READER,
        "List the ports of the nodes of one's project (when list_all "
        'is not granted).',
        _LISTS,
    ),
    rule(
        PORT % 'get',
        base.SYSTEM_OR_PROJECT_READER,
        'Show a port.',
        [('GET', _PORT)],
    ),
    rule(
        PORT % 'create',
        base.SYSTEM_ADMIN_OR_OWNER_ADMIN,
        'Create a port.',
        [('POST', _PORTS)],
    ),
    rule(
        PORT % 'update',
        base.SYSTEM_MEMBER_OR_OWNER_ADMIN,
        'Update a port (JSON patch).',
        [('PATCH', _PORT)],
    ),
    rule(
        PORT % 'delete',
        base.SYSTEM_ADMIN_OR_OWNER_ADMIN,
        'Delete a port.',
        [('DELETE', _PORT)],
    ),
]
