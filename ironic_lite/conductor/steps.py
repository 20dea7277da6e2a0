"""Which clean steps a node runs, in which order, with which arguments.

Automated cleaning runs every step of priority > 0, after the
``[conductor]clean_step_priority_override`` overrides, highest priority
first; steps of equal priority run in interface order power, then
management, then deploy. Within one interface two automated steps may
not share a priority (:func:`check_duplicate_priorities`), so the order
is always fully defined.

Manual cleaning runs the steps the operator lists, in that order; any
step of the node's interfaces may be listed, priority 0 included.
"""

from collections.abc import Mapping
from typing import Any

from oslo_config import cfg
from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.common.step_requests import INTERFACE_ORDER
from ironic_lite.common.step_requests import check_stored_size
from ironic_lite.drivers import base

LOG = logging.getLogger(__name__)

#: Manual cleaning may also name steps of the conductor itself: ``hold``
#: stops in ``clean hold`` until an operator's ``unhold`` (or ``abort``).
CONDUCTOR_INTERFACE = 'conductor'
HOLD = 'hold'

#: JSON schema of ``clean_steps`` in a manual cleaning request.
CLEAN_STEPS_SCHEMA: dict[str, Any] = {
    'type': 'array',
    'minItems': 1,
    'items': {
        'type': 'object',
        'properties': {
            'interface': {'type': 'string', 'enum': list(INTERFACE_ORDER)},
            'step': {'type': 'string', 'minLength': 1},
            'args': {'type': 'object'},
        },
        'required': ['interface', 'step'],
        'additionalProperties': False,
    },
}


Interfaces = Mapping[str, base.BaseInterface]
Step = dict[str, Any]


def priority_overrides(conf: cfg.ConfigOpts) -> dict[tuple[str, str], int]:
    """``(interface, step) -> priority`` from
    ``[conductor]clean_step_priority_override``.

    :raises InvalidParameterValue: a value not of the form
        ``interface.step:priority`` (the option type checks it when the
        option is read), or one step given two different priorities. The
        conductor checks this at start-up and refuses to start (exit 78).
    """
    try:
        items = list(conf.conductor.clean_step_priority_override)
    except ValueError as exc:  # cfg.ConfigFileValueError and friends
        raise exception.InvalidParameterValue(
            err='Invalid [conductor]clean_step_priority_override: '
            f'{exc}. Each item must be <interface>.<step>:<priority> with '
            'interface power, management or deploy and priority an '
            'integer >= 0, for example deploy.erase_devices:0'
        )
    overrides: dict[tuple[str, str], int] = {}
    for item in items:
        name, _sep, priority = item.rpartition(':')
        interface, _sep, step = name.partition('.')
        key = (interface, step)
        if key in overrides and overrides[key] != int(priority):
            raise exception.InvalidParameterValue(
                err='Invalid [conductor]clean_step_priority_override: '
                f'step {name} is given priorities {overrides[key]} and '
                f'{int(priority)}'
            )
        overrides[key] = int(priority)
    return overrides


def _with_overrides(
    steps: list[Step], overrides: dict[tuple[str, str], int]
) -> list[Step]:
    result = []
    for step in steps:
        key = (step['interface'], step['step'])
        result.append(
            {**step, 'priority': overrides.get(key, step['priority'])}
        )
    return result


def _collect(
    task: base.TaskLike, interfaces: Interfaces, conf: cfg.ConfigOpts
) -> list[Step]:
    overrides = priority_overrides(conf)
    steps: list[Step] = []
    for interface_type in INTERFACE_ORDER:
        interface = interfaces.get(interface_type)
        if interface is not None:
            steps.extend(
                _with_overrides(interface.get_clean_steps(task), overrides)
            )
    return steps


def _automated_order(step: Step) -> tuple[int, int]:
    return -step['priority'], INTERFACE_ORDER.index(step['interface'])


def automated_steps(
    task: base.TaskLike, interfaces: Interfaces, conf: cfg.ConfigOpts
) -> list[Step]:
    """The steps automated cleaning runs, in order (see module doc)."""
    steps = [
        step
        for step in _collect(task, interfaces, conf)
        if step['priority'] > 0
    ]
    return sorted(steps, key=_automated_order)


