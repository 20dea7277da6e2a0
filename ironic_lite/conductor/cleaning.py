"""Cleaning: running a node's clean steps, one after the other.

The flow, always under the node lock and on a worker thread:

1. The manager validates the request, reserves a worker and processes
   ``provide`` / ``clean`` (or the tear down processes ``clean``): the
   node is in ``cleaning`` with the target ``available`` (automated) or
   ``manageable`` (manual). :func:`do_node_clean` computes the steps
   (:func:`steps.automated_steps`, or the manual steps validated by the
   manager) and stores them in ``driver_internal_info['clean_steps']``.
   Automated cleaning disabled (``[conductor]automated_clean``, or the
   node's own ``automated_clean`` when not None) runs no step.
2. :func:`do_next_clean_step` runs the steps from an index on. Before a
   step runs, ``node.clean_step`` holds it and
   ``driver_internal_info['clean_step_index']`` its index (both visible
   in the API). Clean steps are idempotent by contract, so a step whose
   conductor died is simply run again by the conductor that takes the
   node over (see :mod:`periodics`). A conductor that stops lets the
   running step finish and leaves the node in ``cleaning``, unlocked,
   before the next one: it is resumed from there the same way.
3. A step returning ``clean wait`` leaves the node in ``clean wait``
   (event ``wait``) and the worker returns, releasing the lock; polls,
   callbacks, the callback timeout and abort are in :mod:`clean_wait`.
4. When every step ran, ``clean_step`` is cleared, the step list and
   index are removed and the node ends where the target says
   (:func:`states.clean_done_event`).

A failing step leaves the node in ``clean failed`` with ``last_error``
naming the step and the reason, and, as upstream Ironic does, in
maintenance with the fault ``clean failure``; the node is not powered
off. The maintenance flag stays until the operator unsets it (a new
cleaning does not clear it); ``manage`` then ``provide`` or ``clean``
recovers the node.

``abort`` (from ``clean wait`` or ``clean hold``) ends in ``clean
failed`` too, without maintenance (see :mod:`clean_wait`).
"""

from typing import Any

from oslo_log import log as logging

from ironic_lite.common import states
from ironic_lite.conductor import steps as conductor_steps
from ironic_lite.conductor import task_manager

LOG = logging.getLogger(__name__)

STEPS_KEY = 'clean_steps'
INDEX_KEY = 'clean_step_index'
ABORT_AFTER_KEY = 'abort_after_step'
#: A callback came while no worker was free: the next poll resumes.
CALLBACK_KEY = 'clean_callback_received'
#: driver_internal_info keys of a running cleaning (removed at its end).
CLEANING_KEYS = (STEPS_KEY, INDEX_KEY, ABORT_AFTER_KEY, CALLBACK_KEY)
#: ``node.fault`` of a node a clean step failed on.
CLEAN_FAILURE = 'clean failure'

Task = task_manager.Task


def step_name(step: dict[str, Any] | None) -> str:
    """``interface.step`` of a step dict, or ``none``."""
    if not step:
        return 'none'
    return f'{step.get("interface")}.{step.get("step")}'


def automated_clean_enabled(task: Task) -> bool:
    """The node's own ``automated_clean`` when set, else the option."""
    if task.node.automated_clean is not None:
        return bool(task.node.automated_clean)
    return bool(task.conf.conductor.automated_clean)


def _wipe_cleaning_info(task: Task) -> None:
    info = task.node.driver_internal_info
    for key in CLEANING_KEYS:
        info.pop(key, None)
    task.node.clean_step = {}


