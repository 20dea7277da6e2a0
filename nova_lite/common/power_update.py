"""The ``power-update`` external event (2.76) on the compute agent.

A bare metal service that saw a node's power change outside nova (an
operator at the BMC) tells nova with ``POWER_ON`` or ``POWER_OFF``; the
API records a ``start`` or ``stop`` action and casts here. As upstream's
``ComputeManager.power_update``: only an ACTIVE and running server (for
``POWER_OFF``) or a STOPPED and shut down one (for ``POWER_ON``), with
no task, takes the event; anything else is a logged no-op. The task
(``powering-off`` / ``powering-on``) is set from none, so a request
that got there first wins; the driver then only acknowledges a change
that already happened (upstream: the ironic and fake drivers; the
others raise NotImplementedError, which fails the action's event and
ends the task with the server as it was).
"""

from typing import Any

from oslo_log import log as logging

from lite_common.context import RequestContext
from nova_lite.common import instance_ops
from nova_lite.common import power_state
from nova_lite.common import states
from nova_lite.objects import instance_action

LOG = logging.getLogger(__name__)

POWER_ON = 'POWER_ON'
POWER_OFF = 'POWER_OFF'
#: target -> (vm_state, power state it applies to, task, vm_state after)
_TARGETS = {
    POWER_ON: (
        states.STOPPED,
        power_state.SHUTDOWN,
        states.POWERING_ON,
        states.ACTIVE,
    ),
    POWER_OFF: (
        states.ACTIVE,
        power_state.RUNNING,
        states.POWERING_OFF,
        states.STOPPED,
    ),
}


def applies(instance: Any, target: str) -> bool:
    """Upstream's ``_is_state_valid_for_power_update_event``."""
    vm_state, power, _task, _after = _TARGETS[target]
    return (
        instance.task_state is None
        and instance.vm_state == vm_state
        and instance.power_state == power
    )


def do(
    context: RequestContext, driver: Any, instance: Any, target: str, host: str
) -> None:
    """Take the event for ``instance`` (re-read on this host)."""
    with instance_action.recorded(
        context, instance.uuid, 'compute_power_update', host
    ) as outcome:
        if not applies(instance, target):
            LOG.info(
                'The power-update %s event is a no-op: the server is '
                '%s, task %s, power state %s',
                target,
                instance.vm_state,
                instance.task_state,
                instance.power_state,
                instance=instance,
            )
            return
        _task_vm_state, _power, task, after = _TARGETS[target]
        instance.task_state = task
        if not instance_ops.saved(instance, [None]):
            LOG.info(
                'The power-update event was preempted by another task',
                instance=instance,
            )
            return
        try:
            driver.power_update_event(instance, target)
        except Exception as exc:
            LOG.error(
                'Could not take the power-update %s event: %r',
                target,
                exc,
                instance=instance,
            )
            outcome.error = f'{type(exc).__name__}: {exc}'
            outcome.details = instance_action.failure_details(exc)
            instance.task_state = None
            instance_ops.saved(instance, [task])
            return
        instance.vm_state = after
        instance.task_state = None
        instance.power_state = driver.power_state(instance)
        if not instance_ops.saved(instance, [task]):
            LOG.info(
                'The server changed meanwhile; left as it is',
                instance=instance,
            )
