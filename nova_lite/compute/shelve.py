"""Shelve, shelve offload and unshelve on the compute agent.

Each step is a compare-and-swap from the task state the API (or the
conductor) set: a delete or a state reset meanwhile wins.

* **shelve** (``shelving``): the guest is powered off, its disk is
  written as the snapshot image the API recorded (``queued``) and
  uploaded (``shelving_image_pending_upload``,
  ``shelving_image_uploading``: compute/image_upload.py, as a
  createImage), and the server is SHELVED, its system metadata saying
  when, where and which snapshot; with ``[DEFAULT]shelved_offload_time
  = 0`` it goes on to offload. A failure (the driver, the Image API, the
  image deleted meanwhile) leaves the server not shelved: the guest
  back as its vm_state says, no task, the fault recorded, the image
  deleted. Taken up after a restart, a ``queued`` image is written
  again, an ``active`` one was uploaded, any other fails the shelve.
* **offload** (``shelving_offloading``): the guest and its disk are
  removed first, then the record says SHELVED_OFFLOADED with host, node
  and compute_id NULL (the node's usage refreshed in the same
  transaction). The disk is removed only on that record's order: a
  SHELVED server with a snapshot, in this task, on this host. A crash
  between the two is finished at start-up (removal is idempotent).
* **unshelve** (``unshelving``, placed on this host by the conductor's
  claim): the disk is created again from the snapshot (a driver with
  disks of its own, ``takes_disk_images``, gets the snapshot's data,
  streamed into a file under ``<state_path>/snapshots``; a snapshot
  recorded without data, from before shelve uploaded the disk, is
  spawned from its id as before) and the server is ACTIVE; the snapshot
  is then deleted. A failed spawn removes what it created and returns
  the server to SHELVED_OFFLOADED on no host, with the fault, so that
  unshelve can be tried again.
"""

import datetime
from typing import Any
from typing import cast

from oslo_log import log as logging

from lite_common import timestamps
from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.common import instance_ops
from nova_lite.common import power_state
from nova_lite.common import states
from nova_lite.compute import image_upload
from nova_lite.compute import move_recovery
from nova_lite.compute.image_client import ImageClient
from nova_lite.objects import instance_action
from nova_lite.objects.instance import Instance

LOG = logging.getLogger(__name__)
SHELVED_KEYS = ('shelved_at', 'shelved_image_id', 'shelved_host')
#: A shelve's tasks while the snapshot is written and uploaded.
UPLOAD_TASKS = (
    states.SHELVING_IMAGE_PENDING_UPLOAD,
    states.SHELVING_IMAGE_UPLOADING,
)


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
    images: ImageClient,
    instance: Instance,
    host: str,
    resumed: bool = False,
) -> None:
    image_id = instance.system_metadata.get('shelved_image_id')
    try:
        with instance_action.recorded(
            context,
            instance.uuid,
            'compute_shelve_instance',
            host,
            resumed=resumed,
        ):
            driver.power_off(instance)
            if image_id:
                image_upload.upload_unless_done(
                    conf,
                    driver,
                    images,
                    instance,
                    image_id,
                    UPLOAD_TASKS,
                )
    except image_upload.Changed:
        LOG.info(
            'Shelve abandoned: the server was deleted or its task changed',
            instance=instance,
        )
        if image_id:
            image_upload.discard(images, image_id, instance)
        return
    except Exception as exc:
        _shelve_failed(driver, images, instance, image_id, exc)
        return
    _shelved(context, conf, driver, instance, host)


def _shelved(
    context: RequestContext,
    conf: Any,
    driver: Any,
    instance: Instance,
    host: str,
) -> None:
    """The snapshot is uploaded: SHELVED (a swap from the task read
    last), then the offload when it is due at once."""
    offload_now = conf.shelved_offload_time == 0
    expected = instance.task_state
    instance.system_metadata = {
        **instance.system_metadata,
        'shelved_at': timestamps.utcnow().isoformat(),
        'shelved_host': host,
    }
    instance.vm_state = states.SHELVED
    instance.task_state = states.SHELVING_OFFLOADING if offload_now else None
    instance.power_state = driver.power_state(instance)
    if not instance_ops.saved(instance, [expected]):
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


#: The power state of the guest each vm_state a shelve starts from
#: stands for, and how a powered-off guest gets there again.
_GUEST = {
    states.ACTIVE: (power_state.RUNNING, ('power_on',)),
    states.PAUSED: (power_state.PAUSED, ('power_on', 'pause')),
    states.SUSPENDED: (power_state.SUSPENDED, ('power_on', 'suspend')),
}


