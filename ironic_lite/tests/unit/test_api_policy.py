"""ironic_lite policy defaults: admin only, importable without config."""

import subprocess
import sys

from oslo_context import context

from ironic_lite import policies
from ironic_lite import policy
from ironic_lite.tests.unit import make_conf


def test_rule_names_are_unique_and_documented() -> None:
    rules = policies.list_rules()
    names = [rule.name for rule in rules]
    assert len(names) == len(set(names))
    assert 'baremetal:node:create' in names
    for rule in rules:
        assert rule.description


def test_node_management_is_admin_only() -> None:
    enforcer = policy.make_enforcer(make_conf())
    admin = context.RequestContext(roles=['admin'], project_id='p')
    member = context.RequestContext(roles=['member', 'reader'],
                                    project_id='p')
    target = {'project_id': 'p'}
    for rule in policies.list_rules():
        if rule.name.startswith('baremetal:'):
            assert enforcer.authorize(rule.name, target, admin)
            assert not enforcer.authorize(rule.name, target, member)
    assert policy.is_admin(enforcer, admin)
    assert not policy.is_admin(enforcer, member)


def test_importing_the_policy_reads_no_global_config() -> None:
    code = ('from oslo_config import cfg\n'
            'import ironic_lite.policy, ironic_lite.api.app\n'
            'mine = {"api", "conductor", "auth_strategy", "host"}\n'
            'assert not mine & set(cfg.CONF), list(cfg.CONF)\n'
            'assert not cfg.CONF._args\n')
    done = subprocess.run([sys.executable, '-c', code],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
