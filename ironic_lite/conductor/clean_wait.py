"""Cleaning while an asynchronous step runs: ``clean wait``.

A step that returned ``clean wait`` left the node in ``clean wait``,
unlocked (see :mod:`cleaning`). From there:

- the owning conductor polls the step (:func:`poll_async_step`, from
  the clean wait periodic task) or a callback continues it
  (:func:`continue_cleaning`); both process ``resume`` with the index of
  the next step and hand the node to a worker again;
- a step waiting longer than ``[conductor]clean_callback_timeout``
  fails (:func:`fail_on_timeout`);
- ``abort`` (:func:`start_abort`) ends in ``clean failed`` without
  maintenance (an operator asked for it): an abortable step is stopped
  at once through the interface's ``abort_clean_step``; a step that is
  not abortable is allowed to finish
  (``driver_internal_info['abort_after_step']``) and the node fails
  right after it.

``abort`` is accepted in ``cleaning`` too. A node between two steps
(unlocked: its conductor stopped before the next one) fails at once. A
node whose worker runs a step holds the lock, so the request is written
without it (:func:`request_abort`: ``abort_after_step``, a conditional
write at the revision read, merged by the worker's next save): an
abortable step that calls ``task.checkpoint()`` stops at its next
checkpoint, any other step finishes, and the node fails before the
next step starts (or is taken over).
"""

from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.common import states
from ironic_lite.conductor import clean_state
from ironic_lite.conductor import cleaning
from ironic_lite.conductor import flow_guard
from ironic_lite.conductor import task_manager
from ironic_lite.conductor import workers
from ironic_lite.conductor.clean_state import ABORT_AFTER_KEY
from ironic_lite.conductor.clean_state import CALLBACK_KEY
from ironic_lite.conductor.clean_state import INDEX_KEY
from ironic_lite.conductor.clean_state import fail_cleaning
from ironic_lite.conductor.clean_state import step_name
from ironic_lite.db import nodes as db_nodes
from lite_common.context import RequestContext

LOG = logging.getLogger(__name__)

Task = task_manager.Task
#: When the node's agent last heartbeated (upstream's key).
LAST_HEARTBEAT_KEY = 'agent_last_heartbeat'
#: The agent command of the running step (drivers.agent's key).
_AGENT_COMMAND_KEY = 'agent_command_id'
#: Attempts of :func:`request_abort` while the worker keeps writing.
ABORT_REQUEST_ATTEMPTS = 5


def _resume(task: Task, pool: workers.WorkerPool) -> None:
    """The asynchronous step finished: go on with the next step (or
    fail now, when an abort waited for the step)."""
    node = task.node
    info = node.driver_internal_info
    if info.get(ABORT_AFTER_KEY):
        fail_cleaning(
            task,
            f'Cleaning of node {node.uuid} aborted by '
            f'request after clean step {step_name(node.clean_step)}'
            ' finished',
            event='abort',
        )
        return
    index = int(info.get(INDEX_KEY) or 0) + 1
    info[INDEX_KEY] = index
    info.pop(clean_state.ATTEMPT_KEY, None)
    LOG.info(
        'Node %s: clean step %s done', node.uuid, step_name(node.clean_step)
    )
    node.clean_step = {}
    task.spawn_after(pool, cleaning.do_next_clean_step, index)
    task.process_event('resume')


def poll_async_step(task: Task, pool: workers.WorkerPool) -> None:
    """Ask the interface whether the step of a node in ``clean wait``
    finished (under the lock; a worker is reserved first so that a
    finished step always has one to go on)."""
    node = task.node
    step = node.clean_step
    if not step:
        # Waiting for the agent's first heartbeat: nothing to poll.
        return
    task.reserve_worker(pool)
    try:
        interface = task.interfaces[step['interface']]
        done = bool(
            node.driver_internal_info.pop(CALLBACK_KEY, False)
        ) or interface.poll_clean_step(task)
    except Exception as exc:
        LOG.exception(
            'Node %s: polling clean step %s failed', node.uuid, step_name(step)
        )
        fail_cleaning(
            task,
            f'Clean step {step_name(step)} failed on node {node.uuid}: {exc}',
        )
        return
    if done:
        _resume(task, pool)
    else:
        task.save()


def continue_cleaning(task: Task, pool: workers.WorkerPool) -> None:
    """A callback said the asynchronous step finished (``clean wait``).

    With no free worker the callback is recorded in the node instead of
    lost: the next run of the clean wait periodic task resumes the node.
    """
    if not task.node.clean_step:
        LOG.warning(
            'Node %s: a callback came while no clean step runs '
            '(the node waits for its agent); ignored',
            task.node.uuid,
        )
        return
    try:
        task.reserve_worker(pool)
    except exception.NoFreeConductorWorker:
        task.node.driver_internal_info[CALLBACK_KEY] = True
        task.save()
        LOG.warning(
            'Node %s: no free worker to continue cleaning after '
            'the callback; the clean wait periodic task will '
            'resume it',
            task.node.uuid,
        )
        return
    _resume(task, pool)


