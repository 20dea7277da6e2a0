"""Every flow ends in a state an operator can act on, whatever fails.

A flow (cleaning, verify, deploy, tear down, power) handles the errors
it expects: a step that fails, a power interface that does not answer.
:func:`guarded` catches everything else that escapes it (a database
write refused, a bug) and fails the node from a fresh read, under the
lock it still holds:

- a cleaning node goes to ``clean failed`` (in maintenance when a step
  was running: the hardware is in an unknown state);
- ``verifying``, ``deploying``, ``deleting`` and ``wait call-back`` take
  their ``fail`` transition; a power change only records the error;

with ``last_error`` saying what failed. So no node is left in a
transient state unlocked, to be resumed and fail the same way again
and again. Should even that write fail (the database is away), the
node is left to the takeover periodic task, which resumes an
interrupted clean step only a bounded number of times (see
:mod:`provisioning`).

A lost lock (:class:`~ironic_lite.exception.NodeNotLocked`) is not a
failure of the node: the flow stops and the exception goes on to the
task, which forgets the node.
"""

from collections.abc import Callable
import functools
from typing import Any
from typing import TypeVar

from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.common import states
from ironic_lite.conductor import clean_state
from ironic_lite.conductor import history
from ironic_lite.conductor import task_manager

LOG = logging.getLogger(__name__)

Task = task_manager.Task
Flow = TypeVar('Flow', bound=Callable[..., None])


def fail_after_error(task: Task, what: str, error: BaseException) -> None:
    """Fail the node of ``task`` after an unexpected ``error`` of the
    flow ``what`` (lock held)."""
    node_uuid = task.node.uuid
    message = (
        f'{what} of node {node_uuid} failed on an unexpected '
        f'error: {type(error).__name__}: {error}'
    )
    try:
        task.reload()
        state = task.node.provision_state
        if state in clean_state.CLEANING_STATES:
            clean_state.fail_cleaning(task, message)
        elif states.has_transition(state, 'fail'):
            history.record(task, message, history.CONDUCTOR)
            task.process_event(
                'fail',
                last_error=clean_state.short(message),
                target_power_state=None,
            )
        else:
            history.record(task, message, history.CONDUCTOR)
            task.update(
                last_error=clean_state.short(message), target_power_state=None
            )
    except exception.NodeNotLocked as exc:
        LOG.warning(
            'Node %(node)s: not recording the failure of %(what)s: %(err)s',
            {'node': node_uuid, 'what': what, 'err': exc},
        )
    except Exception:
        LOG.exception(
            'Node %(node)s: could not record the failure of '
            '%(what)s; the takeover periodic task will handle the '
            'node',
            {'node': node_uuid, 'what': what},
        )


def guarded(what: str) -> Callable[[Flow], Flow]:
    """Decorate the flow ``flow(task, ...)`` named ``what`` (see the
    module docstring)."""

    def decorate(flow: Flow) -> Flow:
        @functools.wraps(flow)
        def run(task: Task, *args: Any) -> None:
            try:
                flow(task, *args)
            except exception.NodeNotLocked:
                raise
            except Exception as error:
                LOG.exception(
                    'Node %(node)s: unexpected error in %(what)s',
                    {'node': task.node.uuid, 'what': what},
                )
                fail_after_error(task, what, error)

        return run  # type: ignore[return-value]

    return decorate
