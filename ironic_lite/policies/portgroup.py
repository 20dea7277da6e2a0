"""Policies of the portgroups (upstream's ``baremetal:portgroup:*``
names)."""

from ironic_lite.policies.base import ADMIN
from ironic_lite.policies.base import rule

PORTGROUP = 'baremetal:portgroup:%s'
_PORTGROUPS = '/portgroups'
_PORTGROUP = _PORTGROUPS + '/{portgroup_ident}'
_LISTS = [('GET', _PORTGROUPS), ('GET', _PORTGROUPS + '/detail'),
          ('GET', '/nodes/{node_ident}/portgroups'),
          ('GET', '/nodes/{node_ident}/portgroups/detail')]

rules = [
    rule(PORTGROUP % 'list_all', ADMIN, 'List every portgroup.', _LISTS),
    rule(PORTGROUP % 'list', ADMIN,
         "List the portgroups of the nodes of one's project (when "
         'list_all is not granted).', _LISTS),
    rule(PORTGROUP % 'get', ADMIN, 'Show a portgroup.',
         [('GET', _PORTGROUP)]),
    rule(PORTGROUP % 'create', ADMIN, 'Create a portgroup.',
         [('POST', _PORTGROUPS)]),
    rule(PORTGROUP % 'update', ADMIN, 'Update a portgroup (JSON patch).',
         [('PATCH', _PORTGROUP)]),
    rule(PORTGROUP % 'delete', ADMIN, 'Delete a portgroup.',
         [('DELETE', _PORTGROUP)]),
]
