"""The events of instance actions, as compute agents record them.

Agents have no database: :meth:`InstanceActionEvent.event_start` and
:meth:`event_finish` are remotable class methods that run on the
conductor. :func:`recorded` wraps one step of an agent or the conductor
in its event: started, then finished with ``Success`` or ``Error`` (and
the traceback, which only administrators see, and the ``details`` of
the failure: a fault-like message, as upstream's since 2.84).
"""

from collections.abc import Iterator
import contextlib
import traceback as tb
from typing import TYPE_CHECKING
from typing import Any

from oslo_log import log as logging
from oslo_versionedobjects import base as ovo_base
from oslo_versionedobjects import fields

from lite_common.context import RequestContext
from lite_common.exception import LiteException
from nova_lite import exception
from nova_lite.common import states
from nova_lite.objects import base

if TYPE_CHECKING:
    from nova_lite.db import instance_actions as db
else:
    db = base.database_module('nova_lite.db.instance_actions')

LOG = logging.getLogger(__name__)


@base.NovaLiteObjectRegistry.register
class InstanceActionEvent(base.NovaLiteObject):
    # 1.0: first version.
    # 1.1: event_finish takes the ``details`` of a failure.
    # 1.2: action_begin (an action an agent starts on its own).
    VERSION = '1.2'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'event': fields.StringField(),
        'result': fields.StringField(nullable=True),
        'host': fields.StringField(nullable=True),
    }

    @classmethod
    @ovo_base.remotable
    def event_start(
        cls,
        context: RequestContext,
        instance_uuid: str,
        request_id: str | None,
        event: str,
        host: str | None,
    ) -> None:
        db.event_start(context, instance_uuid, request_id, event, host)

    @classmethod
    @ovo_base.remotable
    def action_begin(
        cls,
        context: RequestContext,
        instance_uuid: str,
        action: str,
        task_state: str,
        vm_states: list[str],
    ) -> bool:
        """An action a compute agent starts on its own (a periodic
        task's, e.g. the unrescue of ``rescue_timeout``): the task
        ``task_state`` while the instance has no task and is in one of
        ``vm_states``, and the action record (the context's request id,
        no user: upstream's records of periodic tasks), in one
        transaction. False when the instance changed meanwhile."""
        values = {
            'action': action,
            'instance_uuid': instance_uuid,
            'request_id': request_id(context) or '-',
            'user_id': None,
            'project_id': None,
        }
        try:
            db.begin(
                context,
                instance_uuid,
                {'task_state': task_state},
                values,
                [None],
                tuple(vm_states),
            )
        except (exception.InstanceNotFound, exception.UnexpectedTaskState):
            return False
        return True

    @classmethod
    @ovo_base.remotable
    def event_finish(
        cls,
        context: RequestContext,
        instance_uuid: str,
        request_id: str | None,
        event: str,
        result: str,
        traceback: str | None,
        details: str | None = None,
    ) -> None:
        db.event_finish(
            context,
            instance_uuid,
            request_id,
            event,
            result,
            traceback,
            details,
        )


#: The longest ``details`` kept (upstream's fault message length).
DETAILS_LENGTH = 255


def failure_details(error: BaseException | str) -> str:
    """What a failed event's ``details`` say, as upstream words a fault:
    the message of one of our exceptions (written for users), else only
    the exception's class name (another message may leak the deployment's
    internals); a step's own failure message as it is; at most 255
    characters."""
    if isinstance(error, str):
        message = error
    elif isinstance(error, LiteException):
        message = error.format_message() or type(error).__name__
    else:
        message = type(error).__name__
    return message[:DETAILS_LENGTH]


def request_id(context: RequestContext) -> str | None:
    return getattr(context, 'request_id', None)


class Outcome:
    """What a recorded block may say of its end besides raising: a step
    that handles its own failure (and leaves the server in ERROR) sets
    ``error`` (a fault message, or a traceback with ``details`` the
    fault message)."""

    def __init__(self) -> None:
        self.error: str | None = None
        #: What the event's ``details`` say (default: ``error``).
        self.details: str | None = None


@contextlib.contextmanager
def recorded(
    context: RequestContext,
    instance_uuid: str,
    event: str,
    host: str | None,
    resumed: bool = False,
) -> Iterator[Outcome]:
    """Run the block as the event ``event`` of the request's action (of
    the instance's latest action when ``resumed``: a step an agent takes
    up again after a restart has no request). Recording never fails the
    step: a lost record is logged."""
    rid = None if resumed else request_id(context)
    _safely(
        InstanceActionEvent.event_start,
        context,
        instance_uuid,
        rid,
        event,
        host,
    )
    outcome = Outcome()
    try:
        yield outcome
    except Exception as exc:
        _safely(
            InstanceActionEvent.event_finish,
            context,
            instance_uuid,
            rid,
            event,
            states.ACTION_ERROR,
            tb.format_exc(),
            failure_details(exc),
        )
        raise
    if outcome.error is not None:
        _safely(
            InstanceActionEvent.event_finish,
            context,
            instance_uuid,
            rid,
            event,
            states.ACTION_ERROR,
            outcome.error,
            failure_details(outcome.details or outcome.error),
        )
    else:
        _safely(
            InstanceActionEvent.event_finish,
            context,
            instance_uuid,
            rid,
            event,
            states.ACTION_SUCCESS,
            None,
        )


def _safely(
    method: Any, context: RequestContext, instance_uuid: str, *args: Any
) -> None:
    try:
        method(context, instance_uuid, *args)
    except Exception as exc:
        LOG.warning(
            'Could not record the event %s of the action: %s',
            args[1],
            exc,
            instance_uuid=instance_uuid,
        )
