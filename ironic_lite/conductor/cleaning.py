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
   node over (see :mod:`periodics`).
3. A step returning ``clean wait`` leaves the node in ``clean wait``
   (event ``wait``) and the worker returns, releasing the lock. The
   owning conductor polls the step (:func:`poll_async_step`) or a
   callback continues it (:func:`continue_cleaning`); both process
   ``resume`` with the index of the next step and hand the node to a
   worker again. A step waiting longer than
   ``[conductor]clean_callback_timeout`` fails (:func:`fail_on_timeout`).
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
failed`` too, without maintenance (an operator asked for it): an
abortable step is stopped at once through the interface's
``abort_clean_step``; a step that is not abortable is allowed to finish
(``driver_internal_info['abort_after_step']``) and the node fails right
after it.
"""

from typing import Any

from oslo_log import log as logging

from ironic_lite.common import states
from ironic_lite.conductor import steps as conductor_steps
from ironic_lite.conductor import task_manager
from ironic_lite.conductor import workers

LOG = logging.getLogger(__name__)

STEPS_KEY = 'clean_steps'
INDEX_KEY = 'clean_step_index'
ABORT_AFTER_KEY = 'abort_after_step'
#: driver_internal_info keys of a running cleaning (removed at its end).
CLEANING_KEYS = (STEPS_KEY, INDEX_KEY, ABORT_AFTER_KEY)
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
        step = clean_steps[index]
        node.clean_step = step
        node.driver_internal_info[INDEX_KEY] = index
        task.save()
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


# -- asynchronous steps: polling, callbacks, timeouts, abort

def _resume(task: Task, pool: workers.WorkerPool) -> None:
    """The asynchronous step finished: go on with the next step (or
    fail now, when an abort waited for the step)."""
    node = task.node
    info = node.driver_internal_info
    if info.get(ABORT_AFTER_KEY):
        fail_cleaning(task, f'Cleaning of node {node.uuid} aborted by '
                      f'request after clean step {step_name(node.clean_step)}'
                      ' finished', event='abort', set_maintenance=False)
        return
    index = int(info.get(INDEX_KEY) or 0) + 1
    info[INDEX_KEY] = index
    LOG.info('Node %s: clean step %s done', node.uuid,
             step_name(node.clean_step))
    node.clean_step = {}
    task.spawn_after(pool, do_next_clean_step, index)
    task.process_event('resume')


def poll_async_step(task: Task, pool: workers.WorkerPool) -> None:
    """Ask the interface whether the step of a node in ``clean wait``
    finished (under the lock; a worker is reserved first so that a
    finished step always has one to go on)."""
    node = task.node
    step = node.clean_step
    task.reserve_worker(pool)
    try:
        interface = task.interfaces[step['interface']]
        done = interface.poll_clean_step(task)
    except Exception as exc:
        LOG.exception('Node %s: polling clean step %s failed', node.uuid,
                      step_name(step))
        fail_cleaning(task, f'Clean step {step_name(step)} failed on '
                      f'node {node.uuid}: {exc}')
        return
    if done:
        _resume(task, pool)
    else:
        task.save()


def continue_cleaning(task: Task, pool: workers.WorkerPool) -> None:
    """A callback said the asynchronous step finished (``clean wait``)."""
    task.reserve_worker(pool)
    _resume(task, pool)


def fail_on_timeout(task: Task) -> None:
    """The node waited in ``clean wait`` longer than
    ``[conductor]clean_callback_timeout``."""
    node = task.node
    step = node.clean_step
    _abort_driver_step(task)
    fail_cleaning(task, f'Timeout reached while cleaning node {node.uuid}: '
                  f'clean step {step_name(step)} did not finish within '
                  f'{task.conf.conductor.clean_callback_timeout} seconds '
                  '([conductor]clean_callback_timeout)')


def _abort_driver_step(task: Task) -> None:
    step = task.node.clean_step
    if not step or not step.get('abortable'):
        return
    try:
        task.interfaces[step['interface']].abort_clean_step(task)
    except Exception:
        LOG.exception('Node %s: aborting clean step %s failed; the node '
                      'fails anyway', task.node.uuid, step_name(step))


def start_abort(task: Task, pool: workers.WorkerPool) -> None:
    """Validate an ``abort`` request (RPC thread, lock held) and start it.

    :raises InvalidStateRequested: not in clean wait or clean hold.
    """
    node = task.node
    states.next_state(node.provision_state, 'abort', node.uuid)
    step = node.clean_step
    if (node.provision_state == states.CLEANWAIT and step
            and not step.get('abortable')):
        node.driver_internal_info[ABORT_AFTER_KEY] = True
        task.save()
        LOG.info('Node %s: clean step %s is not abortable; cleaning will '
                 'be aborted when it finishes', node.uuid, step_name(step))
        return
    task.spawn_after(pool, do_node_clean_abort)


def do_node_clean_abort(task: Task) -> None:
    """Stop the running step and fail the node (worker, lock held)."""
    node = task.node
    step = node.clean_step
    _abort_driver_step(task)
    fail_cleaning(task, f'Cleaning of node {node.uuid} aborted by request '
                  f'during clean step {step_name(step)}', event='abort',
                  set_maintenance=False)
