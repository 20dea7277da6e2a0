"""The condition operators of inspection rules: each operator, the
formatting of their arguments, ``!op``, loops and ``multiple`` (on the
unit tests' FakeTask: operators only read the node)."""

import pytest

from ironic_lite.inspection_rules import actions
from ironic_lite.inspection_rules import base
from ironic_lite.inspection_rules import operators
from ironic_lite.tests.unit import FakeNode
from ironic_lite.tests.unit import FakeTask
from ironic_lite.tests.unit.test_inspection_rules_engine import make_run


@pytest.fixture
def task():
    """Operators only read the node: no database needed."""
    return FakeTask(node=FakeNode(properties={'cpus': 4}))


def check(task, op, args, **condition):
    return operators.check_condition(
        make_run(task), {'op': op, 'args': args, **condition}
    )


@pytest.mark.parametrize(
    'op, args, expected',
    [
        ('eq', {'values': [5, 5]}, True),
        ('eq', {'values': [5, 5, 6]}, False),
        ('eq', {'values': [5]}, True),
        ('eq', {'values': []}, True),
        ('eq', {'values': [1, '1']}, False),
        ('eq', {'values': [1, '1'], 'force_strings': True}, True),
        ('eq', {'values': ['{node.driver}', 'fake-hardware']}, True),
        ('eq', {'values': ['{node.driver}', 'other']}, False),
        ('eq', {'values': ['{inventory[cpu][count]}', 4]}, False),
        ('eq', {'values': ['{inventory[cpu][count]}', '4']}, True),
        ('eq', {'values': ['{node.properties[cpus]}', '4']}, True),
        ('lt', {'values': [5, 10, 11]}, True),
        ('lt', {'values': [5, 5]}, False),
        ('gt', {'values': [10, 5]}, True),
        ('gt', {'values': [5, 10]}, False),
        ('is-empty', {'value': ''}, True),
        ('is-empty', {'value': None}, True),
        ('is-empty', {'value': []}, True),
        ('is-empty', {'value': {}}, True),
        ('is-empty', {'value': 'not empty'}, False),
        ('is-empty', {'value': 0}, False),
        ('is-empty', {'value': '{inventory[i.do.not.exist]}'}, True),
        ('is-empty', {'value': '{inventory[bmc_address]}'}, False),
        (
            'in-net',
            {'address': '192.168.1.5', 'subnet': '192.168.1.0/24'},
            True,
        ),
        ('in-net', {'address': '10.0.0.1', 'subnet': '192.168.1.0/24'}, False),
        (
            'in-net',
            {
                'address': '{inventory[bmc_address]}',
                'subnet': '192.168.1.1/24',
            },
            True,
        ),
        ('in-net', {'address': 'fd00::5', 'subnet': 'fd00::/64'}, True),
        ('in-net', {'address': '10.0.0.1', 'subnet': 'fd00::/64'}, False),
        ('matches', {'value': 'abc123', 'regex': r'abc\d+'}, True),
        ('matches', {'value': 'abc123x', 'regex': r'abc\d+'}, False),
        ('matches', {'value': 'xabc123', 'regex': r'abc\d+'}, False),
        ('matches', {'value': 'abc123', 'regex': r'abc\d+$'}, True),
        ('matches', {'value': 42, 'regex': r'\d+'}, True),
        ('contains', {'value': 'test-abc123-end', 'regex': r'abc\d+'}, True),
        ('contains', {'value': 'test-xyz-end', 'regex': r'abc\d+'}, False),
        (
            'contains',
            {
                'value': '{inventory[system_vendor][manufacturer]}',
                'regex': '(?i)dell',
            },
            True,
        ),
        ('one-of', {'value': 'b', 'values': ['a', 'b', 'c']}, True),
        ('one-of', {'value': 'z', 'values': ['a', 'b', 'c']}, False),
        ('one-of', {'value': 'a'}, False),
        (
            'one-of',
            {
                'value': '{inventory[cpu][architecture]}',
                'values': ['x86_64', 'aarch64'],
            },
            True,
        ),
        # values is not a formatted argument of one-of (upstream's).
        (
            'one-of',
            {'value': 'x86_64', 'values': ['{inventory[cpu][architecture]}']},
            False,
        ),
        ('is-none', {'value': None}, True),
        ('is-none', {'value': 'something'}, False),
        ('is-none', {'value': '{inventory[missing]}'}, False),
        ('is-true', {'value': True}, True),
        ('is-true', {'value': 'yes'}, True),
        ('is-true', {'value': 'TRUE'}, True),
        ('is-true', {'value': 1}, True),
        ('is-true', {'value': 0.1}, True),
        ('is-true', {'value': False}, False),
        ('is-true', {'value': 0}, False),
        ('is-true', {'value': 'no'}, False),
        ('is-true', {'value': None}, False),
        ('is-true', {'value': {}}, False),
        ('is-true', {'value': []}, False),
        ('is-false', {'value': False}, True),
        ('is-false', {'value': 'no'}, True),
        ('is-false', {'value': 'FALSE'}, True),
        ('is-false', {'value': 0}, True),
        ('is-false', {'value': None}, True),
        ('is-false', {'value': True}, False),
        ('is-false', {'value': 1}, False),
        ('is-false', {'value': 'yes'}, False),
        ('is-false', {'value': []}, False),
    ],
)
def test_operators(task, op, args, expected):
    assert check(task, op, args) is expected
    assert check(task, f'!{op}', args) is (not expected)


