"""The domain rules of the server actions that keep a server where it
is: stop, start, reboot, pause, unpause, suspend, resume, lock and
unlock (upstream Nova's states and refusals), and the instance action
each records.

Each power action sets the instance's task state and records its action
in one transaction, conditional on the vm_state, task state and lock
that allow it (:func:`nova_lite.db.instance_actions.begin`): two
requests cannot both start, and a crash cannot leave the task without
its record. The compute agent of the instance's host then does it (the
cast is lost if the agent is down: its start-up finishes the task, see
:mod:`nova_lite.compute.power`).
"""

from typing import Any

from oslo_log import log as logging

from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.common import states
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.db import instance_actions as actions_db
from nova_lite.db import instances as instance_db
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import instance_action

LOG = logging.getLogger(__name__)
Row = dict[str, Any]

STOPPABLE = (states.ACTIVE, states.ERROR)
STARTABLE = (states.STOPPED,)
SOFT_REBOOTABLE = (states.ACTIVE,)
HARD_REBOOTABLE = (
    states.ACTIVE,
    states.STOPPED,
    states.PAUSED,
    states.SUSPENDED,
    states.ERROR,
)
#: The task states a hard reboot may take over (upstream's ALLOW_REBOOT,
#: of those this project has).
HARD_REBOOT_OVER: list[str | None] = [
    None,
    states.REBOOTING,
    states.REBOOTING_HARD,
]


def action_values(ctx: RequestContext, inst: Row, action: str) -> Row:
    """The instance action record of this request."""
    return {
        'action': action,
        'instance_uuid': inst['uuid'],
        'request_id': instance_action.request_id(ctx) or '-',
        'user_id': ctx.user_id,
        'project_id': ctx.project_id,
    }


def check_lock(ctx: RequestContext, inst: Row) -> None:
    """Only administrators act on a locked server (409 otherwise)."""
    if inst.get('locked') and not ctx.is_admin:
        raise exception.InstanceIsLocked(instance_uuid=inst['uuid'])


def _check_host(inst: Row) -> None:
    if not inst['host']:
        raise exception.InstanceNotReady(instance_id=inst['uuid'])


def conflict(
    ctx: RequestContext, inst: Row, action: str
) -> exception.Conflict:
    """Why ``action`` cannot start, from the instance as it is now."""
    try:
        now = instance_db.instance_get_by_uuid(ctx, inst['uuid'])
    except exception.InstanceNotFound:
        return exception.InstanceStateConflict(
            action=action,
            instance_uuid=inst['uuid'],
            vm_state='deleted',
            task_state=None,
        )
    if now.get('locked') and not ctx.is_admin:
        return exception.InstanceIsLocked(instance_uuid=inst['uuid'])
    return exception.InstanceStateConflict(
        action=action,
        instance_uuid=inst['uuid'],
        vm_state=now['vm_state'],
        task_state=now['task_state'],
    )


