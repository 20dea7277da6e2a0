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
   step runs, ``node.clean_step`` holds it,
   ``driver_internal_info['clean_step_index']`` its index and
   ``clean_step_attempt`` how many times it was started (all visible in
   the API); once it is done, ``clean_step`` is emptied and the index
   moves to the next step, in one save. So a node found in ``cleaning``
   with ``clean_step`` set lost its conductor during that step
   (:mod:`provisioning` decides whether it may run again), and one with
   ``clean_step`` empty between two steps.
3. Before each step the flow stops when an abort was requested (the
   node fails, ``abort``) or when the conductor is stopping: the node
   stays in ``cleaning``, unlocked, with the index of its next step, and
   the conductor that owns it then resumes it. An abortable step that
   calls ``task.checkpoint()`` stops at once on an abort.
4. A step returning ``clean wait`` leaves the node in ``clean wait``
   (event ``wait``) and the worker returns, releasing the lock; polls,
   callbacks, the callback timeout and abort are in :mod:`clean_wait`.
5. When every step ran, the cleaning keys are removed and the node ends
   where the target says (:func:`states.clean_done_event`).

A step (or the boot for cleaning, or its tear down) that waits for a
BMC that does not answer when the conductor stops is interrupted, not
failed: the stop ends the BMC retries at once
(:mod:`ironic_lite.common.stopping`) and the node stays in ``cleaning``
as if its conductor had died there.

A failing step leaves the node in ``clean failed`` with ``last_error``
naming the step and the reason, and, as upstream Ironic does, in
maintenance with the fault ``clean failure``
(:func:`clean_state.sets_maintenance`: one rule for every failure);
the node is not powered off. The maintenance flag stays until the
operator unsets it (a new cleaning does not clear it); ``manage`` then
``provide`` or ``clean`` recovers the node. Any other error ends the
same way (:mod:`flow_guard`).
"""

import time
from typing import Any

from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite import metrics as ironic_metrics
from ironic_lite.common import states
from ironic_lite.conductor import clean_state
from ironic_lite.conductor import flow_guard
from ironic_lite.conductor import history
from ironic_lite.conductor import node_cache
from ironic_lite.conductor import steps as conductor_steps
from ironic_lite.conductor import task_manager
from ironic_lite.conductor.clean_state import ABORT_AFTER_KEY
from ironic_lite.conductor.clean_state import ATTEMPT_KEY
from ironic_lite.conductor.clean_state import INDEX_KEY
from ironic_lite.conductor.clean_state import STEPS_KEY
from ironic_lite.conductor.clean_state import fail_cleaning
from ironic_lite.conductor.clean_state import step_name
from ironic_lite.drivers import base

LOG = logging.getLogger(__name__)

Task = task_manager.Task
#: What :func:`_run_step` returns for a step the conductor's stop cut.
INTERRUPTED = 'interrupted'


def _deploy(task: Task) -> base.DeployInterface:
    deploy = task.interfaces['deploy']
    assert isinstance(deploy, base.DeployInterface)
    return deploy


def automated_clean_enabled(task: Task) -> bool:
    """The node's own ``automated_clean`` when set, else the option."""
    if task.node.automated_clean is not None:
        return bool(task.node.automated_clean)
    return bool(task.conf.conductor.automated_clean)


def _flow(task: Task) -> str:
    """Upstream's name of the cleaning flow of the node."""
    if task.node.target_provision_state == states.AVAILABLE:
        return history.AUTOMATED_CLEANING
    return history.MANUAL_CLEANING


def _validate_interfaces(task: Task) -> None:
    """Validate the node's interfaces; a ``no-*`` one (it refuses with
    UnsupportedDriverExtension: no-console, no-raid ...) is one the node
    does without, and no reason not to clean (a step on it fails)."""
    for interface in task.interfaces.values():
        try:
            interface.validate(task)
        except exception.UnsupportedDriverExtension:
            continue


