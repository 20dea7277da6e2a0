"""The domain rules of rescue and unrescue (upstream Nova's states,
refusals and records).

* **rescue** (an active, stopped or failed server with no task, on a
  host): the task ``rescuing`` and the action ``rescue`` are written in
  one transaction; the host's agent boots the guest from the rescue
  image with the instance's disk kept as it is, and the server is
  RESCUED (status ``RESCUE``). The password travels in the cast only.
* **unrescue** (RESCUED, no task): the task ``unrescuing`` and the
  action ``unrescue``; the agent boots the guest from its own disk
  again and the server is ACTIVE.

A locked server is a 409 for anyone but an administrator. While
RESCUED a server can be unrescued, deleted (or soft deleted), locked
and reset; everything else (reboot, stop, moves, evacuation, shelve,
snapshots) is refused by its own rule, as upstream. The agent's part
is :mod:`nova_lite.compute.rescue`.
"""

from typing import Any

from oslo_log import log as logging

from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.common import states
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.compute_api import power as power_api
from nova_lite.db import instance_actions as actions_db
from nova_lite.objects import instance as instance_obj

LOG = logging.getLogger(__name__)
Row = dict[str, Any]

RESCUABLE = (states.ACTIVE, states.STOPPED, states.ERROR)
UNRESCUABLE = (states.RESCUED,)


def check(
    ctx: RequestContext, inst: Row, action: str, vm_states: tuple[str, ...]
) -> None:
    """409 for a locked server (non-admins), one in another state or
    with a task, or one on no host."""
    power_api.check_lock(ctx, inst)
    if inst['vm_state'] not in vm_states or inst['task_state'] is not None:
        raise exception.InstanceStateConflict(
            action=action,
            instance_uuid=inst['uuid'],
            vm_state=inst['vm_state'],
            task_state=inst['task_state'],
        )
    if not inst['host']:
        raise exception.InstanceNotReady(instance_id=inst['uuid'])


def _begin(
    ctx: RequestContext,
    inst: Row,
    action: str,
    task: str,
    vm_states: tuple[str, ...],
) -> Any:
    """The task and the action record, while the server is still as
    checked (two requests cannot both start)."""
    check(ctx, inst, action, vm_states)
    try:
        actions_db.begin(
            ctx,
            inst['uuid'],
            {'task_state': task},
            power_api.action_values(ctx, inst, action),
            [None],
            vm_states,
            unlocked=not ctx.is_admin,
        )
    except exception.UnexpectedTaskState:
        raise power_api.conflict(ctx, inst, action) from None
    return instance_obj.Instance.get_by_uuid(ctx, inst['uuid'])


class RescueActions:
    """Mixed into :class:`nova_lite.compute_api.moves.API` (``self.compute``
    is the compute RPC client)."""

    compute: compute_rpcapi.ComputeAPI

    @staticmethod
    def check_rescuable(ctx: RequestContext, inst: Row) -> None:
        """The state checks of a rescue, before its image is looked at
        (upstream's order: 409s before the 400 of a bad image)."""
        check(ctx, inst, 'rescue', RESCUABLE)

    def rescue(
        self,
        ctx: RequestContext,
        inst: Row,
        password: str,
        image_ref: str | None,
    ) -> None:
        """``image_ref``: a rescue image the caller checked (None: the
        server's own image)."""
        instance = _begin(ctx, inst, 'rescue', states.RESCUING, RESCUABLE)
        LOG.info(
            'Rescuing on %s with image %s',
            inst['host'],
            image_ref or 'of the server',
            instance_uuid=inst['uuid'],
        )
        self.compute.rescue_instance(
            ctx, instance, password, image_ref, inst['host']
        )

    def unrescue(self, ctx: RequestContext, inst: Row) -> None:
        instance = _begin(
            ctx, inst, 'unrescue', states.UNRESCUING, UNRESCUABLE
        )
        LOG.info('Unrescuing on %s', inst['host'], instance_uuid=inst['uuid'])
        self.compute.unrescue_instance(ctx, instance, inst['host'])
