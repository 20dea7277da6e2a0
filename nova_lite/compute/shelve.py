"""Shelve, shelve offload and unshelve on the compute agent.

Each step is a compare-and-swap from the task state the API (or the
conductor) set: a delete or a state reset meanwhile wins.

* **shelve** (``shelving``): the guest is powered off and the server is
  SHELVED, its system metadata saying when, where and which snapshot;
  with ``[DEFAULT]shelved_offload_time = 0`` it goes on to offload.
* **offload** (``shelving_offloading``): the guest and its disk are
  removed first, then the record says SHELVED_OFFLOADED with host, node
  and compute_id NULL (the node's usage refreshed in the same
  transaction). The disk is removed only on that record's order: a
  SHELVED server with a snapshot, in this task, on this host. A crash
  between the two is finished at start-up (removal is idempotent).
* **unshelve** (``unshelving``, placed on this host by the conductor's
  claim): the disk is created again from the snapshot and the server is
  ACTIVE; the snapshot is then deleted. A failed spawn removes what it
  created and returns the server to SHELVED_OFFLOADED on no host, with
  the fault, so that unshelve can be tried again.
"""

import datetime
from typing import Any
from typing import cast

from oslo_log import log as logging

from lite_common import timestamps
from lite_common.context import RequestContext
from nova_lite.common import instance_ops
from nova_lite.common import power_state
from nova_lite.common import states
from nova_lite.compute import move_recovery
from nova_lite.objects import instance_action
from nova_lite.objects.instance import Instance

LOG = logging.getLogger(__name__)
SHELVED_KEYS = ('shelved_at', 'shelved_image_id', 'shelved_host')


def _failed(instance: Instance, task: str, what: str, exc: Exception) -> bool:
    """End the task with the server as it was; whether it was saved."""
    LOG.error('Could not %s the server: %s', what, exc, instance=instance)
    instance.task_state = None
    if not instance_ops.saved(instance, [task]):
        LOG.info(
            'The server changed meanwhile; left as it is', instance=instance
        )
        return False
    return True


def shelve(
    context: RequestContext,
    conf: Any,
    driver: Any,
    instance: Instance,
    host: str,
    resumed: bool = False,
) -> None:
    try:
        with instance_action.recorded(
            context,
            instance.uuid,
            'compute_shelve_instance',
            host,
            resumed=resumed,
        ):
            driver.power_off(instance)
    except Exception as exc:
        instance.power_state = driver.power_state(instance)
        # Not shelved: the snapshot the API recorded goes.
        snapshot = unshelved_keys(instance)
        if _failed(instance, states.SHELVING, 'shelve', exc) and snapshot:
            instance.delete_snapshot(snapshot)
        return
    offload_now = conf.shelved_offload_time == 0
    instance.system_metadata = {
        **instance.system_metadata,
        'shelved_at': timestamps.utcnow().isoformat(),
        'shelved_host': host,
    }
    instance.vm_state = states.SHELVED
    instance.task_state = states.SHELVING_OFFLOADING if offload_now else None
    instance.power_state = driver.power_state(instance)
    if not instance_ops.saved(instance, [states.SHELVING]):
        LOG.info(
            'Shelved, but the server was deleted or reset meanwhile; '
            'its record was left as it is',
            instance=instance,
        )
        return
    LOG.info(
        'Shelved (snapshot %s)',
        instance.system_metadata.get('shelved_image_id'),
        instance=instance,
    )
    if offload_now:
        offload(context, driver, instance, host)


def offload(
    context: RequestContext,
    driver: Any,
    instance: Instance,
    host: str,
    resumed: bool = False,
) -> None:
    try:
        with instance_action.recorded(
            context,
            instance.uuid,
            'compute_shelve_offload_instance',
            host,
            resumed=resumed,
        ):
            driver.destroy(instance)
    except Exception as exc:
        _failed(instance, states.SHELVING_OFFLOADING, 'offload', exc)
        return
    instance.host = instance.node = instance.compute_id = None
    instance.vm_state = states.SHELVED_OFFLOADED
    instance.task_state = None
    instance.power_state = power_state.NOSTATE
    outcome = instance_ops.save(instance, [states.SHELVING_OFFLOADING])
    if outcome == instance_ops.CHANGED:
        LOG.error(
            'Offloaded: the guest and its disk were removed from '
            'this host, but the server was reset meanwhile and its '
            'record still places it here. Its content is in '
            'snapshot %s; delete the server or reset it to error.',
            instance.system_metadata.get('shelved_image_id'),
            instance=instance,
        )
        return
    LOG.info(
        'Offloaded from %s: the guest and its disk are removed',
        host,
        instance=instance,
    )


