"""Deferred delete: the domain rules of a soft delete, ``restore`` and
``forceDelete`` (upstream Nova's, with ``reclaim_instance_interval``).

With ``[DEFAULT]reclaim_instance_interval`` > 0, DELETE /servers/{id}
soft-deletes a server that was launched and has no task under way: its
guest is powered off (task ``soft-deleting`` on its compute agent, see
:mod:`nova_lite.compute.power`) and it stays in vm_state
``soft-delete`` (status SOFT_DELETED) with its disks and its room on the
host; its project's quota no longer counts it (upstream). ``restore``
brings it back (quota checked again, powered on); ``forceDelete`` and
the conductor's reclaim (:mod:`nova_lite.conductor.reclaim`) delete it
as a DELETE does. Any other server (never launched, a task under way, a
resize to confirm) is deleted at once, as upstream does with a server
its soft delete refuses.

Each request records its instance action (``delete`` or ``restore``,
upstream's names) in the transaction that sets its task.
"""

from typing import Any

from oslo_config import cfg
from oslo_log import log as logging

from lite_common import db as lite_db
from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.common import states
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.compute_api import power as power_api
from nova_lite.db import instance_actions as actions_db
from nova_lite.db import services as service_db
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import service as service_obj

LOG = logging.getLogger(__name__)
Row = dict[str, Any]

#: The vm_states a DELETE soft-deletes (a soft-deleted server again:
#: it stays so, as upstream).
SOFT_DELETABLE = (
    states.ACTIVE,
    states.STOPPED,
    states.ERROR,
    states.PAUSED,
    states.SUSPENDED,
    states.RESCUED,
    states.SHELVED,
    states.SOFT_DELETED,
)


def enabled(conf: cfg.ConfigOpts) -> bool:
    return bool(conf.reclaim_instance_interval > 0)


def _host_up(ctx: RequestContext, conf: cfg.ConfigOpts, host: str) -> bool:
    try:
        service = service_db.service_get(
            ctx, host=host, binary=service_obj.COMPUTE_BINARY
        )
    except exception.ServiceNotFound:
        return False
    return service_obj.is_up(service, conf.service_down_time)


def soft_deletable(inst: Row) -> bool:
    """Whether a DELETE may soft-delete the server (else it deletes it at
    once)."""
    return bool(
        inst['launched_at']
        and inst['host']
        and inst['task_state'] is None
        and inst['vm_state'] in SOFT_DELETABLE
    )


class DeferredDelete:
    """Mixed into :class:`nova_lite.compute_api.moves.API` (``self.compute``
    is the compute RPC client)."""

    compute: compute_rpcapi.ComputeAPI
    conf: cfg.ConfigOpts

    def _start(
        self,
        ctx: RequestContext,
        inst: Row,
        action: str,
        values: Row,
        vm_states: tuple[str, ...],
        quota_project: str | None = None,
    ) -> None:
        try:
            actions_db.begin(
                ctx,
                inst['uuid'],
                values,
                power_api.action_values(ctx, inst, action),
                [None],
                vm_states,
                unlocked=not ctx.is_admin,
                quota_project=quota_project,
            )
        except exception.UnexpectedTaskState:
            raise power_api.conflict(ctx, inst, action) from None

    def soft_delete(self, ctx: RequestContext, inst: Row) -> bool:
        """Soft-delete the server; False (nothing done) when it is not
        :func:`soft_deletable`. Its compute agent powers it off; with
        that agent down, it is marked soft-deleted here (its guest is
        powered off when the agent restores it or reclaims it)."""
        power_api.check_lock(ctx, inst)
        if not soft_deletable(inst):
            return False
        now = lite_db.utcnow()
        up = _host_up(ctx, self.conf, inst['host'])
        values: Row = {'task_state': states.SOFT_DELETING, 'deleted_at': now}
        if not up:
            values = {
                'vm_state': states.SOFT_DELETED,
                'task_state': None,
                'deleted_at': now,
            }
        self._start(ctx, inst, 'delete', values, SOFT_DELETABLE)
        if up:
            LOG.info(
                'Soft-deleting on %s', inst['host'], instance_uuid=inst['uuid']
            )
            self.compute.soft_delete_instance(
                ctx,
                instance_obj.Instance.get_by_uuid(ctx, inst['uuid']),
                inst['host'],
            )
        else:
            LOG.warning(
                'Soft-deleted while compute %s is down: its guest '
                'is left as it is',
                inst['host'],
                instance_uuid=inst['uuid'],
            )
        return True

    def restore(self, ctx: RequestContext, inst: Row) -> None:
        """SOFT_DELETED -> ACTIVE, powered on by its compute agent (a
        cast lost with a stopped agent is finished at its start-up).
        409 unless soft-deleted with no task; 403 over quota."""
        power_api.check_lock(ctx, inst)
        if inst['vm_state'] != states.SOFT_DELETED or inst['task_state']:
            raise exception.InstanceStateConflict(
                action='restore',
                instance_uuid=inst['uuid'],
                vm_state=inst['vm_state'],
                task_state=inst['task_state'],
            )
        values: Row = {'task_state': states.RESTORING, 'deleted_at': None}
        if not inst['host']:
            values = {
                'vm_state': states.ACTIVE,
                'task_state': None,
                'deleted_at': None,
            }
        self._start(
            ctx,
            inst,
            'restore',
            values,
            (states.SOFT_DELETED,),
            quota_project=inst['project_id'],
        )
        if inst['host']:
            LOG.info(
                'Restoring on %s', inst['host'], instance_uuid=inst['uuid']
            )
            self.compute.restore_instance(
                ctx,
                instance_obj.Instance.get_by_uuid(ctx, inst['uuid']),
                inst['host'],
            )
