"""What a cleaning keeps in the node, and how a cleaning fails.

While a node cleans, ``driver_internal_info`` holds:

``clean_steps``
    the whole list of steps, each as ``{'interface', 'step', 'args',
    'abortable', 'idempotent', 'priority'}``;
``clean_step_index``
    the index of the step running now (``node.clean_step`` set), or of
    the step that runs next (``node.clean_step`` empty, between steps);
``clean_step_attempt``
    how many times the step at that index was started; a step found
    interrupted is run again only while this is below
    ``[conductor]clean_step_max_attempts``, and only when idempotent;
``abort_after_step``
    an operator asked to abort (see :mod:`clean_wait`);
``clean_callback_received``
    a callback came while no worker was free.

All of them are removed when cleaning ends, however it ends.
"""

from typing import Any

from oslo_log import log as logging

from ironic_lite import metrics as ironic_metrics
from ironic_lite.common import agent_token
from ironic_lite.common import states
from ironic_lite.conductor import history
from ironic_lite.conductor import task_manager

LOG = logging.getLogger(__name__)

STEPS_KEY = 'clean_steps'
INDEX_KEY = 'clean_step_index'
ATTEMPT_KEY = 'clean_step_attempt'
ABORT_AFTER_KEY = task_manager.ABORT_KEY
#: A callback came while no worker was free: the next poll resumes.
CALLBACK_KEY = 'clean_callback_received'
#: driver_internal_info keys of a running cleaning (removed at its end).
CLEANING_KEYS = (
    STEPS_KEY,
    INDEX_KEY,
    ATTEMPT_KEY,
    ABORT_AFTER_KEY,
    CALLBACK_KEY,
)
#: ``node.fault`` of a node a clean step failed on.
CLEAN_FAILURE = 'clean failure'
#: The most characters of a failure message kept in ``last_error``.
MAX_ERROR_LENGTH = 4096
#: States a node is in while it cleans.
CLEANING_STATES = frozenset(
    {states.CLEANING, states.CLEANWAIT, states.CLEANHOLD}
)

Task = task_manager.Task


def step_name(step: dict[str, Any] | None) -> str:
    """``interface.step`` of a step dict, or ``none``."""
    if not step:
        return 'none'
    return f'{step.get("interface")}.{step.get("step")}'


def wipe_cleaning_info(task: Task) -> None:
    """Forget the cleaning and its agent (the caller saves)."""
    info = task.node.driver_internal_info
    for key in CLEANING_KEYS:
        info.pop(key, None)
    # The agent of this cleaning, if any, is not the next flow's.
    agent_token.wipe_token_and_url(info)
    task.node.clean_step = {}


def drop_late_abort(task: Task) -> None:
    """An abort requested while cleaning ended (merged into the last
    save) has nothing left to abort: remove it."""
    if task.node.driver_internal_info.pop(ABORT_AFTER_KEY, None):
        LOG.info(
            'Node %s: an abort was requested as its cleaning ended; '
            'there is nothing left to abort',
            task.node.uuid,
        )
        task.save()


def short(message: str) -> str:
    """``message`` cut to :data:`MAX_ERROR_LENGTH` characters."""
    if len(message) <= MAX_ERROR_LENGTH:
        return message
    return message[: MAX_ERROR_LENGTH - 15] + ' ... (truncated)'


def sets_maintenance(node: Any, event: str) -> bool:
    """Whether a cleaning that fails now puts the node in maintenance
    (with the fault ``clean failure``): upstream Ironic's one rule
    (``cleaning_error_handler``), for every failure, timeouts included.

    Yes when a clean step runs (``node.clean_step`` set: it started on
    the hardware, which is now in an unknown state): a step that failed,
    an asynchronous step (the agent's, a driver's, a fake one) whose
    ``clean wait`` timed out, an interrupted step not resumed. No when
    none runs: before the first step (validation, the boot for
    cleaning, an agent that never heartbeated), between two steps,
    after the last. Never for an abort: an operator asked for it.
    """
    return bool(node.clean_step) and event != 'abort'


def fail_cleaning(task: Task, message: str, event: str = 'fail') -> None:
    """Put the node in ``clean failed`` with ``message`` in last_error,
    in maintenance as :func:`sets_maintenance` says (the reason an
    operator gave earlier is kept, as upstream)."""
    node = task.node
    message = short(message)
    if node.uuid in message:
        LOG.error('%s', message)
    else:
        LOG.error('Cleaning of node %s failed: %s', node.uuid, message)
    history.record(task, message, history.CLEANING)
    values: dict[str, Any] = {'last_error': message}
    if sets_maintenance(node, event):
        values.update(maintenance=True, fault=CLEAN_FAILURE)
        if not node.maintenance_reason:
            values['maintenance_reason'] = message
    wipe_cleaning_info(task)
    if node.provision_state == states.CLEANFAIL:
        task.update(**values)
    else:
        ironic_metrics.clean_failed(event)
        if not states.has_transition(node.provision_state, event):
            event = 'fail'
        task.process_event(event, **values)
    drop_late_abort(task)
