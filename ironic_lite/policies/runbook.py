"""Policies of the runbooks (upstream's ``baremetal:runbook:*`` names
and defaults): the system's readers see every runbook and its members
manage them; the readers of the project owning a runbook see it and its
managers change, delete and use it; a project's manager creates runbooks
(its project's own); only the system sets a runbook public or changes
its owner."""

from ironic_lite.policies import base
from ironic_lite.policies.base import rule

RUNBOOK = 'baremetal:runbook:%s'
_RUNBOOKS = '/runbooks'
_ONE = _RUNBOOKS + '/{runbook_ident}'
_OWNER = 'project_id:%(runbook.owner)s'

READER = base.any_of(
    base.SYSTEM_READER, f'role:reader and {_OWNER}', 'role:service'
)
ADMIN = base.any_of(
    base.SYSTEM_MEMBER, f'role:manager and {_OWNER}', 'role:service'
)
CREATOR = base.any_of(base.SYSTEM_MEMBER, 'role:manager', 'role:service')

rules = [
    rule(RUNBOOK % 'get', READER, 'Show a runbook.', [('GET', _ONE)]),
    rule(
        RUNBOOK % 'list',
        base.API_READER,
        "List one's project's runbooks and the public ones (every one "
        'with list_all).',
        [('GET', _RUNBOOKS)],
    ),
    rule(
        RUNBOOK % 'list_all',
        base.SYSTEM_READER,
        'List every runbook.',
        [('GET', _RUNBOOKS)],
    ),
    rule(
        RUNBOOK % 'create',
        CREATOR,
        "Create a runbook (owned by one's project).",
        [('POST', _RUNBOOKS)],
    ),
    rule(RUNBOOK % 'delete', ADMIN, 'Delete a runbook.', [('DELETE', _ONE)]),
    rule(RUNBOOK % 'update', ADMIN, 'Update a runbook.', [('PATCH', _ONE)]),
    rule(
        RUNBOOK % 'update:public',
        base.SYSTEM_MEMBER,
        'Set and unset a runbook as public.',
        [('PATCH', _ONE)],
    ),
    rule(
        RUNBOOK % 'update:owner',
        base.SYSTEM_MEMBER,
        'Set and unset the owner of a runbook.',
        [('PATCH', _ONE)],
    ),
    rule(
        RUNBOOK % 'use',
        ADMIN,
        'Use a runbook for manual cleaning or servicing.',
        [('PUT', '/nodes/{node_ident}/states/provision')],
    ),
]