def do_node_clean(task: Task,
                  clean_steps: list[dict[str, Any]] | None = None) -> None:
    """Clean a node in ``cleaning`` (on a worker, under the lock).

    :param clean_steps: the validated manual steps; None for automated
        cleaning.
    """
    node = task.node
    if clean_steps is None and not automated_clean_enabled(task):
        LOG.info('Automated cleaning is disabled for node %s; skipping '
                 'it', node.uuid)
        _finish(task)
        return
    try:
        for interface in task.interfaces.values():
            interface.validate(task)
        if clean_steps is None:
            clean_steps = conductor_steps.automated_steps(
                task, task.interfaces, task.conf)
    except Exception as exc:
        fail_cleaning(task, f'Cannot prepare the cleaning of node '
                      f'{node.uuid}: {exc}')
        return
    _wipe_cleaning_info(task)
    node.driver_internal_info[STEPS_KEY] = clean_steps
    task.save()
    LOG.info('%s cleaning of node %s starts with steps: %s',
             'Automated' if node.target_provision_state ==
             states.AVAILABLE else 'Manual', node.uuid,
             ', '.join(step_name(s) for s in clean_steps) or 'none')
    do_next_clean_step(task, 0)


def do_next_clean_step(task: Task, start: int) -> None:
    """Run the clean steps from index ``start`` on (worker, lock held).

    Stops at a step that goes on asynchronously (node in ``clean
    wait``) or fails (node in ``clean failed``); finishes cleaning after
    the last step.
    """
    node = task.node
    clean_steps = node.driver_internal_info.get(STEPS_KEY) or []
    for index in range(start, len(clean_steps)):
        if task.stopping:
            _leave_for_resumption(task, index)
            return
        step = clean_steps[index]
        node.clean_step = step
        node.driver_internal_info[INDEX_KEY] = index
        task.save()
        if conductor_steps.is_hold(step):
            task.process_event('hold')
            LOG.info('Node %s: held in "clean hold" by clean step %s (%d '
                     'of %d) until "unhold" or "abort"', node.uuid,
                     step_name(step), index + 1, len(clean_steps))
            return
        LOG.info('Node %s: running clean step %s (%d of %d)', node.uuid,
                 step_name(step), index + 1, len(clean_steps))
        try:
            interface = task.interfaces[step['interface']]
            result = interface.execute_clean_step(task, step)
        except Exception as exc:
            LOG.exception('Node %s: clean step %s failed', node.uuid,
                          step_name(step))
            fail_cleaning(task, f'Clean step {step_name(step)} failed on '
                          f'node {node.uuid}: {exc}')
            return
        if result == states.CLEANWAIT:
            LOG.info('Node %s: clean step %s goes on asynchronously',
                     node.uuid, step_name(step))
            task.process_event('wait')
            return
        task.save()
        LOG.info('Node %s: clean step %s done', node.uuid, step_name(step))
    _finish(task)


def _leave_for_resumption(task: Task, index: int) -> None:
    """The conductor is stopping: leave the node in ``cleaning``, step
    ``index`` next, for the conductor that takes it over (or this one
    after a restart) to resume (the lock goes when the worker returns)."""
    node = task.node
    node.clean_step = {}
    node.driver_internal_info[INDEX_KEY] = index
    task.save()
    LOG.info('Node %s: the conductor is stopping; cleaning stops before '
             'step %d (%s) and will be resumed from there', node.uuid,
             index + 1, step_name(node.driver_internal_info[STEPS_KEY][index]))


def _finish(task: Task) -> None:
    node = task.node
    try:
        event = states.clean_done_event(node.target_provision_state)
    except Exception as exc:
        fail_cleaning(task, str(exc))
        return
    _wipe_cleaning_info(task)
    task.process_event(event)
    LOG.info('Cleaning of node %s finished', node.uuid)


def fail_cleaning(task: Task, message: str, event: str = 'fail',
                  set_maintenance: bool = True) -> None:
    """Put the node in ``clean failed`` with ``message`` in last_error.

    When a step was running and ``set_maintenance``, the node also goes
    into maintenance with the fault ``clean failure``.
    """
    node = task.node
    LOG.error('Cleaning of node %s failed: %s', node.uuid, message)
    values: dict[str, Any] = {'last_error': message}
    if node.clean_step and set_maintenance:
        values.update(maintenance=True, maintenance_reason=message,
                      fault=CLEAN_FAILURE)
    _wipe_cleaning_info(task)
    if node.provision_state == states.CLEANFAIL:
        task.update(**values)
    else:
        task.process_event(event, **values)
