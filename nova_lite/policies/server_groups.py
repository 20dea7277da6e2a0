"""Policies of server groups (upstream Nova's names and defaults)."""

from nova_lite.policies.base import ADMIN
from nova_lite.policies.base import PROJECT_MEMBER_OR_ADMIN
from nova_lite.policies.base import PROJECT_READER_OR_ADMIN
from nova_lite.policies.base import rule

SERVER_GROUPS = 'os_compute_api:os-server-groups:%s'

rules = [
    rule(
        SERVER_GROUPS % 'create',
        PROJECT_MEMBER_OR_ADMIN,
        'Create a new server group.',
        [('POST', '/os-server-groups')],
    ),
    rule(
        SERVER_GROUPS % 'delete',
        PROJECT_MEMBER_OR_ADMIN,
        'Delete a server group.',
        [('DELETE', '/os-server-groups/{server_group_id}')],
    ),
    rule(
        SERVER_GROUPS % 'index',
        PROJECT_READER_OR_ADMIN,
        'List all server groups.',
        [('GET', '/os-server-groups')],
    ),
    rule(
        SERVER_GROUPS % 'index:all_projects',
        ADMIN,
        'List all server groups for all projects.',
        [('GET', '/os-server-groups')],
    ),
    rule(
        SERVER_GROUPS % 'show',
        PROJECT_READER_OR_ADMIN,
        'Show details of a server group.',
        [('GET', '/os-server-groups/{server_group_id}')],
    ),
]
