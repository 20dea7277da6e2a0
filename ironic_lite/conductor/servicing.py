"""Servicing (API 1.87): steps an operator runs on an ``active`` node.

``PUT /v1/nodes/{node}/states/provision {"target": "service",
"service_steps": [...]}`` moves the node to ``servicing``; the steps run
one after the other on a worker, under the node lock, out of band (no
ramdisk boots: ``disable_ramdisk`` asks for nothing more), and the node
is ``active`` again once the last one is done. Its instance is never
touched by the flow itself: only what the steps do.

The steps are checked before anything changes (400 otherwise): each is
a service step of one of the node's interfaces (:func:`base.service_step`)
or one of upstream's reserved steps, whose interface is ignored:

``power_on``, ``power_off``, ``reboot``
    the node's power interface does it; the node's power state follows;
``hold``
    the node waits in ``service hold`` for ``unhold`` (it goes on with
    the next step) or ``abort``;
``wait`` with ``seconds``
    the node waits in ``service wait`` that long (at most
    ``[conductor]max_conductor_wait_step_seconds``), without holding a
    worker or the lock. Upstream also takes a ``wait`` without seconds
    that the next agent heartbeat ends; no agent runs while ironic_lite
    services a node, so such a wait is refused rather than left to time
    out.

What the node keeps in ``driver_internal_info`` while it is serviced:
``service_steps`` (the checked list), ``service_step_index`` (the step
running, ``node.service_step`` set, or the next one),
``service_disable_ramdisk``, ``service_abort_after`` (an abort waits for
a step that is not abortable) and ``service_wait_until`` (a reserved
wait). All of them go when servicing ends, however it ends.

Failures, as upstream: a failing step leaves the node in ``service
failed`` with ``last_error`` and, as a step was running, in maintenance
with the fault ``service failure``. From ``service failed`` the operator
may ``service`` again, ``abort`` (back to ``active``, the steps' changes
kept), ``rescue`` or undeploy. ``abort`` in ``service wait`` or
``service hold`` ends the same way as from ``service failed``: the node
is ``active`` with upstream's "By request, the service operation was
aborted ..." in ``last_error``; a running step that is not abortable
finishes first.

A conductor that stops between two steps leaves the node in
``servicing``, unlocked, with the index of its next step: the conductor
that owns it then goes on from there. A step found interrupted (its
conductor died while it ran) is never run again: the node fails (see
:func:`resume`).
"""

import time
from typing import Any
from typing import cast

from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.common import agent_token
from ironic_lite.common import states
from ironic_lite.common import step_requests
from ironic_lite.conductor import clean_state
from ironic_lite.conductor import flow_guard
from ironic_lite.conductor import history
from ironic_lite.conductor import task_manager
from ironic_lite.conductor import workers
from ironic_lite.drivers import base

LOG = logging.getLogger(__name__)

Task = task_manager.Task
Step = dict[str, Any]

STEPS_KEY = 'service_steps'
INDEX_KEY = 'service_step_index'
DISABLE_RAMDISK_KEY = 'service_disable_ramdisk'
ABORT_AFTER_KEY = 'service_abort_after'
WAIT_UNTIL_KEY = 'service_wait_until'
SERVICING_KEYS = (
    STEPS_KEY,
    INDEX_KEY,
    DISABLE_RAMDISK_KEY,
    ABORT_AFTER_KEY,
    WAIT_UNTIL_KEY,
)
#: ``node.fault`` of a node a service step failed on (upstream's).
SERVICE_FAILURE = 'service failure'
#: Upstream's step flow name, in the node history.
FLOW = 'servicing'

#: Reserved step name -> the power target it reaches.
POWER_STEPS = {
    'power_on': states.POWER_ON,
    'power_off': states.POWER_OFF,
    'reboot': states.REBOOT,
}
HOLD = 'hold'
WAIT = 'wait'
RESERVED_STEPS = frozenset(POWER_STEPS) | {HOLD, WAIT}
#: The arguments of the reserved ``wait`` step.
_WAIT_ARGSINFO = {
    'seconds': {
        'description': 'How long to wait.',
        'required': True,
        'type': 'integer',
        'minimum': 0,
    }
}


def step_name(step: Step | None) -> str:
    return clean_state.step_name(step)


# -- checking a request


