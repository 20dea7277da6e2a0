"""Who may do what under a set of policy defaults: a truth table.

For every rule of a list of oslo.policy defaults, the personas (system
and project roles, the owner's and lessee's projects, service users)
that the rule allows on a node owned by one project and leased by
another. Run against upstream Ironic's defaults in a venv where it is
installed, the table is the reference
``ironic_lite/tests/unit/data/upstream_policy_matrix.json`` that
``test_policy_matrix`` compares ironic_lite's defaults with::

    /path/to/ironic-venv/bin/python tools/policy_matrix.py \\
        ironic.common.policy:list_policies > upstream_policy_matrix.json

Only the defaults are read (no policy file), with oslo.policy's
defaults: new defaults enforced, scope types checked.
"""

import importlib
import json
import sys

from oslo_config import cfg
from oslo_context import context
from oslo_policy import policy

OWNER = 'owner-project'
LESSEE = 'lessee-project'
OTHER = 'other-project'

#: The project of each project persona, and its roles (as keystone's
#: implied roles give them: admin implies member implies reader).
_PROJECTS = {'owner': OWNER, 'lessee': LESSEE, 'other': OTHER}
_ROLES = {
    'admin': ['admin', 'member', 'reader'],
    'manager': ['manager', 'member', 'reader'],
    'member': ['member', 'reader'],
    'reader': ['reader'],
    'service': ['service'],
}

#: What the rules may look at on the object acted on.
TARGET = {
    'node.owner': OWNER,
    'node.lessee': LESSEE,
    'allocation.owner': OWNER,
    'runbook.owner': OWNER,
    'project_id': OWNER,
}


def personas() -> dict[str, context.RequestContext]:
    """Request contexts by persona name."""
    found = {}
    for role, roles in _ROLES.items():
        found[f'system_{role}'] = context.RequestContext(
            roles=roles, system_scope='all', user_id=f'system-{role}'
        )
        for who, project in _PROJECTS.items():
            found[f'{who}_{role}'] = context.RequestContext(
                roles=roles,
                project_id=project,
                project_name=project,
                user_id=f'{who}-{role}',
            )
    found['anonymous'] = context.RequestContext()
    return found


def allowed(
    enforcer: policy.Enforcer, rule: str, creds: context.RequestContext
) -> bool:
    try:
        return bool(enforcer.enforce(rule, dict(TARGET), creds))
    except policy.InvalidScope:
        return False


def matrix(defaults: list[policy.RuleDefault]) -> dict[str, list[str]]:
    conf = cfg.ConfigOpts()
    conf([], project='policy-matrix')
    # Defaults only: a policy file that cannot exist.
    enforcer = policy.Enforcer(conf, policy_file='/nonexistent/policy.yaml')
    enforcer.register_defaults(defaults)
    enforcer.load_rules()
    creds = personas()
    return {
        rule.name: sorted(
            name
            for name, c in creds.items()
            if allowed(enforcer, rule.name, c)
        )
        for rule in defaults
    }


def load(spec: str) -> list[policy.RuleDefault]:
    module, _, function = spec.partition(':')
    return list(getattr(importlib.import_module(module), function)())


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    json.dump(matrix(load(argv[0])), sys.stdout, indent=1, sort_keys=True)
    print()
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
