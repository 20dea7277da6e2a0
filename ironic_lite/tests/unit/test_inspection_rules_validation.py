"""validate_rule: the schema of a rule and each operator's and action's
arguments, with upstream's messages."""

import jsonschema
import pytest

from ironic_lite import exception
from ironic_lite.inspection_rules import actions
from ironic_lite.inspection_rules import operators
from ironic_lite.inspection_rules import validation

LOG_ACTION = {'op': 'log', 'args': {'msg': 'hi'}}


def rule(**fields):
    return {'actions': [LOG_ACTION], **fields}


def error_of(body, built_in=False):
    with pytest.raises(exception.InvalidParameterValue) as info:
        validation.validate_rule(body, built_in=built_in)
    assert info.value.code == 400
    return str(info.value)


@pytest.mark.parametrize(
    'body',
    [
        rule(),
        rule(
            uuid=None,
            description=None,
            sensitive=None,
            phase='main',
            priority=9999,
            conditions=[],
        ),
        rule(uuid='x', description='d' * 255, sensitive=True, priority=0),
        rule(
            conditions=[
                {
                    'op': '!eq',
                    'args': {'values': [1, 1]},
                    'multiple': 'all',
                    'loop': [1],
                    'extra': 'ok',
                },
                {'op': 'in-net', 'args': ['10.0.0.1', '10.0.0.0/8']},
                {'op': 'one-of', 'args': {'value': 1}},
            ]
        ),
        {
            'actions': [
                {'op': op, 'args': dict.fromkeys(plugin.required, 'v')}
                for op, plugin in actions.ACTIONS.items()
            ]
        },
        {
            'actions': [
                {
                    'op': 'set-plugin-data',
                    'args': {'path': 'a', 'value': 1, 'plugin_data': {}},
                },
                {
                    'op': 'api-call',
                    'args': {
                        'url': 'http://x',
                        'headers': {},
                        'proxies': {},
                        'timeout': 1,
                        'retries': 0,
                        'backoff_factor': 0,
                    },
                },
            ]
        },
    ],
)
def test_valid_rules(body):
    validation.validate_rule(body)


@pytest.mark.parametrize(
    'body, message',
    [
        ({}, "'actions' is a required property"),
        (rule(actions=[]), '[] should be non-empty'),
        (
            rule(actions=[{'op': 'reboot', 'args': {}}]),
            "'reboot' is not one of ['fail', 'log', 'set-attribute', ",
        ),
        (rule(actions=[{'op': 'log'}]), "'args' is a required property"),
        (
            rule(actions=[{'op': 'log', 'args': 'hi'}]),
            "'hi' is not of type 'array', 'object'",
        ),
        (
            rule(conditions=[{'op': 'ne', 'args': {}}]),
            "'ne' is not one of ['eq', 'lt', 'gt', 'is-empty', 'in-net', ",
        ),
        (
            rule(conditions=[{'op': '!!eq', 'args': {}}]),
            "'!!eq' is not one of",
        ),
        (
            rule(conditions=[{'op': 'eq', 'args': {}, 'multiple': 'some'}]),
            "'some' is not one of ['any', 'all', 'first', 'last']",
        ),
        (
            rule(conditions=[{'op': 'eq', 'args': {}, 'loop': 'abc'}]),
            "'abc' is not of type 'array', 'object'",
        ),
        (rule(conditions={}), "{} is not of type 'array'"),
        (rule(description='d' * 256), 'is too long'),
        (rule(phase='p' * 17), 'is too long'),
        (rule(priority=-1), '-1 is less than the minimum of 0'),
        (rule(priority='1'), "'1' is not of type 'integer'"),
        (rule(sensitive='yes'), "'yes' is not of type 'boolean', 'null'"),
        (
            rule(scope='x'),
            "Additional properties are not allowed ('scope' was unexpected)",
        ),
        ([], "[] is not of type 'object'"),
    ],
)
def test_schema_errors(body, message):
    error = error_of(body)
    assert error.startswith('Validation failed for inspection rule: ')
    assert message in error


