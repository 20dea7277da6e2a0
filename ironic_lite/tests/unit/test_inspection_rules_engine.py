"""The inspection rules engine: priorities, masking, errors, built-in
rules; on a real SQLite node held by a real task.

The fixtures and helpers at the top are shared by the other
test_inspection_rules_* files.
"""

import uuid

import pytest

from ironic_lite import exception
from ironic_lite.db import nodes as db_nodes
from ironic_lite.inspection_rules import base
from ironic_lite.inspection_rules import engine
from ironic_lite.tests.unit import make_conf
from ironic_lite.tests.unit import test_task_manager as fixtures
from ironic_lite.tests.unit.test_cleaning import lock
from ironic_lite.tests.unit.test_task_manager import HOST
from ironic_lite.tests.unit.test_task_manager import holder  # noqa: F401
from ironic_lite.tests.unit.test_task_manager import make_node

conf = fixtures.conf

INVENTORY = {
    'bmc_address': '192.168.1.10',
    'cpu': {'count': 4, 'architecture': 'x86_64'},
    'system_vendor': {
        'manufacturer': 'Dell Inc.',
        'product_name': 'PowerEdge R640',
    },
    'interfaces': [
        {
            'name': 'eth0',
            'mac_address': '52:54:00:aa:bb:cc',
            'ipv4_address': '192.168.1.20',
        }
    ],
    'bmc': {'user': 'admin', 'password': 'secret'},
    'creds': [{'auth_token': 'tok', 'bmc_password': 'pw'}],
}


@pytest.fixture
def node(ctx):
    return make_node(
        ctx,
        name='node-1',
        driver_info={'ipmi_address': '10.0.0.5'},
        properties={'cpus': 4},
        extra={'tags': ['a']},
    )


@pytest.fixture
def task(ctx, conf, node):
    with lock(ctx, conf, node) as held:
        yield held


def make_rule(*actions, conditions=(), **fields):
    return {
        'uuid': str(uuid.uuid4()),
        'priority': 0,
        'description': None,
        'sensitive': False,
        'phase': 'main',
        'conditions': list(conditions),
        'actions': list(actions),
        **fields,
    }


def make_run(task, inventory=None, plugin_data=None, mask=True):
    inventory = INVENTORY if inventory is None else inventory
    plugin_data = {} if plugin_data is None else plugin_data
    return base.Run(
        task=task,
        inventory=base.MaskedMapping(inventory, mask),
        plugin_data=plugin_data,
        masked_plugin_data=base.MaskedMapping(plugin_data, mask),
    )


def set_pd(path, value):
    """An action recording ``value`` in the plugin data."""
    return {'op': 'set-plugin-data', 'args': {'path': path, 'value': value}}


def apply(ctx, conf, node, rules, inventory=None, plugin_data=None):
    """Apply ``rules``; returns (node row, plugin data)."""
    plugin_data = {} if plugin_data is None else plugin_data
    with lock(ctx, conf, node) as task:
        engine.apply_rules(
            task,
            INVENTORY if inventory is None else inventory,
            plugin_data,
            rules,
        )
    return db_nodes.node_get(ctx, node['id']), plugin_data


# -- order and conditions


def test_rules_run_by_priority_highest_first(ctx, conf, node):
    rules = [
        make_rule(
            set_pd('order', f'p{priority}'),
            {
                'op': 'extend-attribute',
                'args': {'path': '/extra/order', 'value': f'p{priority}'},
            },
            priority=priority,
        )
        for priority in (0, 10000, 50, 50)
    ]
    rules[3]['actions'][1]['args']['value'] = 'p50-second'
    row, plugin_data = apply(ctx, conf, node, rules)
    assert row['extra']['order'] == ['p10000', 'p50', 'p50-second', 'p0']
    assert plugin_data == {'order': 'p0'}


def test_no_rules_changes_nothing(ctx, conf, node):
    row, plugin_data = apply(ctx, conf, node, [])
    assert row['extra'] == node['extra'] and plugin_data == {}


def test_all_conditions_must_hold(ctx, conf, node):
    holds = {'op': 'eq', 'args': {'values': ['{node.name}', 'node-1']}}
    fails = {'op': 'is-true', 'args': {'value': 'no'}}
    rules = [
        make_rule(set_pd('both', 1), conditions=[holds, holds]),
        make_rule(set_pd('one', 1), conditions=[holds, fails]),
        make_rule(set_pd('none', 1)),
    ]
    _row, plugin_data = apply(ctx, conf, node, rules)
    assert plugin_data == {'both': 1, 'none': 1}


