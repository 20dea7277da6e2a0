"""Base rules every nova_lite policy builds on."""

from oslo_policy import policy

ADMIN = 'rule:context_is_admin'
PROJECT_MEMBER_OR_ADMIN = 'rule:project_member_or_admin'
PROJECT_READER_OR_ADMIN = 'rule:project_reader_or_admin'
ANY_AUTHENTICATED = '@'
SERVICE_OR_ADMIN = 'rule:service_or_admin'
#: Every Compute API operation is project-scoped, as upstream Nova's:
#: with oslo.policy's enforce_scope (on by default) a system-scoped
#: token is refused (403), never served without a project.
PROJECT_SCOPE = ['project']

rules = [
    policy.RuleDefault(
        'context_is_admin',
        'role:admin',
        description='Decides who is an administrator.',
    ),
    policy.RuleDefault(
        'project_member_or_admin',
        'rule:context_is_admin or (role:member and project_id:%(project_id)s)',
        description='A member of the owning project, or an admin.',
    ),
    policy.RuleDefault(
        'project_reader_or_admin',
        'rule:context_is_admin or (role:reader and project_id:%(project_id)s)',
        description='A reader of the owning project, or an admin.',
    ),
    policy.RuleDefault(
        'service_or_admin',
        'rule:context_is_admin or role:service',
        description='Another OpenStack service (role service), or an admin.',
    ),
]


def rule(
    name: str, check: str, description: str, operations: list[tuple[str, str]]
) -> policy.DocumentedRuleDefault:
    return policy.DocumentedRuleDefault(
        name=name,
        check_str=check,
        description=description,
        operations=[{'method': m, 'path': p} for m, p in operations],
        scope_types=PROJECT_SCOPE,
    )