def _reserved(wanted: Step) -> Step:
    name = wanted['step']
    if name == WAIT and 'seconds' not in (wanted.get('args') or {}):
        raise exception.InvalidParameterValue(
            err='The service step "wait" needs the argument "seconds" '
            'here: without it upstream waits for the next heartbeat of an '
            'agent, and no agent runs while ironic_lite services a node'
        )
    base.validate_step_args(
        wanted, _WAIT_ARGSINFO if name == WAIT else None, 'Service'
    )
    return {
        'interface': wanted['interface'],
        'step': name,
        'args': dict(wanted.get('args') or {}),
        'abortable': True,
        'priority': 0,
        'reserved': True,
    }


def available_steps(task: Task) -> dict[tuple[str, str], Step]:
    """``(interface, step) -> definition`` of every service step of
    the node's interfaces."""
    found = {}
    for interface in task.interfaces.values():
        for step in interface.service_step_definitions():
            found[(step['interface'], step['step'])] = step
    return found


def validate_steps(
    task: Task, requested: list[Step], disable_ramdisk: bool = False
) -> list[Step]:
    """The steps servicing runs, checked against the node's interfaces.

    :raises InvalidParameterValue: an unknown step, bad arguments, a
        step that needs a ramdisk with ``disable_ramdisk``, or a list
        too large to be stored.
    """
    available = available_steps(task)
    result = []
    for wanted in requested:
        if wanted.get('step') in RESERVED_STEPS:
            result.append(_reserved(wanted))
            continue
        key = (wanted.get('interface'), wanted.get('step'))
        step = available.get(cast(tuple[str, str], key))
        if step is None:
            offered = sorted(
                name
                for iface, name in available
                if iface == wanted.get('interface')
            )
            raise exception.InvalidParameterValue(
                err=f'The node has no service step "{wanted.get("step")}" '
                f'on its {wanted.get("interface")} interface; available '
                f'there: {", ".join(offered) or "none"} (and the reserved '
                f'steps {", ".join(sorted(RESERVED_STEPS))})'
            )
        base.validate_step_args(wanted, step.get('argsinfo'), 'Service')
        if disable_ramdisk and step['requires_ramdisk']:
            raise exception.InvalidParameterValue(
                err=f'Service step {step_name(step)} requires booting a '
                'ramdisk'
            )
        result.append(
            {
                'interface': step['interface'],
                'step': step['step'],
                'args': dict(wanted.get('args') or {}),
                'abortable': step['abortable'],
                'priority': step['priority'],
            }
        )
    step_requests.check_stored_size(result)
    return result


# -- the flow


def wipe_service_info(task: Task) -> None:
    """Forget the servicing (the caller saves)."""
    info = task.node.driver_internal_info
    for key in SERVICING_KEYS:
        info.pop(key, None)
    agent_token.wipe_token_and_url(info)
    task.node.service_step = {}


def fail_servicing(
    task: Task, message: str, set_maintenance: bool = True
) -> None:
    """Put the node in ``service failed`` with ``message`` in
    ``last_error`` (and in maintenance when a step was running)."""
    node = task.node
    message = clean_state.short(message)
    LOG.error('Servicing of node %s failed: %s', node.uuid, message)
    history.record(task, message, history.SERVICING)
    values: dict[str, Any] = {'last_error': message}
    if node.service_step and set_maintenance:
        values.update(maintenance=True, fault=SERVICE_FAILURE)
        if not node.maintenance_reason:
            values['maintenance_reason'] = message
    wipe_service_info(task)
    if node.provision_state == states.SERVICEFAIL:
        task.update(**values)
    else:
        task.process_event('fail', **values)


@flow_guard.guarded('servicing')
def do_node_service(
    task: Task, steps: list[Step], disable_ramdisk: bool = False
) -> None:
    """Service a node in ``servicing`` (worker, lock held) with the
    steps :func:`validate_steps` returned."""
    node = task.node
    try:
        task.interfaces['power'].validate(task)
    except Exception as exc:
        fail_servicing(
            task, f'Validation of node {node.uuid} for service failed: {exc}'
        )
        return
    wipe_service_info(task)
    info = node.driver_internal_info
    info[STEPS_KEY] = steps
    info[INDEX_KEY] = 0
    info[DISABLE_RAMDISK_KEY] = bool(disable_ramdisk)
    task.save()
    history.record_flow(task, FLOW, steps, 'start')
    LOG.info(
        'Servicing of node %s starts with steps: %s',
        node.uuid,
        ', '.join(step_name(s) for s in steps),
    )
    do_next_service_step(task, 0)


