"""Base rules every ironic_lite policy builds on.

The Bare Metal API manages physical machines: every operation is for
administrators by default, as upstream's ``baremetal:*`` rules are for
system-scoped admins.
"""

from oslo_policy import policy

ADMIN = 'rule:is_admin'

rules = [
    policy.RuleDefault(
        'is_admin', 'role:admin',
        description='Decides who is an administrator of the Bare Metal '
        'API.'),
]


def rule(name: str, check: str, description: str,
         operations: list[tuple[str, str]]) -> policy.DocumentedRuleDefault:
    return policy.DocumentedRuleDefault(
        name=name, check_str=check, description=description,
        operations=[{'method': m, 'path': p} for m, p in operations])
