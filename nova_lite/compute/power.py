"""Stop, start, reboot, pause, unpause, suspend, resume, soft delete
and restore on the compute agent.

Each is a compare-and-swap from its task state (``powering-off``,
``powering-on``, ``rebooting`` / ``rebooting_hard``, ``pausing``,
``soft-deleting``, ...) set by the API: a state reset or a delete
meanwhile wins, and the agent then changes nothing it would have to
explain. The guest's power state written to the record is the one
the driver reports afterwards, never assumed.

A failure of the driver ends the task with the server as it was (the
vm_state kept, upstream's behaviour) and the error in the action's
event. An agent that restarts finishes the task it finds: the request
may have died with it (:func:`recover`).
"""

from typing import Any

from oslo_log import log as logging

from lite_common.context import RequestContext
from nova_lite.common import instance_ops
from nova_lite.common import states
from nova_lite.compute import shelve
from nova_lite.objects import instance_action
from nova_lite.objects.instance import Instance

LOG = logging.getLogger(__name__)

#: task state -> (what is done, event name)
TASKS = {
    states.POWERING_OFF: ('stop', 'compute_stop_instance'),
    states.POWERING_ON: ('start', 'compute_start_instance'),
    states.REBOOTING: ('reboot', 'compute_reboot_instance'),
    states.REBOOTING_HARD: ('reboot', 'compute_reboot_instance'),
    states.PAUSING: ('pause', 'compute_pause_instance'),
    states.UNPAUSING: ('unpause', 'compute_unpause_instance'),
    states.SUSPENDING: ('suspend', 'compute_suspend_instance'),
    states.RESUMING: ('resume', 'compute_resume_instance'),
    # Deferred delete (see nova_lite.compute_api.deferred_delete): the guest
    # is powered off, or on again, as upstream does for drivers without
    # a soft delete of their own.
    states.SOFT_DELETING: ('soft delete', 'compute_soft_delete_instance'),
    states.RESTORING: ('restore', 'compute_restore_instance'),
}
#: task state -> (driver method, the vm_state that follows)
_SIMPLE = {
    states.POWERING_OFF: ('power_off', states.STOPPED),
    states.POWERING_ON: ('power_on', states.ACTIVE),
    states.PAUSING: ('pause', states.PAUSED),
    states.UNPAUSING: ('unpause', states.ACTIVE),
    states.SUSPENDING: ('suspend', states.SUSPENDED),
    states.RESUMING: ('resume', states.ACTIVE),
    states.SOFT_DELETING: ('power_off', states.SOFT_DELETED),
    states.RESTORING: ('power_on', states.ACTIVE),
}


def _run(driver: Any, instance: Instance, task: str) -> str:
    """The driver's part; returns the vm_state that follows."""
    if task in _SIMPLE:
        method, vm_state = _SIMPLE[task]
        getattr(driver, method)(instance)
        return vm_state
    driver.reboot(
        instance, 'HARD' if task == states.REBOOTING_HARD else 'SOFT'
    )
    return states.ACTIVE


def do(
    context: RequestContext,
    driver: Any,
    instance: Instance,
    host: str,
    resumed: bool = False,
) -> None:
    """Carry out the instance's power task (one of :data:`TASKS`)."""
    task = instance.task_state
    what, event = TASKS[task]
    try:
        with instance_action.recorded(
            context, instance.uuid, event, host, resumed=resumed
        ):
            vm_state = _run(driver, instance, task)
    except Exception as exc:
        LOG.error('Could not %s the server: %s', what, exc, instance=instance)
        instance.task_state = None
        instance.power_state = driver.power_state(instance)
        if not instance_ops.saved(instance, [task]):
            LOG.info(
                'The server changed meanwhile; left as it is',
                instance=instance,
            )
        return
    instance.vm_state = vm_state
    instance.task_state = None
    instance.power_state = driver.power_state(instance)
    # A SHELVED server started by its unshelve is shelved no more.
    snapshot = (
        shelve.unshelved_keys(instance) if task == states.POWERING_ON else None
    )
    if instance_ops.saved(instance, [task]):
        LOG.info('Server %s: %s done', what, task, instance=instance)
        if snapshot:
            instance.delete_snapshot(snapshot)
    else:
        LOG.warning(
            'Server %s done, but the server was deleted or reset '
            'meanwhile; its record was left as it is',
            what,
            instance=instance,
        )


def recover(
    context: RequestContext, driver: Any, instance: Instance, host: str
) -> None:
    """At start-up, or on a housekeeping pass for a task whose request
    was lost: finish the power task (compute/task_recovery.py)."""
    LOG.info(
        'Finishing an interrupted %s (a restart, or its request was lost)',
        TASKS[instance.task_state][0],
        instance=instance,
    )
    do(context, driver, instance, host, resumed=True)