def _run_reserved(task: Task, step: Step) -> str | None:
    """A reserved step: ``hold`` and ``wait`` leave the node waiting
    (``'left'``); a power step is done at once."""
    node = task.node
    name = step['step']
    if name == HOLD:
        task.process_event('hold')
        LOG.info(
            'Node %s: held in "service hold" until "unhold" or "abort"',
            node.uuid,
        )
        return 'left'
    if name == WAIT:
        seconds = int(step['args']['seconds'])
        limit = task.conf.conductor.max_conductor_wait_step_seconds
        if seconds > limit:
            warning = (
                'A wait time exceeding the configured maximum has '
                f'been requested. Holding for {limit}, got '
                f'{seconds}.'
            )
            LOG.warning('Node %s: %s', node.uuid, warning)
            history.record(task, warning, node.provision_state)
            seconds = limit
        node.driver_internal_info[WAIT_UNTIL_KEY] = time.time() + seconds
        task.process_event('wait')
        return 'left'
    power = cast(base.PowerInterface, task.interfaces['power'])
    target = POWER_STEPS[name]
    if target == states.REBOOT:
        power.reboot(task)
    else:
        power.set_power_state(task, target)
    node.power_state = power.get_power_state(task)
    if node.power_state == states.POWER_OFF:
        agent_token.wipe_on_power_off(node.driver_internal_info)
    return None


def _run_step(task: Task, step: Step) -> str | None:
    """Run one step: None when done, ``'wait'`` when it goes on
    asynchronously, ``'left'`` when the node now waits (hold, wait) or
    failed."""
    node = task.node
    try:
        if step.get('reserved'):
            return _run_reserved(task, step)
        result = task.interfaces[step['interface']].execute_service_step(
            task, step
        )
    except exception.NodeNotLocked:
        raise
    except Exception as exc:
        LOG.exception(
            'Node %s: service step %s failed', node.uuid, step_name(step)
        )
        history.record_flow(
            task,
            FLOW,
            node.driver_internal_info.get(STEPS_KEY, []),
            'end',
            aborted_step=step.get('step'),
        )
        fail_servicing(
            task, f'Node {node.uuid} failed step {step_name(step)}: {exc}'
        )
        return 'left'
    return 'wait' if result == states.SERVICEWAIT else None


@flow_guard.guarded('servicing')
def do_next_service_step(task: Task, start: int) -> None:
    """Run the service steps from index ``start`` on (worker, lock
    held); finish servicing after the last one."""
    node = task.node
    steps = node.driver_internal_info.get(STEPS_KEY) or []
    for index in range(start, len(steps)):
        step = steps[index]
        if task.stopping:
            LOG.info(
                'Node %s: the conductor is stopping; servicing stops '
                'before step %d (%s) and will be resumed from there',
                node.uuid,
                index + 1,
                step_name(step),
            )
            return
        node.service_step = step
        node.driver_internal_info[INDEX_KEY] = index
        task.save()
        LOG.info(
            'Node %s: running service step %s (%d of %d)',
            node.uuid,
            step_name(step),
            index + 1,
            len(steps),
        )
        result = _run_step(task, step)
        if result == 'left':
            return
        if result == 'wait':
            LOG.info(
                'Node %s: service step %s goes on asynchronously',
                node.uuid,
                step_name(step),
            )
            task.process_event('wait')
            return
        node.service_step = {}
        node.driver_internal_info[INDEX_KEY] = index + 1
        task.save()
        LOG.info('Node %s: service step %s done', node.uuid, step_name(step))
    _finish(task)


def _finish(task: Task) -> None:
    node = task.node
    history.record_flow(
        task, FLOW, node.driver_internal_info.get(STEPS_KEY) or [], 'end'
    )
    wipe_service_info(task)
    task.process_event('done')
    LOG.info('Node %s service complete.', node.uuid)


# -- service wait and service hold


def _resume(task: Task, pool: workers.WorkerPool) -> None:
    """The step the node waited for finished: go on with the next one
    (or end as aborted, when an abort waited for the step)."""
    node = task.node
    info = node.driver_internal_info
    if info.get(ABORT_AFTER_KEY):
        _abort_to_active(task)
        return
    index = int(info.get(INDEX_KEY) or 0) + 1
    info[INDEX_KEY] = index
    info.pop(WAIT_UNTIL_KEY, None)
    LOG.info(
        'Node %s: service step %s done',
        node.uuid,
        step_name(node.service_step),
    )
    node.service_step = {}
    task.spawn_after(pool, do_next_service_step, index)
    task.process_event('resume')


