"""A server's rebuild on its host (the user's action; an evacuation's
rebuild elsewhere is compute/evacuation.py).

The API set the task ``rebuilding`` with the new image; the agent moves
it to ``rebuild_spawning`` (a compare-and-swap: a delete or a state
reset meanwhile wins), has the driver replace the disk content with the
new image, and ends the task: ACTIVE, or SHUTOFF for a server that was
stopped (upstream's behaviour). A rebuild the agent took and lost (it
died, in ``rebuilding`` or ``rebuild_spawning``, or the request's
handler died on an error) is carried out when the agent starts again,
or by a housekeeping pass once it has not moved for a while
(compute/task_recovery.py): the API stored the new image with the task,
and the replacement is idempotent. (Upstream sets ERROR instead; here
the server ends as asked, or in ERROR with the fault.) A driver failure
sets ERROR with the fault, as upstream.
"""

from typing import Any

from oslo_log import log as logging

from lite_common.context import RequestContext
from nova_lite.common import instance_ops
from nova_lite.common import states
from nova_lite.objects import instance_action
from nova_lite.objects.instance import Instance

LOG = logging.getLogger(__name__)


def rebuild(
    context: RequestContext,
    driver: Any,
    instance: Instance,
    host: str,
    resumed: bool = False,
) -> None:
    expected = instance.task_state
    was_stopped = instance.vm_state == states.STOPPED
    instance.task_state = states.REBUILD_SPAWNING
    if not instance_ops.saved(instance, [expected]):
        LOG.info(
            'Not rebuilding: the server was deleted or changed',
            instance=instance,
        )
        return
    try:
        with instance_action.recorded(
            context,
            instance.uuid,
            'compute_rebuild_instance',
            host,
            resumed=resumed,
        ):
            driver.rebuild(instance, instance.image_ref)
            if was_stopped:
                driver.power_off(instance)
    except Exception as exc:
        LOG.error('Rebuild failed: %s', exc, instance=instance)
        instance.vm_state = states.ERROR
        instance.task_state = None
        instance.fault = instance_ops.fault(f'Rebuild failed: {exc}')
        instance_ops.saved(instance, [states.REBUILD_SPAWNING])
        return
    instance.vm_state = states.STOPPED if was_stopped else states.ACTIVE
    instance.task_state = None
    instance.power_state = driver.power_state(instance)
    if instance_ops.saved(instance, [states.REBUILD_SPAWNING]):
        LOG.info(
            'Rebuilt with image %s', instance.image_ref, instance=instance
        )
    else:
        LOG.warning(
            'Rebuilt, but the server was deleted or reset '
            'meanwhile; its record was left as it is',
            instance=instance,
        )