def test_a_failing_rule_stops_later_ones_but_keeps_earlier(ctx, conf, node):
    rules = [
        make_rule(
            {
                'op': 'set-attribute',
                'args': {'path': '/extra/first', 'value': 'done'},
            },
            priority=9,
        ),
        make_rule(
            {'op': 'fail', 'args': {'msg': 'no {node.name}'}}, priority=5
        ),
        make_rule(set_pd('never', 1), priority=1),
    ]
    plugin_data = {}
    with pytest.raises(exception.HardwareInspectionFailure) as info:
        apply(ctx, conf, node, rules, plugin_data=plugin_data)
    # fail's msg is not a formatted argument (upstream's).
    assert str(info.value) == (
        'Failed to inspect hardware. Reason: no {node.name}'
    )
    assert type(info.value) is exception.HardwareInspectionFailure
    row = db_nodes.node_get(ctx, node['id'])
    assert row['extra']['first'] == 'done' and plugin_data == {}
    assert row['reservation'] is None


def test_other_errors_name_the_rule_and_node(ctx, conf, node):
    rule = make_rule(
        set_pd('x', 1), conditions=[{'op': 'lt', 'args': {'values': [1, 'a']}}]
    )
    with pytest.raises(base.InspectionRuleFailure) as info:
        apply(ctx, conf, node, [rule])
    assert str(info.value).startswith(
        f'Failed to apply rule {rule["uuid"]} to node {node["uuid"]}: '
        "'<' not supported"
    )


def test_unknown_operators_are_errors(ctx, conf, node):
    rule = make_rule(set_pd('x', 1), conditions=[{'op': 'ne', 'args': {}}])
    with pytest.raises(
        base.InspectionRuleFailure,
        match="Unsupported operator: 'ne'. Supported "
        'operators are: eq, lt, gt, is-empty, in-net',
    ):
        apply(ctx, conf, node, [rule])
    rule = make_rule({'op': 'reboot', 'args': {}})
    with pytest.raises(
        base.InspectionRuleFailure,
        match="Unsupported action: 'reboot'. Supported "
        'actions are: fail, log, set-attribute',
    ):
        apply(ctx, conf, node, [rule])


def test_ironic_lite_errors_come_as_they_are(ctx, conf, node):
    rule = make_rule(
        {
            'op': 'set-port-attribute',
            'args': {
                'port_id': '52:54:00:00:00:01',
                'path': '/extra/x',
                'value': 1,
            },
        }
    )
    with pytest.raises(exception.PortNotFound):
        apply(ctx, conf, node, [rule])


def test_action_failures_are_inspection_failures(ctx, conf, node):
    rule = make_rule(
        {'op': 'set-attribute', 'args': {'path': '/uuid', 'value': 'x'}}
    )
    with pytest.raises(exception.HardwareInspectionFailure) as info:
        apply(ctx, conf, node, [rule])
    assert isinstance(info.value, base.RuleActionExecutionFailure)
    assert str(info.value) == (
        'Inspection rule action execution failed. Reason: Failed to set '
        'attribute /uuid with value x: inspection rules cannot change uuid'
    )


# -- masking

SECRETS = [
    set_pd('password', '{inventory[bmc][password]}'),
    set_pd('token', '{inventory[creds][0][auth_token]}'),
    set_pd('bmc', '{inventory[bmc]}'),
    set_pd('user', '{inventory[bmc][user]}'),
    set_pd('pd', '{plugin_data[login][bmc_password]}'),
]


@pytest.mark.parametrize(
    'mode, sensitive, masked',
    [
        ('always', False, True),
        ('always', True, True),
        ('never', False, False),
        ('never', True, False),
        ('sensitive', False, True),
        ('sensitive', True, False),
    ],
)
def test_masking(ctx, node, mode, sensitive, masked):
    conf = make_conf(host=HOST, inspection_rules__mask_secrets=mode)
    plugin_data = {'login': {'bmc_password': 'hunter2'}}
    _row, result = apply(
        ctx,
        conf,
        node,
        [make_rule(*SECRETS, sensitive=sensitive)],
        plugin_data=plugin_data,
    )
    if masked:
        assert (result['password'], result['token'], result['pd']) == (
            '***',
            '***',
            '***',
        )
        assert result['bmc'] == "{'user': 'admin', 'password': '***'}"
    else:
        assert (result['password'], result['token'], result['pd']) == (
            'secret',
            'tok',
            'hunter2',
        )
        assert result['bmc'] == "{'user': 'admin', 'password': 'secret'}"
    assert result['user'] == 'admin'
    # The data itself is never changed.
    assert INVENTORY['bmc']['password'] == 'secret'
    assert result['login'] == {'bmc_password': 'hunter2'}