def step_finished(task: Task) -> bool:
    """Whether the step a node waits for in ``service wait`` finished
    (raises when it failed). Safe to repeat."""
    node = task.node
    step = node.service_step or {}
    if step.get('reserved'):
        until = node.driver_internal_info.get(WAIT_UNTIL_KEY)
        return until is not None and time.time() >= float(until)
    return bool(task.interfaces[step['interface']].poll_service_step(task))


def poll_async_step(task: Task, pool: workers.WorkerPool) -> None:
    """Poll the step of a node in ``service wait`` (lock held; a worker
    is reserved first so that a finished step always has one)."""
    node = task.node
    task.reserve_worker(pool)
    try:
        done = step_finished(task)
    except Exception as exc:
        LOG.exception(
            'Node %s: polling service step %s failed',
            node.uuid,
            step_name(node.service_step),
        )
        fail_servicing(
            task,
            f'Node {node.uuid} failed step '
            f'{step_name(node.service_step)}: {exc}',
        )
        return
    if done:
        _resume(task, pool)
    else:
        task.save()


def unhold(task: Task, pool: workers.WorkerPool) -> None:
    """``unhold`` a node in ``service hold`` (RPC thread, lock held):
    the hold step is done, servicing goes on with the next step.

    :raises NoFreeConductorWorker: nothing changed.
    """
    task.reserve_worker(pool)
    task.process_event('unhold')
    _resume(task, pool)


def fail_on_timeout(task: Task) -> None:
    """The node waited in ``service wait`` longer than
    ``[conductor]service_callback_timeout``."""
    node = task.node
    step = node.service_step
    _abort_driver_step(task)
    fail_servicing(
        task,
        f'Timeout reached while servicing node '
        f'{node.uuid}: service step {step_name(step)} did not '
        f'finish within '
        f'{task.conf.conductor.service_callback_timeout} seconds '
        '([conductor]service_callback_timeout)',
    )


def _abort_driver_step(task: Task) -> None:
    step = task.node.service_step
    if not step or step.get('reserved') or not step.get('abortable'):
        return
    try:
        task.interfaces[step['interface']].abort_service_step(task)
    except Exception:
        LOG.exception(
            'Node %s: aborting service step %s failed; the '
            'servicing ends anyway',
            task.node.uuid,
            step_name(step),
        )


def _abort_to_active(task: Task) -> None:
    """End the servicing by request: the node is ``active`` again, with
    upstream's message in ``last_error``."""
    node = task.node
    message = 'By request, the service operation was aborted'
    if node.service_step:
        message += (
            ' during or after the completion of step '
            f'"{step_name(node.service_step)}"'
        )
    history.record(task, message, history.SERVICING)
    wipe_service_info(task)
    if node.provision_state != states.SERVICEFAIL:
        task.process_event('abort')
    task.process_event('abort', last_error=message)
    LOG.info('Node %s: %s', node.uuid, message)


def start_abort(task: Task) -> None:
    """``abort`` in ``service wait``, ``service hold`` or ``service
    failed`` (RPC thread, lock held): see the module docstring."""
    node = task.node
    states.next_state(node.provision_state, 'abort', node.uuid)
    step = node.service_step
    if (
        node.provision_state == states.SERVICEWAIT
        and step
        and not step.get('abortable')
    ):
        node.driver_internal_info[ABORT_AFTER_KEY] = True
        task.save()
        LOG.info(
            'Node %s: service step %s is not abortable; servicing '
            'will be aborted when it finishes',
            node.uuid,
            step_name(step),
        )
        return
    _abort_driver_step(task)
    _abort_to_active(task)


def resume(task: Task) -> None:
    """Take over a node left in ``servicing`` by a conductor that went
    away (worker, lock held): between two steps it goes on with the
    next one; a step found interrupted is not run again (a service step
    may flash firmware: nothing says running it twice is safe), the
    node fails."""
    node = task.node
    info = node.driver_internal_info
    steps = info.get(STEPS_KEY)
    if steps is None:
        fail_servicing(
            task,
            f'The conductor servicing node {node.uuid} '
            'stopped before it recorded the requested service '
            'steps; request the servicing again',
            set_maintenance=False,
        )
        return
    if node.service_step:
        fail_servicing(
            task,
            f'Servicing of node {node.uuid} lost its '
            f'conductor during service step '
            f'{step_name(node.service_step)}; it is not run a '
            'second time',
        )
        return
    index = int(info.get(INDEX_KEY) or 0)
    LOG.info('Node %s: resuming servicing at step index %d', node.uuid, index)
    do_next_service_step(task, index)