def _restore_guest(driver: Any, instance: Instance) -> None:
    """Put the guest back as the server's vm_state says it is (a shelve
    that failed after the power-off); a failure is logged (the power
    state then tells what the guest is)."""
    wanted, steps = _GUEST.get(instance.vm_state, (None, ()))
    try:
        if wanted is None or driver.power_state(instance) == wanted:
            return
        for step in steps:
            getattr(driver, step)(instance)
    except Exception as exc:
        LOG.warning(
            'The guest could not be put back as it was (%s): %s',
            instance.vm_state,
            exc,
            instance=instance,
        )


def _shelve_failed(
    driver: Any,
    images: ImageClient,
    instance: Instance,
    image_id: str | None,
    exc: Exception,
) -> None:
    """Not shelved: the guest as it was, the task ended with the fault,
    the snapshot deleted."""
    reason = str(exc) or type(exc).__name__
    if isinstance(exc, NotImplementedError):
        # The ironic driver writes no snapshot (as upstream's).
        kind = getattr(driver, 'hypervisor_type', 'virt')
        reason = f'not supported by the {kind} driver ({reason})'
    LOG.error(
        'Shelve failed: %s; the server is left as it was',
        reason,
        instance=instance,
    )
    _restore_guest(driver, instance)
    try:
        instance.power_state = driver.power_state(instance)
    except Exception as power_exc:
        LOG.warning(
            'The power state is unknown: %s', power_exc, instance=instance
        )
    expected = instance.task_state
    unshelved_keys(instance)
    instance.task_state = None
    instance.fault = instance_ops.fault(f'Shelve failed: {reason}')
    if not instance_ops.saved(instance, [expected]):
        LOG.info(
            'The server changed meanwhile; left as it is', instance=instance
        )
    if image_id:
        image_upload.discard(images, image_id, instance)


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
    conf: Any,
    driver: Any,
    images: ImageClient,
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
            _spawn(conf, driver, images, instance, image_id)
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


def _with_data(
    driver: Any, images: ImageClient, image_id: str | None
) -> dict[str, Any] | None:
    """The snapshot's record when the driver makes the disk of its data
    and it has some; None to spawn from the image's id (another driver,
    a record without data, the image gone).

    :raises ImageDownloadFailed: the snapshot is not ``active`` (its
        data is not all there).
    """
    if not image_id or not getattr(driver, 'takes_disk_images', False):
        return None
    image = images.show(image_id)
    if image is None:
        LOG.warning(
            'The snapshot %s is gone: the disk is made afresh', image_id
        )
        return None
    if image.get('status') != 'active':
        raise exception.ImageDownloadFailed(
            image_id=image_id,
            reason=f'the snapshot is {image.get("status")}, not active',
        )
    return image if image.get('size') else None


def _spawn(
    conf: Any,
    driver: Any,
    images: ImageClient,
    instance: Instance,
    image_id: str | None,
) -> None:
    """Spawn from the snapshot: its data streamed into a file the
    driver makes the disk of (removed afterwards), or its id."""
    image = _with_data(driver, images, image_id)
    if image is None:
        driver.spawn(instance, image_ref=image_id)
        return
    path = image_upload.work_dir(conf) / f'{image["id"]}.unshelve'
    path.unlink(missing_ok=True)
    try:
        size = images.download(image, path)
        LOG.info(
            'Snapshot %s downloaded (%s, %d bytes)',
            image['id'],
            image.get('disk_format'),
            size,
            instance=instance,
        )
        driver.spawn_from_disk_image(
            instance, image['id'], path, image.get('disk_format') or 'raw'
        )
    finally:
        path.unlink(missing_ok=True)


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


def housekeeping(
    context: RequestContext,
    conf: Any,
    driver: Any,
    images: ImageClient,
    nodes: dict[str, Any],
    host: str,
    stale: float,
) -> None:
    """The periodic pass of shelving: unshelves whose request was lost
    (unchanged for ``stale`` seconds) are taken up, then shelved servers
    due for offload are offloaded."""
    resume_unshelves(context, conf, driver, images, nodes, host, stale)
    if conf.shelved_offload_time > 0:
        offload_due(context, driver, nodes, host, conf.shelved_offload_time)


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
    conf: Any,
    driver: Any,
    images: ImageClient,
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
        unshelve(context, conf, driver, images, instance, host, resumed=True)
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
    images = ImageClient(conf)
    if task in states.SHELVING_TASKS:
        shelve(context, conf, driver, images, instance, host, resumed=True)
    elif task == states.SHELVING_OFFLOADING:
        offload(context, driver, instance, host, resumed=True)
    else:
        unshelve(context, conf, driver, images, instance, host, resumed=True)


def is_unshelving(instance: Instance) -> bool:
    """An offloaded server placed here for its unshelve, or spawning for
    it (a build has vm_state building)."""
    return (
        instance.vm_state == states.SHELVED_OFFLOADED
        and instance.task_state in (states.UNSHELVING, states.SPAWNING)
    )
