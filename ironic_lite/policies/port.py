"""Policies of the ports (upstream's ``baremetal:port:*`` names)."""

from ironic_lite.policies.base import ADMIN
from ironic_lite.policies.base import rule

PORT = 'baremetal:port:%s'
_PORTS = '/ports'
_PORT = _PORTS + '/{port_ident}'
_LISTS = [('GET', _PORTS), ('GET', _PORTS + '/detail'),
          ('GET', '/nodes/{node_ident}/ports'),
          ('GET', '/nodes/{node_ident}/ports/detail')]

rules = [
    rule(PORT % 'list_all', ADMIN, 'List every port.', _LISTS),
    rule(PORT % 'list', ADMIN,
         "List the ports of the nodes of one's project (when list_all "
         'is not granted).', _LISTS),
    rule(PORT % 'get', ADMIN, 'Show a port.', [('GET', _PORT)]),
    rule(PORT % 'create', ADMIN, 'Create a port.', [('POST', _PORTS)]),
    rule(PORT % 'update', ADMIN, 'Update a port (JSON patch).',
         [('PATCH', _PORT)]),
    rule(PORT % 'delete', ADMIN, 'Delete a port.', [('DELETE', _PORT)]),
]
