"""Checking an inspection rule before it is stored or loaded (upstream
Ironic 39's rules and messages).

First the JSON schema of ``POST /v1/inspection_rules`` bodies
(:data:`RULE_SCHEMA`): ``actions`` required (at least one), each
condition and action an object with ``op`` (a known name; conditions
may be ``!op``) and ``args`` (a list or an object), ``loop`` a list or
an object, ``multiple`` one of any/all/first/last; ``description`` at
most 255 characters, ``phase`` at most 16, ``priority`` an integer >= 0,
``sensitive`` a boolean, ``uuid`` a string (both may be null); no other
field. Then, all errors collected: the phase must be ``main``, a user
rule's priority at most 9999 (built-in rules may go higher), and each
operator and action must be given exactly its arguments (see
:mod:`.base`).
"""

from typing import Any

import jsonschema

from ironic_lite import exception
from ironic_lite.inspection_rules import actions
from ironic_lite.inspection_rules import base
from ironic_lite.inspection_rules import operators

PHASES = ('main',)
MAX_USER_PRIORITY = 9999

_ARRAY_OR_OBJECT = ['array', 'object']

RULE_SCHEMA: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'actions': {
            'type': 'array',
            'minItems': 1,
            'items': {
                'type': 'object',
                'required': ['op', 'args'],
                'properties': {
                    'op': {
                        'description': 'action operator',
                        'enum': list(actions.ACTIONS),
                    },
                    'args': {
                        'description': 'Arguments for the action',
                        'type': _ARRAY_OR_OBJECT,
                    },
                    'loop': {
                        'description': 'Loop behavior for actions',
                        'type': _ARRAY_OR_OBJECT,
                    },
                },
                'additionalProperties': True,
            },
        },
        'conditions': {
            'type': 'array',
            'minItems': 0,
            'items': {
                'type': 'object',
                'required': ['op', 'args'],
                'properties': {
                    'op': {
                        'description': 'Condition operator',
                        'enum': [
                            *operators.OPERATORS,
                            *(f'!{op}' for op in operators.OPERATORS),
                        ],
                    },
                    'args': {
                        'description': 'Arguments for the condition',
                        'type': _ARRAY_OR_OBJECT,
                    },
                    'multiple': {
                        'description': 'How to treat multiple values',
                        'enum': ['any', 'all', 'first', 'last'],
                    },
                    'loop': {
                        'description': 'Loop behavior for conditions',
                        'type': _ARRAY_OR_OBJECT,
                    },
                },
                # other properties are the operators' business
                'additionalProperties': True,
            },
        },
        'description': {'type': ['string', 'null'], 'maxLength': 255},
        'phase': {'type': ['string', 'null'], 'maxLength': 16},
        'priority': {'type': 'integer', 'minimum': 0},
        'sensitive': {'type': ['boolean', 'null']},
        'uuid': {'type': ['string', 'null']},
    },
    'required': ['actions'],
    'additionalProperties': False,
}


def validate_rule(rule: dict[str, Any], built_in: bool = False) -> None:
    """Check ``rule`` (a rule's fields, as the API receives them).

    :param built_in: a rule of the built-in rules file: no upper bound
        on its priority.
    :raises InvalidParameterValue: the rule is invalid; the message has
        every error found after the schema check.
    """
    try:
        jsonschema.validate(rule, RULE_SCHEMA)
    except jsonschema.ValidationError as exc:
        raise exception.InvalidParameterValue(
            err=f'Validation failed for inspection rule: {exc.message}'
        )
    errors = _rule_errors(rule, built_in)
    for condition in rule.get('conditions') or ():
        errors.extend(_plugin_errors(condition, 'condition'))
    for action in rule['actions']:
        errors.extend(_plugin_errors(action, 'action'))
    if len(errors) == 1:
        raise exception.InvalidParameterValue(err=errors[0])
    if errors:
        raise exception.InvalidParameterValue(
            err='Multiple validation errors occurred: ' + '; '.join(errors)
        )


def _rule_errors(rule: dict[str, Any], built_in: bool) -> list[str]:
    errors = []
    phase = rule.get('phase', PHASES[0])
    if phase not in PHASES:
        errors.append(
            f'Invalid phase: {phase}. Valid phases are: {", ".join(PHASES)}'
        )
    if rule.get('priority', 0) > MAX_USER_PRIORITY and not built_in:
        errors.append(
            'Priority must be between 0 and 9999 for user-defined rules.'
        )
    return errors


def _plugin_errors(operation: dict[str, Any], kind: str) -> list[str]:
    """The errors of one condition (``kind`` 'condition') or action."""
    if kind == 'condition':
        name = base.parse_op(operation['op'])[0]
        plugin = operators.OPERATORS.get(name)
    else:
        name = operation['op']
        plugin = actions.ACTIONS.get(name)
    if plugin is None:
        return [f'Unsupported {kind} operator: {name}']
    try:
        plugin.check_args(operation.get('args', {}))
    except ValueError as exc:
        return [f'Invalid parameters for {kind} operator {name}: {exc}']
    return []
