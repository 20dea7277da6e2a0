"""Recording the events of a node in its history, as upstream's
``node_history_record``: the text, its kind (``event_type``: cleaning,
deploying, verifying ...), ERROR or INFO, the conductor, the user and
project of the request, the provision state and target of the node and
how long it had been in that state.
"""

from typing import Any

from oslo_log import log as logging
from oslo_utils import strutils

from ironic_lite.db import node_history as db_history
from lite_common import db as lite_db

LOG = logging.getLogger(__name__)

#: Upstream's event types of the flows this conductor runs.
CLEANING = 'cleaning'
SERVICING = 'servicing'
DEPLOYING = 'deploying'
VERIFYING = 'verifying'
ADOPTING = 'adopting'
RESCUE = 'rescue'
UNRESCUE = 'unrescue'
UNPROVISION = 'unprovision'
INTROSPECTION = 'introspection'
CONDUCTOR = 'conductor'
#: The power state sync and its recovery (upstream's event type).
MONITORING = 'monitoring'
UNKNOWN = 'UNKNOWN'
#: Upstream's step flows (StepFlow) this conductor runs.
MANUAL_CLEANING = 'manual_cleaning'
AUTOMATED_CLEANING = 'automated_cleaning'


def _duration(node: Any) -> int | None:
    since = node.provision_updated_at
    if since is None or isinstance(since, str):
        return None
    return int((lite_db.utcnow() - since.replace(tzinfo=None)).total_seconds())


def record(
    task: Any, event: str, event_type: str | None = None, error: bool = True
) -> None:
    """Add ``event`` to the history of the task's node, unless
    ``[conductor]node_history`` is off. Never raises: a history that
    cannot be written must not change what happens to the node."""
    conf = task.conf.conductor
    if not event or not conf.node_history:
        return
    node = task.node
    context = task.context
    values = {
        'node_id': node.id,
        'conductor': task.host,
        'user': getattr(context, 'user_id', None),
        'project': getattr(context, 'project_id', None),
        'severity': 'ERROR' if error else 'INFO',
        'event': event,
        'event_type': event_type or UNKNOWN,
        'state': node.provision_state,
        'target_provision_state': node.target_provision_state,
        'duration_seconds': _duration(node),
    }
    try:
        db_history.record(context, values, conf.node_history_max_entries)
    except Exception:
        LOG.exception(
            'Could not record an event in the history of node %s', node.uuid
        )


def _sanitized(steps: list[dict[str, Any]]) -> list[Any]:
    return [
        dict(step, args=strutils.mask_dict_password(step['args']))
        if isinstance(step, dict) and isinstance(step.get('args'), dict)
        else step
        for step in steps
    ]


def record_flow(
    task: Any,
    flow: str,
    steps: list[dict[str, Any]],
    status: str,
    aborted_step: str | None = None,
) -> None:
    """The start or the end of a step flow (a cleaning), as upstream's
    ``log_step_flow_history``: INFO, or ERROR when it ended at a failed
    step; not with ``[conductor]record_step_flows_in_history`` off."""
    if not task.conf.conductor.record_step_flows_in_history:
        return
    shown = _sanitized(steps or [])
    words = flow.replace('_', ' ')
    if status == 'start':
        record(
            task,
            f'Starting {words} with steps={shown}',
            f'{flow}_start',
            error=False,
        )
    elif aborted_step:
        record(
            task,
            f"{words.title()} aborted at step '{aborted_step}' "
            f'with steps={shown}',
            f'{flow}_end',
            error=True,
        )
    else:
        record(
            task,
            f'{words.title()} completed successfully with steps={shown}',
            f'{flow}_end',
            error=False,
        )
