"""ironic_lite policy defaults: upstream's project rules, importable
without config."""

import subprocess
import sys

from oslo_context import context
from oslo_policy import policy as oslo_policy

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


def _context(project: str, *roles: str) -> context.RequestContext:
    return context.RequestContext(roles=list(roles), project_id=project)


def _node(
    owner: str | None, lessee: str | None = None, project: str = 'p'
) -> dict[str, str | None]:
    target = {
        'project_id': project,
        'node.owner': owner,
        'node.lessee': lessee,
    }
    # As the API builds it: a field without a value matches nobody.
    return {key: value for key, value in target.items() if value}


#: The rules of ramdisk agents' endpoints: open to anyone.
AGENT_RULES = frozenset(
    {
        'baremetal:node:ipa_heartbeat',
        'baremetal:driver:ipa_lookup',
        'baremetal:driver:ipa_continue_inspection',
    }
)


def test_system_admin_may_do_everything_and_strangers_only_list() -> None:
    enforcer = policy.make_enforcer(make_conf())
    # Keystone's admin role implies member and reader.
    admin = context.RequestContext(
        roles=['admin', 'member', 'reader'], system_scope='all'
    )
    # A project's admin is not the system's: on a node of another
    # project it may list (its own nodes) and nothing else.
    stranger = _context('p', 'admin', 'member', 'reader')
    target = _node('someone-else')
    lists = {
        'baremetal:node:list',
        'baremetal:port:list',
        'baremetal:portgroup:list',
        'baremetal:volume:list',
        # Upstream's: any admin sees volume target properties,
        # and creates nodes owned by its project (1.80).
        'baremetal:volume:view_target_properties',
        'baremetal:node:create:self_owned_node',
        # Its project's runbooks and the public ones.
        'baremetal:runbook:list',
    }
    for rule in policies.list_rules():
        if rule.name in AGENT_RULES or rule.name.startswith(
            'baremetal:allocation:'
        ):
            continue
        if rule.name.startswith('baremetal:'):
            # The one rule of the owner's admin only: the system's admin
            # deletes nodes by baremetal:node:delete.
            assert enforcer.authorize(rule.name, target, admin) or (
                rule.name == 'baremetal:node:delete:self_owned_node'
            )
            try:
                allowed = enforcer.authorize(rule.name, target, stranger)
            except oslo_policy.InvalidScope:
                allowed = False
            assert allowed == (rule.name in lists), rule.name
    assert policy.is_admin(enforcer, admin)
    # A ramdisk agent has no credentials: anyone may look up and
    # heartbeat (the agent token guards heartbeats).
    nobody = _context('', '')
    for name in AGENT_RULES:
        assert enforcer.authorize(name, {}, nobody), name
    assert not policy.is_admin(enforcer, stranger)


def test_the_service_role_of_the_service_project_may_be_elevated() -> None:
    nova = context.RequestContext(
        roles=['service'], project_id='svc-id', project_name='service'
    )
    target = _node('someone-else')
    plain = policy.make_enforcer(make_conf())
    assert not plain.authorize('baremetal:node:list_all', target, nova)
    assert not plain.authorize('baremetal:node:update', target, nova)
    elevated = policy.make_enforcer(
        make_conf(rbac_service_role_elevated_access=True)
    )
    assert elevated.authorize('baremetal:node:list_all', target, nova)
    assert elevated.authorize('baremetal:node:update', target, nova)
    # Not a system administrator for all that.
    assert not elevated.authorize('baremetal:node:create', target, nova)
    other = context.RequestContext(
        roles=['service'], project_id='x', project_name='not-service'
    )
    assert not elevated.authorize('baremetal:node:list_all', target, other)


def _allowed(
    ctx: context.RequestContext, target: dict[str, str | None]
) -> set[str]:
    enforcer = policy.make_enforcer(make_conf())
    return {
        rule.name
        for rule in policies.list_rules()
        if rule.name.startswith('baremetal:node:')
        and rule.name not in AGENT_RULES
        and enforcer.authorize(rule.name, target, ctx)
    }