def test_list_args_are_positional(task):
    assert check(task, 'contains', ['testvalue', 'test'])
    assert check(task, 'eq', [[1, '1'], True])
    assert check(task, 'one-of', ['a', ['a']])


def test_upstream_plugin_data_argument_is_ignored(task):
    args = {'path': 'a', 'value': 1, 'plugin_data': {}}
    assert operators.OPERATORS['eq'].named_args({'values': [1]}) == {
        'values': [1]
    }
    assert actions.ACTIONS['set-plugin-data'].named_args(args) == {
        'path': 'a',
        'value': 1,
    }


@pytest.mark.parametrize(
    'op, args, error, message',
    [
        (
            'eq',
            {'values': 'not-a-list'},
            base.RuleConditionCheckFailure,
            'Inspection rule condition check failed. Reason: Failed to check '
            "condition: 'eq' on values: not-a-list: Expected list for "
            "'values', "
            'got: str',
        ),
        (
            'gt',
            {'values': 5},
            base.RuleConditionCheckFailure,
            'Inspection rule condition check failed. Reason: Failed to check '
            "condition: 'gt' on values: 5: Expected list for 'values', got: "
            'int',
        ),
        (
            'in-net',
            {'address': '192.168.1.1', 'subnet': 'invalid-subnet'},
            base.InspectionRuleExecutionFailure,
            'invalid value: invalid IPNetwork invalid-subnet',
        ),
        (
            'matches',
            {'value': 'test', 'regex': '[unclosed'},
            base.InspectionRuleExecutionFailure,
            'invalid regular expression: unterminated character set at '
            'position 0',
        ),
        (
            'contains',
            {'value': 'test', 'regex': '[unclosed'},
            base.InspectionRuleExecutionFailure,
            'invalid regular expression: unterminated character set at '
            'position 0',
        ),
    ],
)
def test_operator_errors(task, op, args, error, message):
    with pytest.raises(error) as info:
        check(task, op, args)
    assert str(info.value) == message


def test_bad_address_is_an_error(task):
    with pytest.raises(
        Exception, match='failed to detect a valid IP address from'
    ):
        check(task, 'in-net', {'address': 'nope', 'subnet': '10.0.0.0/8'})


def test_parse_op():
    assert base.parse_op('!eq') == ('eq', True)
    assert base.parse_op(' ! eq ') == ('eq', True)
    assert base.parse_op(' eq ') == ('eq', False)
    with pytest.raises(ValueError, match='Multiple exclamation marks'):
        base.parse_op('!!eq')


def test_unknown_operator():
    with pytest.raises(ValueError, match="Unsupported operator: 'le'"):
        operators.get_operator('!le')


# -- loops

EQ_LOOP = {'op': 'eq', 'args': {'values': [1, '{item}']}, 'loop': [1, 2, 3, 4]}
CONTAINS_LOOP = {
    'op': 'contains',
    'args': {'value': '{item}', 'regex': '4'},
    'loop': ['test4', 'value5', 'string6'],
}
ONE_OF_LOOP = {
    'op': 'one-of',
    'args': {'value': '{inventory[cpu][architecture]}', 'values': ['{item}']},
    'loop': ['x86_64', 'aarch64', 'ppc64le'],
}