def manual_steps(
    task: base.TaskLike, interfaces: Interfaces, conf: cfg.ConfigOpts
) -> list[Step]:
    """Every step of the node's interfaces (priorities after
    overrides), by interface order, then name."""
    return _collect(task, interfaces, conf)


def all_steps_for_api(
    task: base.TaskLike, interfaces: Interfaces, conf: cfg.ConfigOpts
) -> dict[str, list[Step]]:
    """``{'automated': steps automated cleaning runs, in order,
    'manual': steps that only manual cleaning runs (priority 0)}``."""
    steps = _collect(task, interfaces, conf)
    return {
        'automated': sorted(
            (s for s in steps if s['priority'] > 0), key=_automated_order
        ),
        'manual': [s for s in steps if s['priority'] == 0],
    }


def check_duplicate_priorities(
    interface: base.BaseInterface, conf: cfg.ConfigOpts
) -> None:
    """Refuse an interface with two automated steps of one priority.

    :raises DuplicateCleanStepPriority: naming both steps (also logged).
    """
    overrides = priority_overrides(conf)
    seen: dict[int, str] = {}
    steps = _with_overrides(interface.clean_step_definitions(), overrides)
    for step in steps:
        priority = step['priority']
        if priority == 0:
            continue
        if priority in seen:
            error = exception.DuplicateCleanStepPriority(
                interface_type=interface.interface_type,
                priority=priority,
                first=seen[priority],
                second=step['step'],
            )
            LOG.error('%s', error)
            raise error
        seen[priority] = step['step']


def _find_step(requested: Step, available: list[Step]) -> Step:
    for step in available:
        if (step['interface'], step['step']) == (
            requested.get('interface'),
            requested.get('step'),
        ):
            return step
    offered = [
        s['step']
        for s in available
        if s['interface'] == requested.get('interface')
    ]
    raise exception.InvalidParameterValue(
        err=f'The node has no clean step "{requested.get("step")}" on '
        f'its {requested.get("interface")} interface; available there: '
        f'{", ".join(offered) or "none"}'
    )


def _conductor_step(wanted: Step) -> Step:
    """A step the conductor runs itself (interface ``conductor``)."""
    if wanted.get('step') != HOLD:
        raise exception.InvalidParameterValue(
            err=f'The conductor has no clean step "{wanted.get("step")}"; '
            f'it offers: {HOLD}'
        )
    if wanted.get('args'):
        raise exception.InvalidParameterValue(
            err=f'The clean step {CONDUCTOR_INTERFACE}.{HOLD} takes no '
            f'arguments, not: {", ".join(sorted(wanted["args"]))}'
        )
    return {
        'interface': CONDUCTOR_INTERFACE,
        'step': HOLD,
        'args': {},
        'abortable': False,
        'idempotent': True,
        'priority': 0,
    }


def is_hold(step: Step | None) -> bool:
    """Whether ``step`` is the conductor's ``hold`` step."""
    if not step:
        return False
    return (step.get('interface'), step.get('step')) == (
        CONDUCTOR_INTERFACE,
        HOLD,
    )


def validate_manual_steps(
    requested: list[Step], available: list[Step]
) -> list[Step]:
    """Check a manual cleaning request against the node's steps.

    :param requested: ``[{'interface', 'step', 'args'?}]`` (already
        valid against :data:`CLEAN_STEPS_SCHEMA`).
    :param available: :func:`manual_steps` of the node.
    :returns: the steps to run, in order, each as
        ``{'interface', 'step', 'args', 'abortable', 'idempotent',
        'priority'}``.
    :raises InvalidParameterValue: unknown step, unknown argument,
        missing required argument, an argument of the wrong type or out
        of range, or a list too large to be stored.
    """
    result = []
    for wanted in requested:
        if wanted.get('interface') == CONDUCTOR_INTERFACE:
            result.append(_conductor_step(wanted))
            continue
        step = _find_step(wanted, available)
        base.validate_step_args(wanted, step.get('argsinfo'))
        result.append(
            {
                'interface': step['interface'],
                'step': step['step'],
                'args': dict(wanted.get('args') or {}),
                'abortable': step['abortable'],
                'idempotent': step.get('idempotent', False),
                'priority': step['priority'],
            }
        )
    check_stored_size(result)
    return result