@flow_guard.guarded('cleaning')
def do_node_clean(
    task: Task, clean_steps: list[dict[str, Any]] | None = None
) -> None:
    """Clean a node in ``cleaning`` (on a worker, under the lock).

    :param clean_steps: the validated manual steps; None for automated
        cleaning.
    """
    node = task.node
    if clean_steps is None and not automated_clean_enabled(task):
        LOG.info(
            'Automated cleaning is disabled for node %s; skipping it',
            node.uuid,
        )
        _finish(task)
        return
    try:
        _validate_interfaces(task)
    except Exception as exc:
        fail_cleaning(
            task, f'Cannot prepare the cleaning of node {node.uuid}: {exc}'
        )
        return
    clean_state.wipe_cleaning_info(task)
    if _waits_for_agent(task, clean_steps):
        return
    try:
        if clean_steps is None:
            clean_steps = conductor_steps.automated_steps(
                task, task.interfaces, task.conf
            )
    except Exception as exc:
        fail_cleaning(
            task, f'Cannot prepare the cleaning of node {node.uuid}: {exc}'
        )
        return
    record_steps(task, clean_steps)
    do_next_clean_step(task, 0)


def _waits_for_agent(
    task: Task, clean_steps: list[dict[str, Any]] | None
) -> bool:
    """Let the deploy interface boot what runs the steps; True when
    the node now waits in ``clean wait`` for its agent (the requested
    manual steps kept for then), or failed."""
    node = task.node
    try:
        result = _deploy(task).prepare_cleaning(task)
    except exception.BMCCallStopped as exc:
        _left_for_resumption(task, 'preparing cleaning', exc)
        return True
    except Exception as exc:
        LOG.exception('Node %s: preparing cleaning failed', node.uuid)
        fail_cleaning(
            task, f'Failed to prepare node {node.uuid} for cleaning: {exc}'
        )
        return True
    if result != states.CLEANWAIT:
        return False
    if clean_steps is not None:
        node.driver_internal_info[STEPS_KEY] = clean_steps
    task.process_event('wait')
    LOG.info(
        'Node %s: waiting in clean wait for its agent to heartbeat', node.uuid
    )
    return True


def record_steps(task: Task, clean_steps: list[dict[str, Any]]) -> None:
    """Store the steps of the cleaning that starts (and save)."""
    node = task.node
    node.driver_internal_info[STEPS_KEY] = clean_steps
    node.driver_internal_info[INDEX_KEY] = 0
    task.save()
    node_cache.update_cache(task)
    history.record_flow(task, _flow(task), clean_steps, 'start')
    LOG.info(
        '%s cleaning of node %s starts with steps: %s',
        'Automated'
        if node.target_provision_state == states.AVAILABLE
        else 'Manual',
        node.uuid,
        ', '.join(step_name(s) for s in clean_steps) or 'none',
    )


def _aborted(task: Task, where: str) -> bool:
    """Whether an abort was requested: then the node fails (``abort``,
    without maintenance: an operator asked for it)."""
    node = task.node
    if not node.driver_internal_info.get(ABORT_AFTER_KEY):
        return False
    fail_cleaning(
        task,
        f'Cleaning of node {node.uuid} aborted by request {where}',
        event='abort',
    )
    return True


def _stop_before(task: Task, index: int) -> bool:
    """Whether cleaning stops before step ``index``: an abort was
    requested (the node fails) or the conductor is stopping (the node
    is left for its next owner)."""
    node = task.node
    step = node.driver_internal_info[STEPS_KEY][index]
    if _aborted(task, f'before clean step {step_name(step)}'):
        return True
    if task.stopping:
        LOG.info(
            'Node %s: the conductor is stopping; cleaning stops before '
            'step %d (%s) and will be resumed from there',
            node.uuid,
            index + 1,
            step_name(step),
        )
        return True
    return False


def _start_step(task: Task, index: int, step: dict[str, Any]) -> None:
    """Record that step ``index`` runs now (and how many times it was
    started): one save, before the step touches anything."""
    node = task.node
    info = node.driver_internal_info
    resumed = node.clean_step and info.get(INDEX_KEY) == index
    info[ATTEMPT_KEY] = int(info.get(ATTEMPT_KEY) or 0) + 1 if resumed else 1
    info[INDEX_KEY] = index
    node.clean_step = step
    task.save()


def _left_for_resumption(
    task: Task, what: str, error: exception.BMCCallStopped
) -> None:
    """The conductor stops while ``what`` waited for a BMC that did not
    answer: the node stays in ``cleaning``, as a conductor that died
    there leaves it, for the conductor that owns it next (a stop never
    fails a node; see :mod:`provisioning` for whether an interrupted
    step runs again)."""
    LOG.warning(
        'Node %(node)s: %(what)s interrupted: %(err)s; the node '
        'stays in cleaning for the conductor that owns it next',
        {'node': task.node.uuid, 'what': what, 'err': error},
    )


