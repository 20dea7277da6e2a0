"""Policies of the portgroups (upstream's ``baremetal:portgroup:*``
names)."""

from ironic_lite.policies import base
from ironic_lite.policies.base import rule

PORTGROUP = 'baremetal:portgroup:%s'
_PORTGROUPS = '/portgroups'
_PORTGROUP = _PORTGROUPS + '/{portgroup_ident}'
_LISTS = [
    ('GET', _PORTGROUPS),
    ('GET', _PORTGROUPS + '/detail'),
    ('GET', '/nodes/{node_ident}/portgroups'),
    ('GET', '/nodes/{node_ident}/portgroups/detail'),
]

rules = [
    rule(
        PORTGROUP % 'list_all',
        base.SYSTEM_READER,
        'List every portgroup.',
        _LISTS,
    ),
    rule(
        PORTGROUP % 'list',
        base.API_READER,
        "List the portgroups of the nodes of one's project (when "
        'list_all is not granted).',
        _LISTS,
    ),
    rule(
        PORTGROUP % 'get',
        base.SYSTEM_OR_PROJECT_READER,
        'Show a portgroup.',
        [('GET', _PORTGROUP)],
    ),
    rule(
        PORTGROUP % 'create',
        base.SYSTEM_ADMIN_OR_OWNER_ADMIN,
        'Create a portgroup.',
        [('POST', _PORTGROUPS)],
    ),
    rule(
        PORTGROUP % 'update',
        base.SYSTEM_MEMBER_OR_OWNER_ADMIN,
        'Update a portgroup (JSON patch).',
        [('PATCH', _PORTGROUP)],
    ),
    rule(
        PORTGROUP % 'delete',
        base.SYSTEM_ADMIN_OR_OWNER_ADMIN,
        'Delete a portgroup.',
        [('DELETE', _PORTGROUP)],
    ),
]
