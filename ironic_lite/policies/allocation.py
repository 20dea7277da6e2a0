"""Policies of the allocations (upstream's ``baremetal:allocation:*``
names and defaults, with upstream's system-scoped roles as
``rule:is_admin``): a reader of the project owning an allocation sees
it, a member of any project may create allocations (owned by its
project, among its nodes), and manages those of its project."""

from ironic_lite.policies.base import ADMIN
from ironic_lite.policies.base import rule

ALLOCATION = 'baremetal:allocation:%s'
_ALLOCATIONS = '/allocations'
_ONE = _ALLOCATIONS + '/{allocation_ident}'
_NODE = '/nodes/{node_ident}/allocation'
_OWNER = 'project_id:%(allocation.owner)s'

READER = f'({ADMIN}) or (role:reader and {_OWNER})'
MEMBER = f'({ADMIN}) or (role:member and {_OWNER})'

rules = [
    rule(ALLOCATION % 'get', READER, 'Show an allocation.',
         [('GET', _ONE), ('GET', _NODE)]),
    rule(ALLOCATION % 'list', '(role:reader) or (role:service)',
         "List the allocations of one's project (every one with "
         'list_all).', [('GET', _ALLOCATIONS)]),
    rule(ALLOCATION % 'list_all', ADMIN, 'List every allocation.',
         [('GET', _ALLOCATIONS)]),
    rule(ALLOCATION % 'create', f'({ADMIN}) or (role:member)',
         "Create an allocation (owned by one's project).",
         [('POST', _ALLOCATIONS)]),
    rule(ALLOCATION % 'create_restricted', ADMIN,
         'Create an allocation for any owner, or none, among any nodes.',
         [('POST', _ALLOCATIONS)]),
    rule(ALLOCATION % 'update', MEMBER,
         'Change the name or extra of an allocation.', [('PATCH', _ONE)]),
    rule(ALLOCATION % 'delete', MEMBER, 'Delete an allocation.',
         [('DELETE', _ONE), ('DELETE', _NODE)]),
]
