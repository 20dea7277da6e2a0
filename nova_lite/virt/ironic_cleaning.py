"""How the cleaning after a delete ends, told through the Compute API.

A bare metal server is gone for its tenant as soon as its node is
undeployed; the Bare Metal service then cleans the node, which may take
long and may fail. The ironic driver watches each node it undeployed
until its cleaning ends, as the event :data:`EVENT` of the server's
delete action (``openstack server event list <server>``, readable for
deleted servers from 2.21; ``GET /servers/{id}/os-instance-actions``):

* started when the node is undeployed;
* ``Success`` once the node is ``available`` again (or already serves
  another server: it passed through ``available``);
* ``Error`` when it ends ``clean failed`` (or ``error``, or anything
  else but those), with the node's ``last_error`` as the event's
  traceback (shown to administrators): the node stays out of the pool
  until an operator acts.

The watched nodes are kept in ``<state_path>/ironic-cleaning.json`` so
that a restarted agent goes on watching them. A node another agent
takes over (its agent died) is not watched there.
"""

import json
import os
from pathlib import Path
import threading
from typing import Any

from oslo_log import log as logging

from lite_common import context as lite_context
from lite_common.context import RequestContext
from nova_lite.common import states
from nova_lite.objects import instance_action

LOG = logging.getLogger(__name__)
EVENT = 'compute_clean_baremetal_node'
#: The states of a node still on its way back to the pool.
UNDER_WAY = frozenset({'deleting', 'cleaning', 'clean wait', 'clean hold'})
FAILED = frozenset({'clean failed', 'error'})
STATE_FILE = 'ironic-cleaning.json'


def outcome(node: Any, instance_uuid: str) -> tuple[str, str | None] | None:
    """(result, error) of a watched node's cleaning; None while under
    way. ``node`` None: the node no longer exists."""
    if node is None:
        return states.ACTION_ERROR, 'The bare metal node no longer exists.'
    state = node.provision_state
    if state in UNDER_WAY or (
        state == 'active' and node.instance_id == instance_uuid
    ):
        return None
    if state == 'available' or (
        node.instance_id and node.instance_id != instance_uuid
    ):
        return states.ACTION_SUCCESS, None
    how = (
        'failed'
        if state in FAILED
        else f'did not return the node to the pool (it is {state})'
    )
    return states.ACTION_ERROR, (
        f'Cleaning of bare metal node {node.id} {how}: '
        f'{node.last_error or "no error recorded"}. The node stays out of '
        'the pool until an operator fixes it ("openstack baremetal node '
        'manage", then "provide").'
    )


class CleaningWatch:
    """The nodes this agent undeployed, by node uuid -> instance uuid."""

    def __init__(self, state_path: str, host: str) -> None:
        self.path = Path(state_path) / STATE_FILE
        self.host = host
        self.watched: dict[str, str] = self._load()
        # Deletes (RPC workers) and the periodic report (check) meet
        # here.
        self._lock = threading.Lock()

    def _load(self) -> dict[str, str]:
        try:
            return dict(json.loads(self.path.read_text()))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            LOG.warning(
                'Cannot read %s (%s): the cleaning of the nodes it '
                'named is no longer watched',
                self.path,
                exc,
            )
            return {}

    def _save(self) -> None:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        temp = self.path.with_suffix('.tmp')
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, 'w') as out:
            json.dump(self.watched, out)
        os.replace(temp, self.path)

    def start(self, node_uuid: str, instance_uuid: str) -> None:
        """The node is being undeployed for the instance's delete."""
        with self._lock:
            self.watched[node_uuid] = instance_uuid
            self._save()
        self._record(instance_actions_start, instance_uuid)

    def check(self, nodes: dict[str, Any]) -> None:
        """Finish the events of the watched nodes whose cleaning ended
        (``nodes``: every node of the Bare Metal API, by uuid)."""
        ended: list[tuple[str, str, str, str | None]] = []
        with self._lock:
            for node_uuid, instance_uuid in list(self.watched.items()):
                result = outcome(nodes.get(node_uuid), instance_uuid)
                if result is not None:
                    del self.watched[node_uuid]
                    ended.append((node_uuid, instance_uuid, *result))
            if ended:
                self._save()
        for node_uuid, instance_uuid, status, error in ended:
            if error:
                LOG.warning('%s', error, instance_uuid=instance_uuid)
            else:
                LOG.info(
                    'Bare metal node %s is clean and available again',
                    node_uuid,
                    instance_uuid=instance_uuid,
                )
            self._record(instance_actions_finish, instance_uuid, status, error)

    def _record(self, method: Any, instance_uuid: str, *args: Any) -> None:
        try:
            method(
                lite_context.get_admin_context(),
                instance_uuid,
                self.host,
                *args,
            )
        except Exception as exc:
            LOG.warning(
                'Could not record the event %s: %s',
                EVENT,
                exc,
                instance_uuid=instance_uuid,
            )


def instance_actions_start(
    context: RequestContext, instance_uuid: str, host: str
) -> None:
    """Start the event in the instance's latest action (its delete)."""
    instance_action.InstanceActionEvent.event_start(
        context, instance_uuid, None, EVENT, host
    )


def instance_actions_finish(
    context: RequestContext,
    instance_uuid: str,
    host: str,
    result: str,
    error: str | None,
) -> None:
    instance_action.InstanceActionEvent.event_finish(
        context, instance_uuid, None, EVENT, result, error
    )
