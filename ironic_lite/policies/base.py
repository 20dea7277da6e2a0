"""The personas every ironic_lite policy is written with (API 1.71).

As upstream Ironic's secure RBAC defaults: the people who run the
deployment hold roles on the *system* scope (``system_scope:all``), an
administrator, a member or a reader; the people who use it hold roles
on a *project*, which may own a node (``node.owner``) or lease it
(``node.lessee``). A project-scoped ``admin`` is not an administrator
of the Bare Metal API: it administers the nodes its project owns.

The system personas are named rules (``system_admin``,
``system_member``, ``system_reader``, ``system_service``), so an
operator redefines one in a policy file and every rule built on it
follows. ``service_role`` gives the ``service`` role of the project
named by ``[DEFAULT]rbac_service_project_name`` a system member's
access when ``[DEFAULT]rbac_service_role_elevated_access`` is set.
"""

from oslo_policy import policy

#: Both scopes may call every rule unless it says otherwise; the check
#: string decides (upstream's scope types).
BOTH_SCOPES = ['system', 'project']
SYSTEM_SCOPE = ['system']

SYSTEM_ADMIN = 'rule:system_admin'
SYSTEM_MEMBER = 'rule:system_member'
SYSTEM_READER = 'rule:system_reader'
SYSTEM_SERVICE = 'rule:system_service'
#: Compatibility: the rule that decides who sees the detailed health
#: check (and the context's is_admin).
ADMIN = 'rule:is_admin'

OWNER = 'project_id:%(node.owner)s'
LESSEE = 'project_id:%(node.lessee)s'
#: The service role of the project owning the node.
PROJECT_SERVICE = f'role:service and {OWNER}'

#: Any authenticated reader: what they see is filtered to their project.
API_READER = '(role:reader) or (role:service)'


def any_of(*checks: str) -> str:
    return ' or '.join(f'({check})' for check in checks)


def role_of(role: str, *projects: str) -> str:
    """``role`` in one of ``projects`` (``OWNER``, ``LESSEE``)."""
    if len(projects) == 1:
        return f'role:{role} and {projects[0]}'
    return f'role:{role} and ({" or ".join(projects)})'


#: Readers of the system, of the owner's or of the lessee's project.
SYSTEM_OR_PROJECT_READER = any_of(
    SYSTEM_READER, role_of('reader', OWNER, LESSEE), PROJECT_SERVICE
)
#: Members of the system, of the owner's or of the lessee's project.
SYSTEM_OR_PROJECT_MEMBER = any_of(
    SYSTEM_MEMBER, role_of('member', OWNER, LESSEE), SYSTEM_SERVICE
)
#: Readers of the system or of the owner's project.
SYSTEM_OR_OWNER_READER = any_of(
    SYSTEM_READER, SYSTEM_SERVICE, role_of('reader', OWNER), PROJECT_SERVICE
)
#: Members of the system or of the owner's project.
SYSTEM_MEMBER_OR_OWNER_MEMBER = any_of(
    SYSTEM_MEMBER, SYSTEM_SERVICE, role_of('member', OWNER), PROJECT_SERVICE
)
#: Members of the system, administrators and managers of the owner's
#: project.
SYSTEM_MEMBER_OR_OWNER_ADMIN = any_of(
    SYSTEM_MEMBER,
    SYSTEM_SERVICE,
    role_of('admin', OWNER),
    role_of('manager', OWNER),
    PROJECT_SERVICE,
)
#: Administrators of the system, administrators and managers of the
#: owner's project.
SYSTEM_ADMIN_OR_OWNER_ADMIN = any_of(
    SYSTEM_ADMIN,
    SYSTEM_SERVICE,
    role_of('admin', OWNER),
    role_of('manager', OWNER),
    PROJECT_SERVICE,
)
#: Members of the system and of the owner's project, administrators and
#: managers of the lessee's (the operations of using a node).
SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN = any_of(
    SYSTEM_MEMBER,
    SYSTEM_SERVICE,
    role_of('member', OWNER),
    role_of('admin', LESSEE),
    role_of('manager', LESSEE),
    PROJECT_SERVICE,
)
#: Members of the system, administrators and managers of the owner's or
#: of the lessee's project.
SYSTEM_MEMBER_OR_OWNER_LESSEE_ADMIN = any_of(
    SYSTEM_MEMBER,
    SYSTEM_SERVICE,
    role_of('admin', OWNER),
    role_of('manager', OWNER),
    role_of('admin', LESSEE),
    role_of('manager', LESSEE),
    PROJECT_SERVICE,
)

rules = [
    policy.RuleDefault(
        'system_admin',
        'role:admin and system_scope:all',
        description='An administrator of the deployment: the admin role '
        'on the system scope.',
    ),
    policy.RuleDefault(
        'system_member',
        '(role:member and system_scope:all) or rule:service_role',
        description='A member of the deployment: the member role on the '
        'system scope (or the elevated service role).',
    ),
    policy.RuleDefault(
        'system_reader',
        '(role:reader and system_scope:all) or '
        '(role:service and system_scope:all) or rule:service_role',
        description='A reader of the deployment: the reader or service '
        'role on the system scope (or the elevated service role).',
    ),
    policy.RuleDefault(
        'system_service',
        'role:service and system_scope:all',
        description='Another service (such as the Compute service) '
        'acting on the system scope.',
    ),
    policy.RuleDefault(
        'service_role',
        'role:service and project_name:%(config.service_project_name)s',
        description='The service role of the service project, when '
        '[DEFAULT]rbac_service_role_elevated_access gives it a system '
        "member's access (the project is "
        '[DEFAULT]rbac_service_project_name).',
    ),
    policy.RuleDefault(
        'is_admin',
        SYSTEM_ADMIN,
        description='Who sees the detailed health check and is an '
        'administrator in the request context.',
    ),
]


def rule(
    name: str,
    check: str,
    description: str,
    operations: list[tuple[str, str]],
    scope_types: list[str] | None = None,
) -> policy.DocumentedRuleDefault:
    return policy.DocumentedRuleDefault(
        name=name,
        check_str=check,
        description=description,
        operations=[{'method': m, 'path': p} for m, p in operations],
        scope_types=scope_types or BOTH_SCOPES,
    )
