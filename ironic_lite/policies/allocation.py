"""Policies of the allocations (upstream's ``baremetal:allocation:*``
names and defaults): the system's readers and members see and manage
every allocation; a reader of the project owning an allocation sees
it, a member of any project may create allocations (owned by its
project, among its nodes), and manages those of its project."""

from ironic_lite.policies import base
from ironic_lite.policies.base import rule

ALLOCATION = 'baremetal:allocation:%s'
_ALLOCATIONS = '/allocations'
_ONE = _ALLOCATIONS + '/{allocation_ident}'
_NODE = '/nodes/{node_ident}/allocation'
_OWNER = 'project_id:%(allocation.owner)s'

READER = base.any_of(base.SYSTEM_READER, f'role:reader and {_OWNER}')
MEMBER = base.any_of(base.SYSTEM_MEMBER, f'role:member and {_OWNER}')

rules = [
    rule(
        ALLOCATION % 'get',
        READER,
        'Show an allocation.',
        [('GET', _ONE), ('GET', _NODE)],
    ),
    rule(
        ALLOCATION % 'list',
        base.API_READER,
        "List the allocations of one's project (every one with list_all).",
        [('GET', _ALLOCATIONS)],
    ),
    rule(
        ALLOCATION % 'list_all',
        base.SYSTEM_READER,
        'List every allocation.',
        [('GET', _ALLOCATIONS)],
    ),
    rule(
        ALLOCATION % 'create',
        base.any_of(base.SYSTEM_MEMBER, 'role:member'),
        "Create an allocation (owned by one's project).",
        [('POST', _ALLOCATIONS)],
    ),
    rule(
        ALLOCATION % 'create_restricted',
        base.SYSTEM_MEMBER,
        'Create an allocation for any owner, or none, among any nodes.',
        [('POST', _ALLOCATIONS)],
    ),
    rule(
        ALLOCATION % 'update',
        MEMBER,
        'Change the name or extra of an allocation.',
        [('PATCH', _ONE)],
    ),
    rule(
        ALLOCATION % 'delete',
        MEMBER,
        'Delete an allocation.',
        [('DELETE', _ONE), ('DELETE', _NODE)],
    ),
]
