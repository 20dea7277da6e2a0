"""Building and deleting instances on a compute agent."""

from typing import Any

from oslo_log import log as logging

from lite_common import db as lite_db
from nova_lite import exception
from nova_lite.compute import states
from nova_lite.virt import power_state

LOG = logging.getLogger(__name__)

GONE = (exception.InstanceNotFound, exception.UnexpectedTaskState)


def fault(message: str) -> dict[str, Any]:
    """An instance fault (code 500) saying ``message``, from now."""
    return {'code': 500, 'message': message[:255],
            'created': lite_db.utcnow().isoformat() + 'Z'}


def saved(instance: Any, expected: list[str | None]) -> bool:
    """Save the instance if its task state is still one of ``expected``;
    False when it was deleted or changed meanwhile (nothing written)."""
    try:
        instance.save(expected_task_state=expected)
    except GONE:
        return False
    return True


def build(context: Any, driver: Any, instance: Any) -> None:
    """Spawn the instance; a delete that races the build wins."""
    instance.task_state = states.SPAWNING
    if not saved(instance, [states.SCHEDULING]):
        LOG.info('Not building: the instance was deleted or changed',
                 instance=instance)
        return
    try:
        driver.spawn(instance)
    except Exception as exc:
        LOG.exception('Build failed', instance=instance)
        instance.vm_state = states.ERROR
        instance.task_state = None
        instance.fault = fault(str(exc))
        saved(instance, [states.SPAWNING])
        return
    instance.vm_state = states.ACTIVE
    instance.task_state = None
    instance.power_state = power_state.RUNNING
    instance.launched_at = lite_db.utcnow()
    if not saved(instance, [states.SPAWNING]):
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
