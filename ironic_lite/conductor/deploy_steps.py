"""The deploy steps of a deployment (upstream's rules): the node's
driver steps of priority > 0, the steps of the deploy templates named by
the instance's traits (``instance_info['traits']``, API 1.55) and the
steps of the request (``deploy_steps``, 1.69), which win over the
templates'. A step of a template or of the request replaces the driver
step of the same interface and name (priority 0: it is not run). They
run highest priority first; on a tie, by interface (vendor, power,
management, firmware, deploy, bios, raid).

Every step of a template or of the request must be one the node's
interfaces have, with valid arguments, and appear once: the deployment
is refused before it starts otherwise (400).
"""

from collections import Counter
from typing import Any

from ironic_lite import exception
from ironic_lite.conductor import task_manager
from ironic_lite.db import deploy_templates as db_templates
from ironic_lite.drivers import base

#: Tie-break of equal priorities: the higher first (upstream's).
INTERFACE_PRIORITY = {
    'vendor': 7,
    'power': 6,
    'management': 5,
    'firmware': 4,
    'deploy': 3,
    'bios': 2,
    'raid': 1,
}
#: driver_internal_info keys of a deployment.
STEPS_KEY = 'deploy_steps'
INDEX_KEY = 'deploy_step_index'
USER_STEPS_KEY = 'user_deploy_steps'

Task = task_manager.Task


def step_id(step: dict[str, Any]) -> str:
    return f'{step["interface"]}.{step["step"]}'


def driver_steps(task: Task) -> dict[str, dict[str, Any]]:
    """Every deploy step of the node's interfaces, by ``interface.step``."""
    steps: dict[str, dict[str, Any]] = {}
    for kind in INTERFACE_PRIORITY:
        interface = task.interfaces.get(kind)
        if interface is None:
            continue
        for step in interface.get_deploy_steps(task):
            steps[step_id(step)] = step
    return steps


def normalized(step: dict[str, Any]) -> dict[str, Any]:
    """A step as given (template or request), its priority an int."""
    return {
        'interface': step['interface'],
        'step': step['step'],
        'args': dict(step.get('args') or {}),
        'priority': int(step['priority']),
    }


def _validate(
    task: Task,
    steps: list[dict[str, Any]],
    prefix: str,
    known: dict[str, dict[str, Any]],
) -> list[dict[str, Any]]:
    errors = []
    result = []
    for step in steps:
        step = normalized(step)
        found = known.get(step_id(step))
        if found is None:
            errors.append(f'node does not support this deploy step: {step}')
            continue
        try:
            base.validate_step_args(step, found.get('argsinfo'), 'Deploy')
        except exception.InvalidParameterValue as exc:
            errors.append(str(exc))
            continue
        result.append(step)
    duplicates = sorted(
        name
        for name, count in Counter(step_id(s) for s in result).items()
        if count > 1
    )
    if duplicates:
        errors.append(
            'deploy steps from all deploy templates matching this '
            "node's instance traits cannot have the same interface "
            'and step. Duplicate deploy steps for '
            f'{", ".join(duplicates)}'
        )
    if errors:
        raise exception.InvalidParameterValue(err=prefix + '; '.join(errors))
    return result


def template_steps(
    task: Task, known: dict[str, dict[str, Any]]
) -> list[dict[str, Any]]:
    traits = task.node.instance_info.get('traits') or []
    if not isinstance(traits, list):
        return []
    templates = db_templates.by_names(
        task.context, [t for t in traits if isinstance(t, str)]
    )
    if not templates:
        return []
    steps = [step for template in templates for step in template['steps']]
    prefix = (
        'Validation of deploy steps from deploy templates matching '
        "this node's instance traits failed. Matching deploy "
        f'templates: {",".join(t["name"] for t in templates)}. '
        'Errors: '
    )
    return _validate(task, steps, prefix, known)


def user_steps(
    task: Task,
    known: dict[str, dict[str, Any]],
    steps: list[dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    if steps is None:
        steps = task.node.driver_internal_info.get(USER_STEPS_KEY) or []
    if not steps:
        return []
    return _validate(
        task,
        steps,
        'Validation of deploy steps from "deploy steps" argument failed.',
        known,
    )


def validate(task: Task, requested: list[dict[str, Any]] | None) -> None:
    """Check the templates' and the request's steps before a
    deployment starts.

    :raises InvalidParameterValue:
    """
    known = driver_steps(task)
    template_steps(task, known)
    user_steps(task, known, requested)


def _sort_key(step: dict[str, Any]) -> tuple[int, int]:
    return (step['priority'], INTERFACE_PRIORITY.get(step['interface'], 0))


def all_steps(task: Task) -> list[dict[str, Any]]:
    """The steps the deployment of ``task.node`` runs, in order.

    :raises InvalidParameterValue: a template or requested step is
        invalid (a template may have changed since the request).
    """
    known = driver_steps(task)
    requested = user_steps(task, known)
    taken = {step_id(s) for s in requested}
    chosen = requested + [
        s for s in template_steps(task, known) if step_id(s) not in taken
    ]
    taken = {step_id(s) for s in chosen}
    steps = [
        normalized({**s, 'args': {}})
        for s in known.values()
        if s['priority'] > 0 and step_id(s) not in taken
    ]
    steps += [s for s in chosen if s['priority'] > 0]
    return sorted(steps, key=_sort_key, reverse=True)
