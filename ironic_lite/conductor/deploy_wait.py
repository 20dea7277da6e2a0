"""A deployment waiting for an asynchronous deploy step: ``wait
call-back``.

A deploy step that returned ``wait call-back`` (``states.DEPLOYWAIT``)
left the node in that state, unlocked (see
:func:`provisioning.do_next_deploy_step`). From there:

- the owning conductor polls the step (:func:`poll_async_step`, from
  the deploy wait periodic task); once it finished the node goes back
  to ``deploying`` and the next step runs on a worker;
- a step waiting longer than ``[conductor]deploy_callback_timeout``
  fails the deployment (:func:`fail_on_timeout`);
- ``abort`` (API 1.110, :func:`start_abort`) ends in ``deploy failed``
  with upstream's "By request, the deploy operation was aborted ...":
  an abortable step (``@deploy_step(..., abortable=True)``) is stopped
  at once through the interface's ``abort_deploy_step``; any other step
  is allowed to finish (``deploy_step['abort_after']``, as upstream) and
  the deployment ends right after it, before the next step;
- ``deleted`` (undeploy) stops an abortable step and tears the node
  down (:func:`stop_for_undeploy`).

The node keeps, in ``driver_internal_info``, the list of its steps and
the index of the one it waits for (:mod:`deploy_steps`), so that a
conductor that takes the node over (its owner died) polls and goes on
exactly where the first one stopped: a step is never run twice.
"""

from oslo_log import log as logging

from ironic_lite.common import states
from ironic_lite.conductor import deploy_steps
from ironic_lite.conductor import history
from ironic_lite.conductor import provisioning
from ironic_lite.conductor import task_manager
from ironic_lite.conductor import workers

LOG = logging.getLogger(__name__)

Task = task_manager.Task
#: Set in ``node.deploy_step`` when an abort waits for the step (the
#: key upstream uses, shown by the API as upstream's).
ABORT_AFTER = 'abort_after'


def _step_name(task: Task) -> str:
    step = task.node.deploy_step
    return deploy_steps.step_id(step) if step else 'none'


def step_finished(task: Task) -> bool:
    """Whether the step a node waits for finished (raises when it
    failed). Safe to repeat, without the lock too."""
    step = task.node.deploy_step
    if not step:
        return True
    return bool(task.interfaces[step['interface']].poll_deploy_step(task))


def _aborted(task: Task, event: str) -> None:
    """End the deployment by request, as upstream's
    ``do_node_deploy_abort``."""
    node = task.node
    message = 'By request, the deploy operation was aborted'
    if node.deploy_step:
        message += (
            f' during or after the completion of step "{_step_name(task)}"'
        )
    history.record(task, message, history.DEPLOYING)
    provisioning.forget_deploy_steps(task)
    task.process_event(event, last_error=message, target_power_state=None)
    LOG.info('Node %s: %s', node.uuid, message)


def poll_async_step(task: Task, pool: workers.WorkerPool) -> None:
    """Poll the step of a node in ``wait call-back`` (lock held; a
    worker is reserved first so that a finished step always has one)."""
    node = task.node
    task.reserve_worker(pool)
    try:
        done = step_finished(task)
    except Exception as exc:
        LOG.exception(
            'Node %s: polling deploy step %s failed',
            node.uuid,
            _step_name(task),
        )
        provisioning.fail_deploy(
            task,
            f'Failed to deploy node {node.uuid}: deploy step '
            f'{_step_name(task)} failed: {exc}',
        )
        return
    if not done:
        task.save()
        return
    if (node.deploy_step or {}).get(ABORT_AFTER):
        # Upstream's order: the step is done, the deployment fails.
        _aborted(task, 'fail')
        return
    index = int(node.driver_internal_info.get(deploy_steps.INDEX_KEY) or 0) + 1
    LOG.info('Node %s: deploy step %s done', node.uuid, _step_name(task))
    node.deploy_step = {}
    node.driver_internal_info[deploy_steps.INDEX_KEY] = index
    task.spawn_after(pool, provisioning.do_next_deploy_step, index)
    task.process_event('resume')


def fail_on_timeout(task: Task) -> None:
    """The node waited in ``wait call-back`` longer than
    ``[conductor]deploy_callback_timeout``."""
    node = task.node
    name = _step_name(task)
    _abort_driver_step(task)
    provisioning.fail_deploy(
        task,
        f'Timeout reached while waiting for callback for node '
        f'{node.uuid}: deploy step {name} did not finish within '
        f'{task.conf.conductor.deploy_callback_timeout} seconds '
        '([conductor]deploy_callback_timeout)',
    )


def _abortable(task: Task) -> bool:
    step = task.node.deploy_step
    if not step:
        return True
    interface = task.interfaces.get(step['interface'])
    return bool(
        interface is not None and interface.deploy_step_abortable(step['step'])
    )


def _abort_driver_step(task: Task) -> None:
    step = task.node.deploy_step
    if not step or not _abortable(task):
        return
    try:
        task.interfaces[step['interface']].abort_deploy_step(task)
    except Exception:
        LOG.exception(
            'Node %s: aborting deploy step %s failed; the '
            'deployment ends anyway',
            task.node.uuid,
            _step_name(task),
        )


def start_abort(task: Task) -> None:
    """``abort`` in ``wait call-back`` (RPC thread, lock held): see the
    module docstring."""
    node = task.node
    states.next_state(node.provision_state, 'abort', node.uuid)
    if not _abortable(task):
        if not node.deploy_step.get(ABORT_AFTER):
            node.deploy_step = {**node.deploy_step, ABORT_AFTER: True}
            task.save()
        LOG.info(
            'Node %s: deploy step %s is not abortable; the '
            'deployment will be aborted when it finishes',
            node.uuid,
            _step_name(task),
        )
        return
    _abort_driver_step(task)
    _aborted(task, 'abort')


def stop_for_undeploy(task: Task) -> None:
    """``deleted`` in ``wait call-back`` (lock held): the step stops
    (when it may) and nothing of the deployment is left for the tear
    down that follows."""
    _abort_driver_step(task)
    provisioning.forget_deploy_steps(task)
