"""Rescue and unrescue on the compute agent.

The API set the task (``rescuing`` / ``unrescuing``); the agent has the
driver do it and ends the task with a compare-and-swap from it: a state
reset or a delete meanwhile wins.

* **rescue**: the driver boots the guest from the rescue image with the
  instance's disk kept as it is; the server is RESCUED (upstream's
  ``launched_at`` is set anew). A driver that cannot rescue this guest
  (RescueNotSupported: a bare metal node without a rescue interface)
  leaves the server as it was, the reason in the action's event; any
  other driver failure sets ERROR with a fault, as upstream.
* **unrescue**: the guest boots from its own disk again; ACTIVE. A
  driver failure sets ERROR with a fault, as upstream.

With ``[DEFAULT]rescue_timeout`` > 0 each housekeeping pass unrescues
the servers rescued here longer ago than that (upstream's periodic
task): an ``unrescue`` action the agent starts itself, whose task and
record are written together on the conductor, so a request that got
there first wins.

At start-up an agent finishes an interrupted unrescue (it is
idempotent). An interrupted rescue cannot be finished: its password
was only in the request (never stored), so the rescue is undone
instead (the rescue, if any, removed and the guest as its vm_state
says), the server keeps its vm_state, and the action's event says to
ask again.
"""

import datetime
from typing import Any

from oslo_log import log as logging

from lite_common import timestamps
from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.common import instance_ops
from nova_lite.common import states
from nova_lite.objects import instance_action
from nova_lite.objects.instance import Instance

LOG = logging.getLogger(__name__)
RESCUE_EVENT = 'compute_rescue_instance'
UNRESCUE_EVENT = 'compute_unrescue_instance'
INTERRUPTED = (
    'The rescue was interrupted (a restart of the compute '
    'service, or its request was lost); its password was not '
    'kept, so it was undone. Rescue the server again.'
)


def rescue_image(instance: Instance, image_ref: str | None) -> str:
    """The image to rescue with (upstream's choice): the one asked for,
    else the image the server was built or last rebuilt from."""
    if image_ref:
        return image_ref
    sysmeta = instance.system_metadata or {}
    return sysmeta.get('image_base_image_ref') or instance.image_ref or ''


def _failed(instance: Instance, task: str, what: str, exc: Exception) -> None:
    LOG.error('%s failed: %s', what, exc, instance=instance)
    instance.vm_state = states.ERROR
    instance.task_state = None
    instance.fault = instance_ops.fault(f'{what} failed: {exc}')
    instance_ops.saved(instance, [task])


def _ended(
    instance: Instance, task: str, vm_state: str, driver: Any, done: str
) -> None:
    instance.vm_state = vm_state
    instance.task_state = None
    instance.power_state = driver.power_state(instance)
    if instance_ops.saved(instance, [task]):
        LOG.info('%s', done, instance=instance)
    else:
        LOG.warning(
            '%s, but the server was deleted or reset meanwhile; '
            'its record was left as it is',
            done,
            instance=instance,
        )


def rescue(
    context: RequestContext,
    driver: Any,
    instance: Instance,
    host: str,
    password: str,
    image_ref: str | None,
) -> None:
    image = rescue_image(instance, image_ref)
    try:
        with instance_action.recorded(
            context, instance.uuid, RESCUE_EVENT, host
        ):
            driver.rescue(instance, image, password)
    except exception.RescueNotSupported as exc:
        LOG.warning('Not rescued: %s', exc, instance=instance)
        instance.task_state = None
        instance_ops.saved(instance, [states.RESCUING])
        return
    except Exception as exc:
        _failed(instance, states.RESCUING, 'Rescue', exc)
        return
    instance.launched_at = timestamps.utcnow()
    _ended(
        instance,
        states.RESCUING,
        states.RESCUED,
        driver,
        f'Rescued with image {image}',
    )


def unrescue(
    context: RequestContext,
    driver: Any,
    instance: Instance,
    host: str,
    resumed: bool = False,
) -> None:
    try:
        with instance_action.recorded(
            context, instance.uuid, UNRESCUE_EVENT, host, resumed=resumed
        ):
            driver.unrescue(instance)
    except Exception as exc:
        _failed(instance, states.UNRESCUING, 'Unrescue', exc)
        return
    _ended(instance, states.UNRESCUING, states.ACTIVE, driver, 'Unrescued')


def unrescue_due(
    context: RequestContext,
    driver: Any,
    nodes: dict[str, Any],
    host: str,
    after: int,
) -> int:
    """Periodic (``rescue_timeout`` > 0): unrescue the servers rescued
    here over ``after`` seconds ago; how many. One query."""
    horizon = timestamps.utcnow() - datetime.timedelta(seconds=after)
    done = 0
    for _node, instance in instance_ops.on_nodes(
        context, nodes, {'vm_state': [states.RESCUED]}
    ):
        if (
            instance.task_state is not None
            or instance.launched_at is None
            or instance.launched_at.replace(tzinfo=None) > horizon
        ):
            continue
        if not instance_action.InstanceActionEvent.action_begin(
            context,
            instance.uuid,
            'unrescue',
            states.UNRESCUING,
            [states.RESCUED],
        ):
            continue
        instance.task_state = states.UNRESCUING
        instance.obj_reset_changes(['task_state'])
        LOG.info(
            'Rescued for over %s s (rescue_timeout): unrescuing',
            after,
            instance=instance,
        )
        unrescue(context, driver, instance, host)
        done += 1
    return done


def _undo_rescue(driver: Any, instance: Instance) -> None:
    """Remove a rescue that may have been made, and leave the guest as
    its vm_state says (a stopped server's guest off)."""
    driver.unrescue(instance)
    if instance.vm_state == states.STOPPED:
        driver.power_off(instance)


def recover(
    context: RequestContext, driver: Any, instance: Instance, host: str
) -> None:
    """At start-up, or on a housekeeping pass for a task whose request
    was lost: finish an unrescue, undo a rescue (see above)."""
    if instance.task_state == states.UNRESCUING:
        LOG.info('Finishing an interrupted unrescue', instance=instance)
        unrescue(context, driver, instance, host, resumed=True)
        return
    LOG.warning(
        'A rescue was interrupted; undoing it (the '
        'rescue password was not kept)',
        instance=instance,
    )
    try:
        with instance_action.recorded(
            context, instance.uuid, RESCUE_EVENT, host, resumed=True
        ) as outcome:
            _undo_rescue(driver, instance)
            outcome.error = INTERRUPTED
    except Exception as exc:
        _failed(instance, states.RESCUING, 'Rescue', exc)
        return
    instance.task_state = None
    instance.power_state = driver.power_state(instance)
    instance_ops.saved(instance, [states.RESCUING])
