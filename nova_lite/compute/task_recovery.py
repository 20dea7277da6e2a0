"""Server tasks this agent accepted and lost, finished or failed.

The API sets a task state (``rebuilding``, ``powering-off``,
``deleting``...) and casts its request to the server's agent. The agent
can lose the request after taking it: it dies before it is done (issue
29: it took a rebuild and was killed while it waited for a frozen
conductor), or the handler ends on an error such as a conductor that
did not answer in time. A cast is delivered at most once, so nothing
else would end the task: the server would stay in it for good.

At start-up (before the RPC server takes requests) every such task on
this agent's nodes is taken up; on every housekeeping pass, each task
unchanged for ``stale_after`` seconds that no thread of this agent works
on (:class:`~nova_lite.compute.busy.Busy`, held by every request for its
server). What is done is what the request would have done, and each is
a compare-and-swap from the task state, so a request that still arrives
afterwards does nothing:

=====================  ================================================
task state             taken up as
=====================  ================================================
``deleting``           the delete is finished
power tasks            finished (compute/power.py)
``shelving``...        finished (compute/shelve.py): a ``queued``
                       snapshot is written again; one whose upload was
                       cut short fails the shelve (the image deleted)
``rebuilding``         the rebuild is carried out (the API stored the
                       new image with the task), unless an evacuation
                       of the server is in progress: that task state is
                       then the evacuation's (compute/evacuation.py)
``rebuild_spawning``   the rebuild is carried out again (idempotent)
``rescuing``...        undone or finished (compute/rescue.py)
``image_*``            the snapshot or backup is written again, or its
                       image deleted (compute/snapshot.py)
``spawning``           ERROR, as upstream: a build cut short cannot be
                       told from one that failed
``scheduling``         at start-up ERROR (the same); while the agent
                       runs, built (compute/build_recovery.py)
=====================  ================================================

A driver failure ends each as its request would have (ERROR with a fault
for a rebuild, the task ended for a power action): always a state an
operator can act on. No disk is destroyed that the request itself
would not have replaced or deleted.
"""

from typing import Any

from oslo_config import cfg
from oslo_log import log as logging

from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.common import instance_ops
from nova_lite.common import states
from nova_lite.compute import move_recovery
from nova_lite.compute import power
from nova_lite.compute import rebuild
from nova_lite.compute import rescue
from nova_lite.compute import shelve
from nova_lite.compute import snapshot
from nova_lite.compute.busy import Busy
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import migration as migration_obj
from nova_lite.objects.instance import Instance

LOG = logging.getLogger(__name__)
# Every task state an agent's request may leave behind.
AT_START = (
    states.DELETING,
    states.SPAWNING,
    states.SCHEDULING,
    *states.SHELVING_TASKS,
    states.SHELVING_OFFLOADING,
    states.UNSHELVING,
    states.REBUILDING,
    states.REBUILD_SPAWNING,
    states.RESCUING,
    states.UNRESCUING,
    *power.TASKS,
    *states.IMAGE_TASKS,
)
# While the agent runs: builds and unshelves whose request was lost have
# passes of their own (build_recovery.resume, shelve.resume_unshelves).
WHILE_RUNNING = tuple(
    t for t in AT_START if t not in (states.SCHEDULING, states.UNSHELVING)
)
EVACUATING = ['accepted', 'pre-migrating']


def _evacuating(context: RequestContext, uuids: list[str]) -> set[str]:
    """Those of ``uuids`` with an evacuation in progress (one query)."""
    if not uuids:
        return set()
    return {
        m.instance_uuid
        for m in migration_obj.MigrationList.get_by_filters(
            context,
            {
                'instance_uuids': uuids,
                'migration_type': 'evacuation',
                'status': EVACUATING,
            },
        )
    }


def _fail_build(instance: Instance) -> None:
    """Placed here and not built: the build was under way, or its
    request may have been lost (RPC casts are delivered at most once).
    As upstream, ERROR: a request that still arrives finds the task
    state changed and builds nothing."""
    LOG.warning(
        'Build interrupted (task %s); setting ERROR',
        instance.task_state,
        instance=instance,
    )
    expected = instance.task_state
    instance.vm_state = states.ERROR
    instance.task_state = None
    instance.fault = {
        'code': 500,
        'message': 'Build interrupted by a compute '
        'service restart or a lost request.',
    }
    instance_ops.saved(instance, [expected])