def unhold(task: Task, pool: workers.WorkerPool) -> None:
    """``unhold`` a node in ``clean hold`` (RPC thread, lock held): the
    hold step is done, cleaning goes on with the next step.

    :raises NoFreeConductorWorker: nothing changed.
    """
    task.reserve_worker(pool)
    task.process_event('unhold')
    _resume(task, pool)


def _timeout_message(task: Task) -> str:
    node = task.node
    step = node.clean_step
    info = node.driver_internal_info
    where = f'Timeout reached while cleaning node {node.uuid}: '
    limit = (
        f'within {task.conf.conductor.clean_callback_timeout} '
        'seconds ([conductor]clean_callback_timeout)'
    )
    if not step:
        return (
            f'{where}its agent did not heartbeat {limit} of the boot '
            'for cleaning'
        )
    if _AGENT_COMMAND_KEY not in info:
        return f'{where}clean step {step_name(step)} did not finish {limit}'
    last = info.get(LAST_HEARTBEAT_KEY)
    return (
        f'{where}clean step {step_name(step)} runs on the agent, '
        f'which did not heartbeat {limit} (last heartbeat: '
        f'{last or "never"})'
    )


def fail_on_timeout(task: Task) -> None:
    """The node waited in ``clean wait`` longer than
    ``[conductor]clean_callback_timeout`` (since it entered it or, with
    an agent, since the agent's last heartbeat)."""
    message = _timeout_message(task)
    _abort_driver_step(task)
    fail_cleaning(task, message)


def _abort_driver_step(task: Task) -> None:
    step = task.node.clean_step
    if not step or not step.get('abortable'):
        return
    try:
        task.interfaces[step['interface']].abort_clean_step(task)
    except Exception:
        LOG.exception(
            'Node %s: aborting clean step %s failed; the node fails anyway',
            task.node.uuid,
            step_name(step),
        )


def start_abort(task: Task, pool: workers.WorkerPool) -> None:
    """Validate an ``abort`` request (RPC thread, lock held) and start it.

    :raises InvalidStateRequested: not in cleaning, clean wait or clean
        hold.
    """
    node = task.node
    states.next_state(node.provision_state, 'abort', node.uuid)
    step = node.clean_step
    if (
        node.provision_state == states.CLEANWAIT
        and step
        and not step.get('abortable')
    ):
        node.driver_internal_info[ABORT_AFTER_KEY] = True
        task.save()
        LOG.info(
            'Node %s: clean step %s is not abortable; cleaning will '
            'be aborted when it finishes',
            node.uuid,
            step_name(step),
        )
        return
    task.spawn_after(pool, do_node_clean_abort)


def request_abort(context: RequestContext, node_uuid: str) -> bool:
    """Ask the worker cleaning a locked node in ``cleaning`` to abort
    (see the module docstring); RPC thread, without the lock.

    :returns: False when the node is no longer locked in ``cleaning``
        (the caller tries the lock again).
    """
    for _attempt in range(ABORT_REQUEST_ATTEMPTS):
        row = db_nodes.node_get(context, node_uuid)
        if (
            row['provision_state'] != states.CLEANING
            or row['reservation'] is None
        ):
            return False
        info = dict(row['driver_internal_info'] or {})
        info[ABORT_AFTER_KEY] = True
        try:
            db_nodes.node_update(
                context,
                node_uuid,
                {'driver_internal_info': info},
                expected_revision=row['revision'],
            )
        except exception.NodeChanged:
            continue
        LOG.info(
            'Node %(node)s: abort requested while conductor %(host)s '
            'runs clean step %(step)s; it takes effect at the next '
            'step boundary (or checkpoint of an abortable step)',
            {
                'node': node_uuid,
                'host': row['reservation'],
                'step': step_name(row['clean_step']),
            },
        )
        return True
    raise exception.NodeLocked(node=node_uuid, host=row['reservation'])


@flow_guard.guarded('clean abort')
def do_node_clean_abort(task: Task) -> None:
    """Stop the running step and fail the node (worker, lock held)."""
    node = task.node
    step = node.clean_step
    _abort_driver_step(task)
    where = (
        f'during clean step {step_name(step)}'
        if step
        else 'between two clean steps'
    )
    fail_cleaning(
        task,
        f'Cleaning of node {node.uuid} aborted by request {where}',
        event='abort',
    )
