"""Applying inspection rules to a node (upstream Ironic 39's engine).

:func:`apply_rules` runs on the conductor once an inspection has found
the node's data, with the node locked; the caller hands it the rules
of the phase (those stored through the API and the built-in ones of
:func:`load_built_in_rules`). The rules run by priority, highest first
(rules of equal priority in the order given). For each rule:

1. the inventory and plugin data are masked (:mod:`.base`) as
   ``[inspection_rules]mask_secrets`` says: ``always`` (the default),
   ``never``, or ``sensitive``: masked unless the rule is sensitive;
2. its conditions are checked in order; the first that does not hold
   skips the rule (no condition: it applies);
3. its actions run in order; the node is saved by each action that
   changes it, and changes made by a rule stay when a later one fails.

Errors stop everything: the ``fail`` action and the failures of
operators and actions raise
:class:`~ironic_lite.exception.HardwareInspectionFailure` (or a
subclass), other ironic_lite errors (a port not found, the lock lost)
come as they are, and any other error becomes
:class:`~.base.InspectionRuleFailure`, "Failed to apply rule <uuid> to
node <uuid>: <error>". The caller fails the inspection with it.

Built-in rules (a YAML list of rules, each as the body of ``POST
/v1/inspection_rules``) are validated as built-in rules (no priority
ceiling); a rule without a uuid gets upstream's synthetic one,
``00000000-0000-0000-0000-<n>`` (``n``: how many such rules came
before it, 12 hex digits). Fields other than a rule's own are ignored.
"""

from typing import Any

from oslo_log import log as logging
import yaml

from ironic_lite import exception
from ironic_lite.inspection_rules import actions
from ironic_lite.inspection_rules import base
from ironic_lite.inspection_rules import operators
from ironic_lite.inspection_rules import validation

LOG = logging.getLogger(__name__)

Rule = dict[str, Any]

SYNTHETIC_UUID = '00000000-0000-0000-0000-%012x'


def apply_rules(
    task: Any,
    inventory: dict[str, Any],
    plugin_data: dict[str, Any],
    rules: list[Rule],
) -> None:
    """Apply ``rules`` to ``task.node`` (lock held); actions may change
    the node, its traits and ports, and ``plugin_data`` in place.

    :raises HardwareInspectionFailure: (or a subclass) a ``fail``
        action, or an operator or action that failed.
    :raises IronicLiteException: (any other subclass) see the module
        doc; :class:`~.base.InspectionRuleFailure` for other errors.
    """
    node = task.node
    if not rules:
        LOG.debug('No inspection rules to apply to node %s', node.uuid)
        return
    ordered = sorted(
        rules, key=lambda rule: rule.get('priority') or 0, reverse=True
    )
    LOG.debug(
        'Applying %(count)d inspection rules to node %(node)s',
        {'count': len(ordered), 'node': node.uuid},
    )
    mode = task.conf.inspection_rules.mask_secrets
    for rule in ordered:
        try:
            _apply_rule(task, rule, inventory, plugin_data, mode)
        except exception.HardwareInspectionFailure as exc:
            LOG.error(
                'Inspection rule %(rule)s failed on node %(node)s: %(error)s',
                {'rule': rule.get('uuid'), 'node': node.uuid, 'error': exc},
            )
            raise
        except exception.IronicLiteException as exc:
            LOG.error(
                'Error applying rule %(rule)s to node %(node)s: %(error)s',
                {'rule': rule.get('uuid'), 'node': node.uuid, 'error': exc},
            )
            raise
        except Exception as exc:
            failure = base.InspectionRuleFailure(
                rule=rule.get('uuid'), node=node.uuid, error=exc
            )
            LOG.exception('%s', failure)
            raise failure
    LOG.info('Finished applying inspection rules to node %s', node.uuid)


def should_mask(mode: str, rule: Rule) -> bool:
    """Whether ``rule`` sees the data masked under ``mask_secrets``."""
    return mode == 'always' or (
        mode == 'sensitive' and not rule.get('sensitive')
    )


def _apply_rule(
    task: Any,
    rule: Rule,
    inventory: dict[str, Any],
    plugin_data: dict[str, Any],
    mode: str,
) -> None:
    mask = should_mask(mode, rule)
    run = base.Run(
        task=task,
        inventory=base.MaskedMapping(inventory, mask),
        plugin_data=plugin_data,
        masked_plugin_data=base.MaskedMapping(plugin_data, mask),
    )
    for condition in rule.get('conditions') or ():
        if not operators.check_condition(run, condition):
            LOG.debug(
                'Skipping rule %(rule)s on node %(node)s: condition '
                "check '%(op)s': '%(args)s' failed",
                {
                    'rule': rule.get('uuid'),
                    'node': task.node.uuid,
                    'op': condition['op'],
                    'args': (
                        '***'
                        if rule.get('sensitive')
                        else condition.get('args')
                    ),
                },
            )
            return
    LOG.info(
        'Applying actions for rule %(rule)s to node %(node)s',
        {'rule': rule.get('uuid'), 'node': task.node.uuid},
    )
    for action in rule['actions']:
        actions.run_action(run, action)


def load_built_in_rules(path: str | None) -> list[Rule]:
    """The rules of the built-in rules file ``path`` (none without one).

    :raises ConfigError: the file cannot be read or parsed, holds no
        list, or one of its rules is invalid; the message names the
        file.
    """
    if not path:
        return []
    try:
        with open(path, encoding='utf-8') as stream:
            entries = yaml.safe_load(stream)
    except OSError as exc:
        raise _file_error(path, f'cannot be read: {exc}')
    except yaml.YAMLError as exc:
        raise _file_error(path, f'is not valid YAML: {exc}')
    if not isinstance(entries, list):
        raise _file_error(path, 'should contain a list of rules')
    rules = []
    synthetic = 0
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise _file_error(path, f'rule #{index} is not a mapping')
        uuid = entry.get('uuid')
        if uuid is None:
            uuid = SYNTHETIC_UUID % synthetic
            synthetic += 1
        rule = {
            'uuid': uuid,
            'priority': entry.get('priority', 0),
            'description': entry.get('description'),
            'sensitive': entry.get('sensitive', False),
            'phase': entry.get('phase', 'main'),
            'actions': entry.get('actions', []),
            'conditions': entry.get('conditions', []),
        }
        try:
            validation.validate_rule(rule, built_in=True)
        except exception.InvalidParameterValue as exc:
            raise _file_error(
                path, f'rule #{index} ({uuid}) is invalid: {exc}'
            )
        rules.append(rule)
    return rules


def _file_error(path: str, problem: str) -> exception.ConfigError:
    LOG.error(
        'Built-in inspection rules file %(path)s %(problem)s',
        {'path': path, 'problem': problem},
    )
    return exception.ConfigError(
        reason=f'built-in inspection rules file {path} {problem}'
    )