def _run_step(task: Task, step: dict[str, Any]) -> str | None:
    """Run one step; ``'failed'`` when it failed (the node is failed),
    :data:`INTERRUPTED` when the conductor stopped while it waited for
    the BMC (the node is left for resumption)."""
    node = task.node
    started = time.monotonic()
    outcome = 'failed'
    try:
        interface = task.interfaces[step['interface']]
        result = interface.execute_clean_step(task, step)
        outcome = 'async' if result == states.CLEANWAIT else 'succeeded'
        return result
    except exception.NodeNotLocked:
        outcome = 'interrupted'
        raise
    except exception.BMCCallStopped as exc:
        outcome = 'interrupted'
        _left_for_resumption(task, f'clean step {step_name(step)}', exc)
        return INTERRUPTED
    except exception.CleanStepAborted:
        outcome = 'aborted'
        fail_cleaning(
            task,
            f'Cleaning of node {node.uuid} aborted by '
            f'request during clean step {step_name(step)}',
            event='abort',
        )
    except Exception as exc:
        LOG.exception(
            'Node %s: clean step %s failed', node.uuid, step_name(step)
        )
        history.record_flow(
            task,
            _flow(task),
            node.driver_internal_info.get(STEPS_KEY, []),
            'end',
            aborted_step=step.get('step'),
        )
        fail_cleaning(
            task,
            f'Clean step {step_name(step)} failed on node {node.uuid}: {exc}',
        )
    finally:
        ironic_metrics.clean_step_done(
            step_name(step), outcome, time.monotonic() - started
        )
    return 'failed'


@flow_guard.guarded('cleaning')
def do_next_clean_step(task: Task, start: int) -> None:
    """Run the clean steps from index ``start`` on (worker, lock held).

    Stops at a step that goes on asynchronously (node in ``clean
    wait``), fails (node in ``clean failed``) or holds; finishes
    cleaning after the last step.
    """
    node = task.node
    clean_steps = node.driver_internal_info.get(STEPS_KEY) or []
    for index in range(start, len(clean_steps)):
        if _stop_before(task, index):
            return
        step = clean_steps[index]
        _start_step(task, index, step)
        if conductor_steps.is_hold(step):
            task.process_event('hold')
            LOG.info(
                'Node %s: held in "clean hold" by clean step %s (%d '
                'of %d) until "unhold" or "abort"',
                node.uuid,
                step_name(step),
                index + 1,
                len(clean_steps),
            )
            return
        LOG.info(
            'Node %s: running clean step %s (%d of %d, attempt %d)',
            node.uuid,
            step_name(step),
            index + 1,
            len(clean_steps),
            node.driver_internal_info[ATTEMPT_KEY],
        )
        result = _run_step(task, step)
        if result in ('failed', INTERRUPTED):
            return
        if result == states.CLEANWAIT:
            LOG.info(
                'Node %s: clean step %s goes on asynchronously',
                node.uuid,
                step_name(step),
            )
            task.process_event('wait')
            return
        node.clean_step = {}
        node.driver_internal_info[INDEX_KEY] = index + 1
        node.driver_internal_info.pop(ATTEMPT_KEY, None)
        task.save()
        LOG.info('Node %s: clean step %s done', node.uuid, step_name(step))
    if not _aborted(task, 'after its last clean step'):
        _finish(task)


def _finish(task: Task) -> None:
    node = task.node
    try:
        event = states.clean_done_event(node.target_provision_state)
    except Exception as exc:
        fail_cleaning(task, str(exc))
        return
    if STEPS_KEY in node.driver_internal_info:
        try:
            _deploy(task).tear_down_cleaning(task)
        except exception.BMCCallStopped as exc:
            _left_for_resumption(task, 'tearing down cleaning', exc)
            return
        except Exception as exc:
            fail_cleaning(
                task,
                f'Failed to tear down the cleaning of node {node.uuid}: {exc}',
            )
            return
        node_cache.update_cache(task)
        history.record_flow(
            task, _flow(task), node.driver_internal_info[STEPS_KEY], 'end'
        )
    if event == 'done' and node.retired:
        # A retired node is not made available again (upstream's rule).
        event = states.MANUAL_CLEAN_DONE
    clean_state.wipe_cleaning_info(task)
    task.process_event(event)
    clean_state.drop_late_abort(task)
    LOG.info('Cleaning of node %s finished', node.uuid)