@pytest.mark.parametrize(
    'multiple, expected',
    [
        (None, (True, True, True)),
        ('any', (True, True, True)),
        ('all', (False, False, False)),
        ('first', (True, True, True)),
        ('last', (False, False, False)),
    ],
)
def test_loops(task, multiple, expected):
    results = []
    for condition in (EQ_LOOP, CONTAINS_LOOP, ONE_OF_LOOP):
        condition = dict(condition)
        if multiple:
            condition['multiple'] = multiple
        results.append(operators.check_condition(make_run(task), condition))
    assert tuple(results) == expected


def test_loop_first_is_true_once_one_item_holds(task):
    # Upstream's 'first': checking stops at the first item that holds.
    condition = {
        'op': 'eq',
        'args': {'values': ['{item}', 3]},
        'loop': [1, 3, 'boom'],
        'multiple': 'first',
    }
    assert operators.check_condition(make_run(task), condition)
    condition['loop'] = [1, 2]
    assert not operators.check_condition(make_run(task), condition)


def test_loop_last_and_all(task):
    condition = {
        'op': 'eq',
        'args': {'values': ['{item}', 3]},
        'loop': [1, 3],
        'multiple': 'last',
    }
    assert operators.check_condition(make_run(task), condition)
    condition['loop'] = [3, 3]
    condition['multiple'] = 'all'
    assert operators.check_condition(make_run(task), condition)


def test_loop_formats_every_argument_and_compares_strings(task):
    # regex is formatted in a loop; values compared as strings.
    condition = {
        'op': 'matches',
        'args': {
            'value': '{inventory[bmc_address]}',
            'regex': '{item[prefix]}.*',
        },
        'loop': [{'prefix': '10'}, {'prefix': '192'}],
    }
    assert operators.check_condition(make_run(task), condition)
    condition = {'op': 'eq', 'args': {'values': ['{item}', 4]}, 'loop': [4]}
    assert operators.check_condition(make_run(task), condition)


def test_loop_items_are_formatted_too(task):
    condition = {
        'op': 'eq',
        'args': {'values': ['{item}', '192.168.1.10']},
        'loop': ['{inventory[bmc_address]}'],
    }
    # Inside a list argument a string is formatted once (upstream's).
    assert not operators.check_condition(make_run(task), condition)
    condition = {
        'op': 'contains',
        'args': {'value': '{item}', 'regex': r'^192\.168'},
        'loop': ['{inventory[bmc_address]}'],
    }
    assert operators.check_condition(make_run(task), condition)


def test_dict_loop_is_one_item(task):
    condition = {
        'op': 'eq',
        'args': {'values': ['{item[a]}', '1']},
        'loop': {'a': 1},
        'multiple': 'last',
    }
    assert operators.check_condition(make_run(task), condition)


def test_inverted_loop_inverts_each_item(task):
    condition = {
        'op': '!eq',
        'args': {'values': ['{item}', 1]},
        'loop': [1, 2],
    }
    assert operators.check_condition(make_run(task), condition)
    condition['multiple'] = 'all'
    assert not operators.check_condition(make_run(task), condition)


def test_empty_loop_is_no_loop(task):
    condition = {'op': 'eq', 'args': {'values': ['{item}', 1]}, 'loop': []}
    assert not operators.check_condition(make_run(task), condition)


def test_formatting_failures_leave_the_string(task):
    run = make_run(task)
    fields = run.fields(())
    for text in (
        '{inventory.bmc_address}',
        '{node[driver]}',
        '{unknown}',
        '{inventory[interfaces][5]}',
        '{',
    ):
        assert base.interpolate(text, fields, 'eq', False) == text
    assert (
        base.interpolate('{inventory[nope]}', fields, 'is-empty', False)
        is None
    )
    assert base.interpolate(
        {'{node.driver}': ['{node.driver}', 1, {'k': '{node.driver}'}]},
        fields,
        'eq',
        False,
    ) == {'fake-hardware': ['fake-hardware', 1, {'k': 'fake-hardware'}]}
    assert (
        base.interpolate(
            '{inventory[interfaces][0][mac_address]}', fields, 'eq', False
        )
        == '52:54:00:aa:bb:cc'
    )
