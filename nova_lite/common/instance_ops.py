"""Building and deleting instances on a compute agent."""

from typing import Any

from oslo_log import log as logging

from lite_common import timestamps
from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.common import power_state
from nova_lite.common import states
from nova_lite.objects import instance as instance_obj

LOG = logging.getLogger(__name__)


def on_nodes(
    context: RequestContext, nodes: dict[str, Any], filters: dict[str, Any]
) -> list[tuple[Any, Any]]:
    """(node, instance) for the live instances on ``nodes`` (this
    agent's ComputeNodes by name) that match the instance list
    ``filters``: one query however many nodes the agent serves (a bare
    metal agent serves hundreds)."""
    by_id = {node.id: node for node in nodes.values()}
    if not by_id:
        return []
    found = instance_obj.InstanceList.get_by_filters(
        context, {**filters, 'compute_id': sorted(by_id)}
    )
    return [(by_id[instance.compute_id], instance) for instance in found]


def fault(message: str) -> dict[str, Any]:
    """An instance fault (code 500) saying ``message``, from now."""
    return {
        'code': 500,
        'message': message[:255],
        'created': timestamps.utcnow().isoformat() + 'Z',
    }


SAVED, DELETED, CHANGED = 'saved', 'deleted', 'changed'


def save(instance: Any, expected: list[str | None]) -> str:
    """Save the instance if its task state is still one of ``expected``:
    SAVED, or DELETED / CHANGED (another operation, e.g. a state reset,
    took it over) with nothing written. Only DELETED proves that a copy
    this host holds is no one's."""
    try:
        instance.save(expected_task_state=expected)
    except exception.InstanceNotFound:
        return DELETED
    except exception.UnexpectedTaskState:
        return CHANGED
    return SAVED


def saved(instance: Any, expected: list[str | None]) -> bool:
    """Save the instance if its task state is still one of ``expected``;
    False when it was deleted or changed meanwhile (nothing written)."""
    return save(instance, expected) == SAVED


def build(context: RequestContext, driver: Any, instance: Any) -> None:
    """Spawn the instance; a delete that races the build wins."""
    instance.task_state = states.SPAWNING
    if not saved(instance, [states.SCHEDULING]):
        LOG.info(
            'Not building: the instance was deleted or changed',
            instance=instance,
        )
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
    instance.launched_at = timestamps.utcnow()
    outcome = save(instance, [states.SPAWNING])
    if outcome == DELETED:
        LOG.info(
            'The instance was deleted while it was built; removing '
            'what was built',
            instance=instance,
        )
        driver.destroy(instance)
        return
    if outcome == CHANGED:
        LOG.warning(
            'The instance changed while it was built (a state '
            'reset?); what was built here is kept',
            instance=instance,
        )
        return
    LOG.info('Instance is active on %s', instance.node, instance=instance)


def terminate(
    context: RequestContext, driver: Any, instance: Any, settle: Any = None
) -> None:
    """Destroy the guest and its disk, (``settle``,) then the record."""
    driver.destroy(instance)
    if settle is not None:
        settle()
    try:
        instance.destroy()
    except exception.InstanceNotFound:
        LOG.info('Instance record was already gone', instance=instance)
        return
    LOG.info('Instance deleted', instance=instance)