def test_masked_views_behave_as_containers():
    view = base.MaskedMapping(
        {'password': 'x', 'list': [{'auth_token': 'y'}], 'n': 1}, True
    )
    assert dict(view)['password'] == '***' and len(view) == 3
    assert view['list'][0]['auth_token'] == '***'
    assert list(view['list'][0:1])[0]['auth_token'] == '***'
    assert repr(view) == (
        "{'password': '***', 'list': [{'auth_token': '***'}], 'n': 1}"
    )
    with pytest.raises(KeyError):
        view['missing']
    assert base.MaskedMapping({'password': 'x'}, False)['password'] == 'x'


def test_condition_sees_masked_data(ctx, conf, node):
    rule = make_rule(
        set_pd('hit', 1),
        conditions=[
            {
                'op': 'eq',
                'args': {'values': ['{inventory[bmc][password]}', 'secret']},
            }
        ],
    )
    assert apply(ctx, conf, node, [rule])[1] == {}
    conf = make_conf(host=HOST, inspection_rules__mask_secrets='never')
    assert apply(ctx, conf, node, [rule])[1] == {'hit': 1}


@pytest.mark.parametrize(
    'mode, rule, expected',
    [
        ('always', {'sensitive': True}, True),
        ('never', {}, False),
        ('sensitive', {}, True),
        ('sensitive', {'sensitive': None}, True),
        ('sensitive', {'sensitive': True}, False),
    ],
)
def test_should_mask(mode, rule, expected):
    assert engine.should_mask(mode, rule) is expected


# -- built-in rules


def write(tmp_path, text):
    path = tmp_path / 'rules.yaml'
    path.write_text(text)
    return str(path)


def test_built_in_rules_are_loaded_with_defaults(tmp_path):
    path = write(
        tmp_path,
        """
- actions: [{op: log, args: {msg: one}}]
- uuid: my-rule
  priority: 20000
  sensitive: true
  description: second
  conditions: [{op: '!is-empty', args: {value: '{inventory[bmc_address]}'}}]
  actions: [{op: add-trait, args: {name: CUSTOM_X}}]
- actions: [{op: log, args: [three]}]
  ignored: field
""",
    )
    rules = engine.load_built_in_rules(path)
    assert [rule['uuid'] for rule in rules] == [
        '00000000-0000-0000-0000-000000000000',
        'my-rule',
        '00000000-0000-0000-0000-000000000001',
    ]
    assert rules[0] == {
        'uuid': '00000000-0000-0000-0000-000000000000',
        'priority': 0,
        'description': None,
        'sensitive': False,
        'phase': 'main',
        'actions': [{'op': 'log', 'args': {'msg': 'one'}}],
        'conditions': [],
    }
    assert (rules[1]['priority'], rules[1]['sensitive']) == (20000, True)
    assert 'ignored' not in rules[2]


def test_no_built_in_rules_file():
    assert engine.load_built_in_rules(None) == []
    assert engine.load_built_in_rules('') == []


@pytest.mark.parametrize(
    'text, problem',
    [
        ('{a: 1}', 'should contain a list of rules'),
        ('', 'should contain a list of rules'),
        ('- [1]', 'rule #0 is not a mapping'),
        ('[a: b: c', 'is not valid YAML'),
        (
            '- actions: []',
            'rule #0 (00000000-0000-0000-0000-000000000000) is '
            'invalid: Validation failed for inspection rule: [] should be '
            'non-empty',
        ),
        (
            '- actions: [{op: log, args: {}}]\n- actions: [{op: log, args: '
            '{}}]'
            '\n  phase: later',
            'rule #0 (00000000-0000-0000-0000-000000000000) is invalid: '
            'Invalid '
            'parameters for action operator log: missing required '
            'argument(s): '
            'msg',
        ),
    ],
)
def test_bad_built_in_rules_files(tmp_path, text, problem):
    path = write(tmp_path, text)
    with pytest.raises(exception.ConfigError) as info:
        engine.load_built_in_rules(path)
    assert str(info.value).startswith(
        f'Invalid configuration: built-in inspection rules file {path} '
        f'{problem}'
    )


def test_missing_built_in_rules_file(tmp_path):
    path = str(tmp_path / 'nope.yaml')
    with pytest.raises(
        exception.ConfigError,
        match=f'rules file {path} cannot be read: .*No such',
    ):
        engine.load_built_in_rules(path)


def test_built_in_rules_apply_with_the_others(ctx, conf, node, tmp_path):
    path = write(
        tmp_path,
        """
- priority: 10
  actions: [{op: set-plugin-data, args: {path: who, value: built-in}}]
""",
    )
    rules = engine.load_built_in_rules(path) + [
        make_rule(set_pd('who', 'user'), priority=20)
    ]
    assert apply(ctx, conf, node, rules)[1] == {'who': 'built-in'}
