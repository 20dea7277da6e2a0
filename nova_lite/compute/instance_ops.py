"""Building and deleting instances on a compute agent."""

from typing import Any

from oslo_log import log as logging

from lite_common import db as lite_db
from nova_lite import exception
from nova_lite.compute import states
from nova_lite.virt import power_state

LOG = logging.getLogger(__name__)

_GONE = (exception.InstanceNotFound, exception.UnexpectedTaskState)


def _fault(exc: Exception) -> dict[str, Any]:
    return {'code': 500, 'message': str(exc)[:255],
            'created': lite_db.utcnow().isoformat() + 'Z'}


def build(context: Any, driver: Any, instance: Any) -> None:
    """Spawn the instance; a delete that races the build wins."""
    instance.task_state = states.SPAWNING
    try:
        instance.save(expected_task_state=[states.SCHEDULING])
    except _GONE:
        LOG.info('Not building: the instance was deleted or changed',
                 instance=instance)
        return
    try:
        driver.spawn(instance)
    except Exception as exc:
        LOG.exception('Build failed', instance=instance)
        instance.vm_state = states.ERROR
        instance.task_state = None
        instance.fault = _fault(exc)
        try:
            instance.save(expected_task_state=[states.SPAWNING])
        except _GONE:
            pass
        return
    instance.vm_state = states.ACTIVE
    instance.task_state = None
    instance.power_state = power_state.RUNNING
    instance.launched_at = lite_db.utcnow()
    try:
        instance.save(expected_task_state=[states.SPAWNING])
    except _GONE:
        LOG.info('The instance was deleted while it was built; removing '
                 'what was built', instance=instance)
        driver.destroy(instance)
        return
    LOG.info('Instance is active on %s', instance.node, instance=instance)


def terminate(context: Any, driver: Any, instance: Any) -> None:
    """Destroy the guest and its disk, then the record."""
    driver.destroy(instance)
    try:
        instance.destroy()
    except exception.InstanceNotFound:
        LOG.info('Instance record was already gone', instance=instance)
        return
    LOG.info('Instance deleted', instance=instance)