def unshelve(
    context: RequestContext,
    driver: Any,
    instance: Instance,
    host: str,
    resumed: bool = False,
) -> None:
    """Spawn the offloaded server placed on this host from its
    snapshot (task ``unshelving``, or ``spawning`` when a restart cut
    the spawn short)."""
    expected = instance.task_state
    instance.task_state = states.SPAWNING
    if not instance_ops.saved(instance, [expected]):
        LOG.info(
            'Not unshelving: the server was deleted or changed',
            instance=instance,
        )
        return
    image_id = instance.system_metadata.get('shelved_image_id')
    try:
        with instance_action.recorded(
            context,
            instance.uuid,
            'compute_unshelve_instance',
            host,
            resumed=resumed,
        ):
            driver.spawn(instance, image_ref=image_id)
    except Exception as exc:
        _spawn_failed(driver, instance, exc)
        return
    instance.vm_state = states.ACTIVE
    instance.task_state = None
    instance.power_state = driver.power_state(instance)
    unshelved_keys(instance)
    outcome = instance_ops.save(instance, [states.SPAWNING])
    if outcome == instance_ops.DELETED:
        LOG.info(
            'The server was deleted while it was unshelved; removing '
            'what was built',
            instance=instance,
        )
        driver.destroy(instance)
        return
    if outcome == instance_ops.CHANGED:
        LOG.warning(
            'The server changed while it was unshelved (a state '
            'reset?); what was built here is kept',
            instance=instance,
        )
        return
    instance.delete_snapshot(image_id)
    LOG.info(
        'Unshelved on %s from snapshot %s',
        instance.node,
        image_id,
        instance=instance,
    )


def _spawn_failed(driver: Any, instance: Instance, exc: Exception) -> None:
    LOG.error(
        'Unshelve failed: %s; removing what was created and '
        'leaving the server offloaded',
        exc,
        instance=instance,
    )
    driver.destroy(instance)
    instance.host = instance.node = instance.compute_id = None
    instance.vm_state = states.SHELVED_OFFLOADED
    instance.task_state = None
    instance.power_state = power_state.NOSTATE
    instance.fault = instance_ops.fault(f'Unshelve failed: {exc}')
    instance_ops.saved(instance, [states.SPAWNING])


def unshelved_keys(instance: Instance) -> str | None:
    """Drop the shelved keys from the instance's system metadata (not
    saved); the snapshot they named, if any."""
    image_id = instance.system_metadata.get('shelved_image_id')
    if any(k in instance.system_metadata for k in SHELVED_KEYS):
        instance.system_metadata = {
            k: v
            for k, v in instance.system_metadata.items()
            if k not in SHELVED_KEYS
        }
    return cast('str | None', image_id)


def offload_due(
    context: RequestContext,
    driver: Any,
    nodes: dict[str, Any],
    host: str,
    after: int,
) -> int:
    """Periodic (``shelved_offload_time`` > 0): offload the servers
    shelved here over ``after`` seconds ago; how many. One query."""
    horizon = timestamps.utcnow() - datetime.timedelta(seconds=after)
    done = 0
    for _node, instance in instance_ops.on_nodes(
        context, nodes, {'vm_state': [states.SHELVED]}
    ):
        shelved_at = instance.system_metadata.get('shelved_at')
        if instance.task_state is not None or not shelved_at:
            continue
        if _parsed(shelved_at) > horizon:
            continue
        instance.task_state = states.SHELVING_OFFLOADING
        if instance_ops.saved(instance, [None]):
            LOG.info(
                'Shelved for over %s s: offloading', after, instance=instance
            )
            offload(context, driver, instance, host, resumed=True)
            done += 1
    return done


def _parsed(iso: str) -> datetime.datetime:
    try:
        return datetime.datetime.fromisoformat(iso)
    except ValueError:
        return datetime.datetime.min


def resume_unshelves(
    context: RequestContext,
    driver: Any,
    nodes: dict[str, Any],
    host: str,
    stale_after: float,
) -> int:
    """Housekeeping: unshelve the servers placed on this host whose
    request was lost (task ``unshelving`` unchanged for ``stale_after``
    seconds); how many. One query."""
    done = 0
    for node, instance in instance_ops.on_nodes(
        context,
        nodes,
        {
            'vm_state': [states.SHELVED_OFFLOADED],
            'task_state': [states.UNSHELVING],
        },
    ):
        if not move_recovery.stalled(instance, stale_after):
            continue
        LOG.warning(
            'Placed on %s for its unshelve over %s s ago and not '
            'spawned (the request was lost); unshelving it now',
            node.hypervisor_hostname,
            stale_after,
            instance=instance,
        )
        unshelve(context, driver, instance, host, resumed=True)
        done += 1
    return done


def recover(
    context: RequestContext,
    conf: Any,
    driver: Any,
    instance: Instance,
    host: str,
) -> None:
    """At start-up, or on a housekeeping pass for a task whose request
    was lost: finish the shelve, offload or unshelve (each step is safe
    to run again)."""
    task = instance.task_state
    LOG.info(
        'Finishing an interrupted %s (a restart, or its request was lost)',
        task,
        instance=instance,
    )
    if task == states.SHELVING:
        shelve(context, conf, driver, instance, host, resumed=True)
    elif task == states.SHELVING_OFFLOADING:
        offload(context, driver, instance, host, resumed=True)
    else:
        unshelve(context, driver, instance, host, resumed=True)


def is_unshelving(instance: Instance) -> bool:
    """An offloaded server placed here for its unshelve, or spawning for
    it (a build has vm_state building)."""
    return (
        instance.vm_state == states.SHELVED_OFFLOADED
        and instance.task_state in (states.UNSHELVING, states.SPAWNING)
    )