def test_owner_member_rules_are_upstreams() -> None:
    allowed = _allowed(_context('p', 'member', 'reader'), _node('p'))
    assert {
        'baremetal:node:get',
        'baremetal:node:get:last_error',
        'baremetal:node:update',
        'baremetal:node:update:driver_info',
        'baremetal:node:update:lessee',
        'baremetal:node:set_power_state',
        'baremetal:node:set_provision_state',
        'baremetal:node:set_maintenance',
    } <= allowed
    assert (
        not {
            'baremetal:node:create',
            'baremetal:node:delete',
            'baremetal:node:list_all',
            'baremetal:node:update:owner',
            'baremetal:node:update:conductor_group',
            'baremetal:node:update:driver_interfaces',
            'baremetal:node:disable_cleaning',
            'baremetal:node:get:filter_threshold',
        }
        & allowed
    )


def test_lessee_member_sees_less_than_the_owner() -> None:
    allowed = _allowed(
        _context('p', 'member', 'reader'), _node('owner-project', 'p')
    )
    assert {
        'baremetal:node:get',
        'baremetal:node:update',
        'baremetal:node:update_extra',
        'baremetal:node:set_power_state',
    } <= allowed
    assert (
        not {
            'baremetal:node:get:last_error',
            'baremetal:node:get:driver_info',
            'baremetal:node:update:driver_info',
            'baremetal:node:update_instance_info',
            'baremetal:node:set_provision_state',
            'baremetal:node:set_maintenance',
        }
        & allowed
    )


def test_lessee_manager_may_provision() -> None:
    allowed = _allowed(
        _context('p', 'manager', 'member', 'reader'),
        _node('owner-project', 'p'),
    )
    assert {
        'baremetal:node:set_provision_state',
        'baremetal:node:update_instance_info',
        'baremetal:node:set_maintenance',
    } <= allowed
    assert 'baremetal:node:update:driver_interfaces' not in allowed


def test_owner_reader_only_reads() -> None:
    allowed = _allowed(_context('p', 'reader'), _node('p'))
    assert allowed == {
        'baremetal:node:list',
        'baremetal:node:get',
        'baremetal:node:get:last_error',
        'baremetal:node:get:reservation',
        'baremetal:node:get:driver_internal_info',
        'baremetal:node:get:driver_info',
        'baremetal:node:get_states',
        'baremetal:node:traits:list',
        'baremetal:node:vif:list',
        'baremetal:node:bios:get',
        'baremetal:node:inventory:get',
        'baremetal:node:history:get',
        'baremetal:node:get_indicator_state',
        'baremetal:node:firmware:get',
        'baremetal:node:vmedia:get',
    }


def test_a_node_without_owner_is_nobodys() -> None:
    allowed = _allowed(_context('None', 'member', 'reader'), _node(None))
    assert allowed == {'baremetal:node:list'}


def test_importing_the_policy_reads_no_global_config() -> None:
    code = (
        'from oslo_config import cfg\n'
        'import ironic_lite.policy, ironic_lite.api.app\n'
        'mine = {"api", "conductor", "auth_strategy", "host"}\n'
        'assert not mine & set(cfg.CONF), list(cfg.CONF)\n'
        'assert not cfg.CONF._args\n'
    )
    done = subprocess.run(
        [sys.executable, '-c', code],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr


def test_allocation_rules_are_upstreams() -> None:
    """A member of any project creates allocations (for its project)
    and manages its project's; the rest is for administrators."""
    enforcer = policy.make_enforcer(make_conf())
    member = _context('p', 'member', 'reader')
    mine = {'project_id': 'p', 'allocation.owner': 'p'}
    theirs = {'project_id': 'p', 'allocation.owner': 'q'}
    allowed = {
        name
        for name in (
            'get',
            'list',
            'list_all',
            'create',
            'create_restricted',
            'update',
            'delete',
        )
        if enforcer.authorize(f'baremetal:allocation:{name}', mine, member)
    }
    assert allowed == {'get', 'list', 'create', 'update', 'delete'}
    for name in ('get', 'update', 'delete'):
        assert not enforcer.authorize(
            f'baremetal:allocation:{name}', theirs, member
        ), name