@pytest.mark.parametrize(
    'body, message',
    [
        (rule(phase='later'), 'Invalid phase: later. Valid phases are: main'),
        (rule(phase=None), 'Invalid phase: None. Valid phases are: main'),
        (
            rule(priority=10000),
            'Priority must be between 0 and 9999 for user-defined rules.',
        ),
        (
            rule(actions=[{'op': 'set-attribute', 'args': {'path': '/x'}}]),
            'Invalid parameters for action operator set-attribute: missing '
            'required argument(s): value',
        ),
        (
            rule(actions=[{'op': 'set-attribute', 'args': {}}]),
            'Invalid parameters for action operator set-attribute: missing '
            'required argument(s): path, value',
        ),
        (
            rule(actions=[{'op': 'log', 'args': {'msg': 'x', 'lvl': 'info'}}]),
            'Invalid parameters for action operator log: unexpected '
            'argument(s): '
            'lvl',
        ),
        (
            rule(actions=[{'op': 'fail', 'args': {'message': 'x'}}]),
            'Invalid parameters for action operator fail: missing required '
            'argument(s): msg; unexpected argument(s): message',
        ),
        (
            rule(actions=[{'op': 'set-attribute', 'args': ['/x']}]),
            'Invalid parameters for action operator set-attribute: Not enough '
            'arguments provided. Missing: value',
        ),
        (
            rule(actions=[{'op': 'add-trait', 'args': {'plugin_data': {}}}]),
            'Invalid parameters for action operator add-trait: missing '
            'required '
            'argument(s): name; unexpected argument(s): plugin_data',
        ),
        (
            rule(conditions=[{'op': '!contains', 'args': {'value': 'x'}}]),
            'Invalid parameters for condition operator contains: missing '
            'required argument(s): regex',
        ),
        (
            rule(conditions=[{'op': 'eq', 'args': {'value': [1]}}]),
            'Invalid parameters for condition operator eq: missing required '
            'argument(s): values; unexpected argument(s): value',
        ),
    ],
)
def test_single_errors(body, message):
    assert error_of(body) == message


def test_several_errors():
    body = rule(
        phase='later',
        priority=10000,
        conditions=[{'op': 'is-none', 'args': {}}],
        actions=[{'op': 'log', 'args': {}}],
    )
    assert error_of(body) == (
        'Multiple validation errors occurred: Invalid phase: later. Valid '
        'phases are: main; Priority must be between 0 and 9999 for '
        'user-defined rules.; Invalid parameters for condition operator '
        'is-none: missing required argument(s): value; Invalid parameters '
        'for action operator log: missing required argument(s): msg'
    )


def test_built_in_rules_have_no_priority_ceiling():
    validation.validate_rule(rule(priority=100000), built_in=True)
    # The schema's minimum holds for them too (upstream's schema).
    assert '-1 is less than the minimum of 0' in error_of(
        rule(priority=-1), built_in=True
    )


def test_validation_does_not_change_the_rule():
    args = {'path': 'a', 'value': 1}
    listed = ['a', 1]
    validation.validate_rule(
        {
            'actions': [
                {'op': 'set-plugin-data', 'args': args},
                {'op': 'set-plugin-data', 'args': listed},
            ]
        }
    )
    assert args == {'path': 'a', 'value': 1} and listed == ['a', 1]


def test_schema_lists_every_operator_and_action():
    schema = validation.RULE_SCHEMA['properties']
    action_ops = schema['actions']['items']['properties']['op']['enum']
    condition_ops = schema['conditions']['items']['properties']['op']['enum']
    assert action_ops == [
        'fail',
        'log',
        'set-attribute',
        'extend-attribute',
        'del-attribute',
        'set-capability',
        'unset-capability',
        'add-trait',
        'remove-trait',
        'set-plugin-data',
        'extend-plugin-data',
        'unset-plugin-data',
        'set-port-attribute',
        'extend-port-attribute',
        'del-port-attribute',
        'api-call',
    ]
    names = [
        'eq',
        'lt',
        'gt',
        'is-empty',
        'in-net',
        'matches',
        'contains',
        'one-of',
        'is-none',
        'is-true',
        'is-false',
    ]
    assert condition_ops == names + [f'!{name}' for name in names]
    assert list(operators.OPERATORS) == names
    jsonschema.Draft4Validator.check_schema(validation.RULE_SCHEMA)


@pytest.mark.parametrize(
    'op, required, optional',
    [
        ('eq', ('values',), ('force_strings',)),
        ('one-of', ('value',), ('values',)),
        ('in-net', ('address', 'subnet'), ()),
        ('matches', ('value', 'regex'), ()),
    ],
)
def test_operator_arguments(op, required, optional):
    plugin = operators.OPERATORS[op]
    assert (plugin.required, plugin.optional) == (required, optional)


@pytest.mark.parametrize(
    'op, required, optional',
    [
        ('fail', ('msg',), ()),
        ('log', ('msg',), ('level',)),
        ('extend-attribute', ('path', 'value'), ('unique',)),
        ('set-capability', ('name', 'value'), ()),
        ('extend-plugin-data', ('path', 'value'), ('unique',)),
        ('unset-plugin-data', ('path',), ()),
        ('extend-port-attribute', ('port_id', 'path', 'value'), ('unique',)),
        (
            'api-call',
            ('url',),
            ('headers', 'proxies', 'timeout', 'retries', 'backoff_factor'),
        ),
    ],
)
def test_action_arguments(op, required, optional):
    plugin = actions.ACTIONS[op]
    assert (plugin.required, plugin.optional) == (required, optional)