class PowerActions:
    """Mixed into :class:`nova_lite.compute_api.moves.API` (``self.compute``
    is the compute RPC client)."""

    compute: compute_rpcapi.ComputeAPI

    def _simple(
        self,
        ctx: RequestContext,
        inst: Row,
        action: str,
        task: str,
        vm_states: tuple[str, ...],
    ) -> None:
        """An action of the compute agent from ``vm_states`` with no
        task (pause, unpause, suspend, resume): the RPC method is
        ``<action>_instance``."""
        instance = self._begin(
            ctx, inst, action, action, task, vm_states, [None]
        )
        LOG.info(
            '%s on %s',
            task.capitalize(),
            inst['host'],
            instance_uuid=inst['uuid'],
        )
        getattr(self.compute, f'{action}_instance')(
            ctx, instance, inst['host']
        )

    def pause(self, ctx: RequestContext, inst: Row) -> None:
        self._simple(ctx, inst, 'pause', states.PAUSING, (states.ACTIVE,))

    def unpause(self, ctx: RequestContext, inst: Row) -> None:
        self._simple(ctx, inst, 'unpause', states.UNPAUSING, (states.PAUSED,))

    def suspend(self, ctx: RequestContext, inst: Row) -> None:
        self._simple(ctx, inst, 'suspend', states.SUSPENDING, (states.ACTIVE,))

    def resume(self, ctx: RequestContext, inst: Row) -> None:
        self._simple(ctx, inst, 'resume', states.RESUMING, (states.SUSPENDED,))

    def _begin(
        self,
        ctx: RequestContext,
        inst: Row,
        action: str,
        record: str,
        task_state: str,
        vm_states: tuple[str, ...],
        over: list[str | None],
    ) -> Any:
        check_lock(ctx, inst)
        _check_host(inst)
        if inst['vm_state'] not in vm_states or inst['task_state'] not in over:
            raise exception.InstanceStateConflict(
                action=action,
                instance_uuid=inst['uuid'],
                vm_state=inst['vm_state'],
                task_state=inst['task_state'],
            )
        try:
            actions_db.begin(
                ctx,
                inst['uuid'],
                {'task_state': task_state},
                action_values(ctx, inst, record),
                over,
                vm_states,
                unlocked=not ctx.is_admin,
            )
        except exception.UnexpectedTaskState:
            raise conflict(ctx, inst, action) from None
        return instance_obj.Instance.get_by_uuid(ctx, inst['uuid'])

    def stop(self, ctx: RequestContext, inst: Row) -> None:
        instance = self._begin(
            ctx, inst, 'stop', 'stop', states.POWERING_OFF, STOPPABLE, [None]
        )
        LOG.info('Stopping on %s', inst['host'], instance_uuid=inst['uuid'])
        self.compute.stop_instance(ctx, instance, inst['host'])

    def start(self, ctx: RequestContext, inst: Row) -> None:
        instance = self._begin(
            ctx, inst, 'start', 'start', states.POWERING_ON, STARTABLE, [None]
        )
        LOG.info('Starting on %s', inst['host'], instance_uuid=inst['uuid'])
        self.compute.start_instance(ctx, instance, inst['host'])

    def reboot(self, ctx: RequestContext, inst: Row, reboot_type: str) -> None:
        """``SOFT`` (an active server with no task) or ``HARD`` (also a
        stopped, paused, suspended or failed one, or one already
        rebooting)."""
        if reboot_type == 'SOFT':
            instance = self._begin(
                ctx,
                inst,
                'reboot',
                'reboot',
                states.REBOOTING,
                SOFT_REBOOTABLE,
                [None],
            )
        else:
            instance = self._begin(
                ctx,
                inst,
                'reboot',
                'reboot',
                states.REBOOTING_HARD,
                HARD_REBOOTABLE,
                HARD_REBOOT_OVER,
            )
        LOG.info(
            'Rebooting (%s) on %s',
            reboot_type.lower(),
            inst['host'],
            instance_uuid=inst['uuid'],
        )
        self.compute.reboot_instance(ctx, instance, reboot_type, inst['host'])

    # lock ----------------------------------------------------------------

    def lock(
        self,
        ctx: RequestContext,
        inst: Row,
        host: str,
        reason: str | None = None,
    ) -> None:
        """Lock the server: by its owner ('owner') or an administrator of
        another project ('admin'), with an optional reason (2.73). The
        owner locking it again changes nothing."""
        is_owner = inst['project_id'] == ctx.project_id
        if inst.get('locked') and is_owner:
            return
        with self._recorded(ctx, inst, 'lock', host):
            instance_db.instance_update(
                ctx,
                inst['uuid'],
                {
                    'locked': True,
                    'locked_by': 'owner' if is_owner else 'admin',
                    'locked_reason': reason,
                },
            )
        LOG.info(
            'Locked by %s',
            'its owner' if is_owner else 'an admin',
            instance_uuid=inst['uuid'],
        )

    @staticmethod
    def locked_by_caller(ctx: RequestContext, inst: Row) -> bool:
        """Whether the lock (if any) is the caller's kind: the owner's
        for its project, an administrator's for anyone else."""
        expected = 'owner' if inst['project_id'] == ctx.project_id else 'admin'
        return not inst.get('locked_by') or inst['locked_by'] == expected

    def unlock(self, ctx: RequestContext, inst: Row, host: str) -> None:
        with self._recorded(ctx, inst, 'unlock', host):
            instance_db.instance_update(
                ctx,
                inst['uuid'],
                {'locked': False, 'locked_by': None, 'locked_reason': None},
            )
        LOG.info('Unlocked', instance_uuid=inst['uuid'])

    @staticmethod
    def _recorded(
        ctx: RequestContext, inst: Row, action: str, host: str
    ) -> Any:
        actions_db.record(ctx, action_values(ctx, inst, action))
        return instance_action.recorded(
            ctx, inst['uuid'], f'api_{action}', host
        )