def _take_up(
    context: RequestContext,
    conf: cfg.ConfigOpts,
    driver: Any,
    instance: Instance,
    host: str,
) -> None:
    task = instance.task_state
    if task in power.TASKS:
        power.recover(context, driver, instance, host)
    elif task in (
        *states.SHELVING_TASKS,
        states.SHELVING_OFFLOADING,
    ) or shelve.is_unshelving(instance):
        shelve.recover(context, conf, driver, instance, host)
    elif task in (states.REBUILDING, states.REBUILD_SPAWNING):
        LOG.info(
            'Carrying out an interrupted rebuild (task %s)',
            task,
            instance=instance,
        )
        rebuild.rebuild(context, driver, instance, host, resumed=True)
    elif task in (states.RESCUING, states.UNRESCUING):
        rescue.recover(context, driver, instance, host)
    elif task in states.IMAGE_TASKS:
        snapshot.recover(context, conf, driver, instance, host)
    elif task == states.DELETING:
        LOG.info('Finishing an interrupted delete', instance=instance)
        instance_ops.terminate(context, driver, instance)
    elif task in (states.SPAWNING, states.SCHEDULING):
        _fail_build(instance)


def _candidates(
    context: RequestContext, nodes: dict[str, Any], tasks: tuple[str, ...]
) -> list[Any]:
    """The instances on ``nodes`` in one of ``tasks``, without those
    whose ``rebuilding`` is an evacuation's (two queries at most)."""
    found = [
        inst
        for _node, inst in instance_ops.on_nodes(
            context, nodes, {'task_state': list(tasks)}
        )
    ]
    rebuilding = [i.uuid for i in found if i.task_state == states.REBUILDING]
    evacuating = _evacuating(context, rebuilding)
    for inst in found:
        if inst.uuid in evacuating:
            LOG.info(
                'Task %s belongs to an evacuation in progress; left to it',
                inst.task_state,
                instance=inst,
            )
    return [i for i in found if i.uuid not in evacuating]


def _still(context: RequestContext, instance: Instance) -> Any:
    """The instance re-read, if it is still in the same task on the same
    node (what was read before the hold may have moved on: a request
    finished it, a state reset ended it); None otherwise."""
    try:
        current = instance_obj.Instance.get_by_uuid(context, instance.uuid)
    except exception.InstanceNotFound:
        return None
    if (current.task_state, current.compute_id) != (
        instance.task_state,
        instance.compute_id,
    ):
        return None
    return current


def at_start(
    context: RequestContext,
    conf: cfg.ConfigOpts,
    driver: Any,
    nodes: dict[str, Any],
    host: str,
    busy: Busy,
) -> int:
    """Finish or fail every task a restart interrupted; returns how many.

    One query fetches only the instances left mid-operation on this
    agent's nodes, so start-up does not grow with the instances that are
    at rest, nor with the number of nodes.
    """
    taken = 0
    for instance in _candidates(context, nodes, AT_START):
        # Nothing else of this process runs yet: what was just read is
        # current (no re-read per instance).
        with busy.hold(instance.uuid) as free:
            if free:
                _take_up(context, conf, driver, instance, host)
                taken += 1
    return taken


def resume_stalled(
    context: RequestContext,
    conf: cfg.ConfigOpts,
    driver: Any,
    nodes: dict[str, Any],
    host: str,
    busy: Busy,
    stale_after: float,
) -> int:
    """Housekeeping: take up the tasks unchanged for ``stale_after``
    seconds that no thread of this agent works on (their request was
    lost, or its handler died on an error); how many."""
    taken = 0
    for instance in _candidates(context, nodes, WHILE_RUNNING):
        if not move_recovery.stalled(instance, stale_after):
            continue
        with busy.hold(instance.uuid) as free:
            current = _still(context, instance) if free else None
            if current is None:
                continue
            LOG.warning(
                'Task %s has not moved for over %s s and no '
                'request here works on it (the request was lost); '
                'taking it up',
                instance.task_state,
                stale_after,
                instance=current,
            )
            _take_up(context, conf, driver, current, host)
            taken += 1
    return taken
