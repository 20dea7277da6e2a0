"""Cold migration and resize on the compute agents.

The steps, each a cast to the agent that does it::

    destination  prep_resize           claim; dest_compute_id is set
    source       resize_instance       send the disks (copy kept aside)
    destination  finish_resize         host, node, compute_id, flavor move
                                       together; VERIFY_RESIZE
    source       confirm_resize        delete the copy kept aside
    destination  revert_resize         destroy its copy, hand back
    source       finish_revert_resize  restore; host, node, compute_id and
                                       the old flavor come back together

The source finds the destination by ``Migration.dest_compute_id`` (by
host and node name only for records written without it). A step that
fails leaves the migration ``error``; nothing is ever destroyed on a
guess: the source's copy stays until the operator confirms.
"""

from typing import Any

from oslo_log import log as logging

from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.common import instance_ops
from nova_lite.common import power_state
from nova_lite.common import states
from nova_lite.objects import compute_node as cn_obj
from nova_lite.objects import migration as migration_obj
from nova_lite.objects.instance import Instance
from nova_lite.objects.migration import Migration
from nova_lite.scheduler import claim_terms

LOG = logging.getLogger(__name__)


def destination_node(context: RequestContext, migration: Migration) -> Any:
    """The destination ComputeNode, by the integer link when set."""
    if migration.dest_compute_id is not None:
        return cn_obj.ComputeNode.get_by_id(context, migration.dest_compute_id)
    LOG.info(
        'Migration %s has no dest_compute_id (an old record); '
        'finding its destination by name %s/%s',
        migration.uuid,
        migration.dest_compute,
        migration.dest_node,
        instance_uuid=migration.instance_uuid,
    )
    return cn_obj.ComputeNode.get_by_host_and_nodename(
        context, migration.dest_compute, migration.dest_node
    )


def clear_move(instance: Instance, expected: list[str | None]) -> bool:
    """Forget the move's flavors and task state (the instance stays as it
    was); False when the instance changed or went away meanwhile."""
    instance.task_state = None
    instance.old_flavor = None
    instance.new_flavor = None
    if not instance_ops.saved(instance, expected):
        LOG.info(
            'Instance changed while its move was abandoned', instance=instance
        )
        return False
    return True


# A cold migration or resize between its start and its end.
IN_FLIGHT = list(states.COLD_MOVES_IN_FLIGHT)


def _abandon(
    instance: Instance,
    migration: Migration,
    expected: list[str | None],
    reason: str,
) -> None:
    """Before anything moved: the migration is ``error``; the instance
    stays where it is, as it was."""
    LOG.warning(
        '%s %s abandoned: %s',
        migration.migration_type.capitalize(),
        migration.uuid,
        reason,
        instance=instance,
    )
    if migration.transition(IN_FLIGHT, 'error'):
        clear_move(instance, expected)


def _fail(
    instance: Instance,
    migration: Migration,
    expected: list[str | None],
    reason: str,
) -> None:
    """After the disks moved: ERROR with a fault; the copy kept on the
    source is left for the operator."""
    LOG.error(
        '%s %s failed: %s. The copy on %s is kept.',
        migration.migration_type.capitalize(),
        migration.uuid,
        reason,
        migration.source_compute,
        instance=instance,
    )
    if not migration.transition(IN_FLIGHT, 'error'):
        LOG.info(
            'Migration %s ended meanwhile (%s)',
            migration.uuid,
            migration.status,
            instance=instance,
        )
        return
    instance.vm_state = states.ERROR
    instance.task_state = None
    instance.fault = instance_ops.fault(reason)
    if not instance_ops.saved(instance, expected):
        LOG.info('Instance changed while its move failed', instance=instance)


def _flavor_resources(flavor: dict[str, Any]) -> tuple[int, int, int]:
    return (
        flavor.get('vcpus', 0),
        flavor.get('memory_mb', 0),
        flavor.get('root_gb', 0),
    )


def _refused(
    context: RequestContext,
    conductor: Any,
    instance: Instance,
    migration: Migration,
    node: Any,
    reason: str,
    max_attempts: int,
) -> None:
    """This destination refused at its claim, before anything moved:
    the conductor chooses another without it (a destination the
    scheduler chose, while fewer than ``max_attempts`` hosts have
    refused, as upstream's reschedule), else the move is abandoned."""
    if migration.release_destination(
        node.host, node.hypervisor_hostname, max_attempts
    ):
        LOG.warning(
            '%s %s: %s; another destination is chosen without '
            '%s (refused so far: %s)',
            migration.migration_type.capitalize(),
            migration.uuid,
            reason,
            node.host,
            ', '.join(migration.refused_hosts),
            instance=instance,
        )
        conductor.migrate_server(context, instance.uuid, migration.id, None)
        return
    if (migration.dest_compute, migration.dest_node) != (
        node.host,
        node.hypervisor_hostname,
    ):
        # A stale request (redelivered, or sent again by a recovery that
        # read the record before): the move has another destination, or
        # none while it is chosen again; it is not this host's to end.
        LOG.info(
            '%s %s: %s, but its destination is %s/%s now; a stale '
            'request, nothing to do here',
            migration.migration_type.capitalize(),
            migration.uuid,
            reason,
            migration.dest_compute,
            migration.dest_node,
            instance=instance,
        )
        return
    _abandon(instance, migration, [states.RESIZE_PREP], reason)


def prep_resize(
    context: RequestContext,
    rpc: Any,
    conductor: Any,
    driver: Any,
    node: Any,
    instance: Instance,
    migration: Migration,
    max_attempts: int,
) -> None:
    """Destination: claim the new flavor's resources, then ask the
    source to send the disks here. A claim refused (no room left, or
    the server group's policy no longer allowing this host) is handed
    back to the conductor (see :func:`_refused`)."""
    flavor = instance.new_flavor or instance.flavor or {}
    result = migration.claim_resize(node.id, *_flavor_resources(flavor))
    if result == claim_terms.NO_ROOM:
        _refused(
            context,
            conductor,
            instance,
            migration,
            node,
            f'{node.hypervisor_hostname} has no room for the new flavor',
            max_attempts,
        )
        return
    if result == claim_terms.GROUP_POLICY:
        _refused(
            context,
            conductor,
            instance,
            migration,
            node,
            f"the server group's policy no longer allows {node.host}",
            max_attempts,
        )
        return
    waiting = (
        result == claim_terms.ALREADY_CLAIMED
        and migration.status == 'pre-migrating'
        and instance.task_state == states.RESIZE_PREP
    )
    if result != claim_terms.CLAIMED and not waiting:
        LOG.info(
            'Migration %s is %s (destination %s, %s): a repeated or '
            'stale request, nothing to do here',
            migration.uuid,
            migration.status,
            migration.dest_compute,
            result,
            instance=instance,
        )
        return
    LOG.info(
        '%s %s for migration %s (dest_compute_id %s)',
        'Claimed' if result == claim_terms.CLAIMED else 'Claimed before:',
        node.hypervisor_hostname,
        migration.uuid,
        migration.dest_compute_id,
        instance=instance,
    )
    rpc.resize_instance(
        context,
        instance,
        migration,
        driver.prepare_incoming(instance),
        migration.source_compute,
    )


def _left_the_move(context: RequestContext, instance: Instance) -> bool:
    """Whether the instance, as stored now, is in no task: a state reset
    (or the end of the move) took it out of this move."""
    try:
        current = type(instance).get_by_uuid(context, instance.uuid)
    except exception.InstanceNotFound:
        return True
    return current.task_state is None


def resize_instance(
    context: RequestContext,
    rpc: Any,
    driver: Any,
    instance: Instance,
    migration: Migration,
    migrate_data: dict[str, Any],
) -> None:
    """Source: send the disks to the destination, keep a copy aside."""
    current = migration_obj.Migration.get_by_id(context, migration.id)
    if current.status != 'pre-migrating':
        # Ended (a state reset, a refusal) or going on already: a stale
        # or repeated request. Read before the instance's task state is
        # touched, which may be a newer move's by now.
        LOG.info(
            'Not migrating: migration %s is %s',
            migration.uuid,
            current.status,
            instance=instance,
        )
        return
    instance.task_state = states.RESIZE_MIGRATING
    outcome = instance_ops.save(instance, [states.RESIZE_PREP])
    if outcome != instance_ops.SAVED:
        # Changed: a repeated request (the first one goes on) or a reset.
        LOG.info(
            'Not migrating: the instance was %s', outcome, instance=instance
        )
        if outcome == instance_ops.DELETED or _left_the_move(
            context, instance
        ):
            # Nothing moved yet: the move is over, and so is the
            # destination's claim (model seed 20119: a state reset while
            # the request waited for this host left the record
            # pre-migrating and the claim held for good).
            migration.transition(['pre-migrating'], 'error')
        return
    if not migration.transition(['pre-migrating'], 'migrating'):
        _abandon(
            instance,
            migration,
            [states.RESIZE_MIGRATING],
            f'the migration is {migration.status}',
        )
        return
    try:
        dest = destination_node(context, migration)
        driver.migrate_disk_and_power_off(instance, dest.host, migrate_data)
    except Exception as exc:
        LOG.exception('Sending the disks failed', instance=instance)
        _abandon(
            instance,
            migration,
            [states.RESIZE_MIGRATING],
            f'sending the disks failed: {exc}',
        )
        return
    migration.transition(['migrating'], 'post-migrating')
    instance.task_state = states.RESIZE_MIGRATED
    outcome = instance_ops.save(instance, [states.RESIZE_MIGRATING])
    if outcome != instance_ops.SAVED:
        LOG.info(
            'The instance was %s while its disks were sent; the copy '
            'kept here stays until cleaned up',
            outcome,
            instance=instance,
        )
        if outcome == instance_ops.DELETED:
            migration.transition(['post-migrating'], 'error')
        return
    rpc.finish_resize(context, instance, migration, dest.host)


def place_on(
    instance: Instance, node: Any, vm_state: str, running: bool
) -> None:
    """host, node and compute_id together, the instance at rest in
    ``vm_state`` (running or shut down), its task and fault cleared."""
    instance.host, instance.node = node.host, node.hypervisor_hostname
    instance.compute_id = node.id
    instance.vm_state = vm_state
    instance.power_state = (
        power_state.RUNNING if running else power_state.SHUTDOWN
    )
    instance.task_state = None
    instance.fault = None


def _arrive(
    instance: Instance,
    node: Any,
    flavor: dict[str, Any],
    vm_state: str,
    running: bool,
) -> None:
    """host, node and compute_id together, with the flavor in force."""
    place_on(instance, node, vm_state, running)
    instance.flavor = flavor
    (instance.vcpus, instance.memory_mb, instance.root_gb) = _flavor_resources(
        flavor
    )


def finish_resize(
    context: RequestContext,
    driver: Any,
    node: Any,
    instance: Instance,
    migration: Migration,
    resuming: bool = False,
) -> None:
    """Destination: take the disks, move the instance here (RESIZED).
    ``resuming``: after a restart that interrupted it (the task state
    may already be ``resize_finish``)."""
    expected: list[str | None] = [states.RESIZE_MIGRATED]
    if resuming:
        expected.append(states.RESIZE_FINISH)
    instance.task_state = states.RESIZE_FINISH
    outcome = instance_ops.save(instance, expected)
    if outcome != instance_ops.SAVED:
        # Changed: a repeated request (the first one goes on) or a reset.
        LOG.info(
            'Not finishing: the instance was %s', outcome, instance=instance
        )
        if outcome == instance_ops.DELETED:
            migration.transition(['post-migrating'], 'error')
        return
    flavor = instance.new_flavor or instance.flavor or {}
    running = instance.vm_state != states.STOPPED
    try:
        driver.finish_migration(instance, flavor.get('root_gb', 0), running)
    except Exception as exc:
        LOG.exception('Finishing the move failed', instance=instance)
        _fail(
            instance,
            migration,
            [states.RESIZE_FINISH],
            f'finishing the move on {node.host} failed: {exc}',
        )
        return
    # The source holds the instance's room from ``finished`` on, so the
    # status moves before compute_id (whose save refreshes usage).
    migration.transition(['post-migrating'], 'finished')
    _arrive(instance, node, flavor, states.RESIZED, running)
    outcome = instance_ops.save(instance, [states.RESIZE_FINISH])
    if outcome == instance_ops.DELETED:
        LOG.info(
            'The instance was deleted while it arrived; removing the '
            'copy here',
            instance=instance,
        )
        driver.destroy(instance)
        migration.transition(['finished'], 'error')
        return
    if outcome == instance_ops.CHANGED:
        LOG.warning(
            'The instance changed while it arrived (a state '
            'reset?): it stays recorded on %s, which keeps its copy '
            'aside; the copy that arrived here is kept too. '
            'Migration %s is error.',
            migration.source_compute,
            migration.uuid,
            instance=instance,
        )
        migration.transition(['finished'], 'error')
        return
    LOG.info(
        'Moved from %s to %s (migration %s finished); confirm or revert it',
        migration.source_compute,
        node.host,
        migration.uuid,
        instance=instance,
    )


def _at_rest(instance: Instance) -> str:
    return (
        states.STOPPED
        if instance.power_state == power_state.SHUTDOWN
        else states.ACTIVE
    )


def confirm_resize(
    context: RequestContext,
    driver: Any,
    node: Any,
    instance: Instance,
    migration: Migration,
) -> None:
    """Source: delete the copy kept aside; the move is over."""
    driver.confirm_migration(instance)
    migration.transition(['confirming'], 'confirmed')
    instance.vm_state = _at_rest(instance)
    instance.old_flavor = None
    instance.new_flavor = None
    if not instance_ops.saved(instance, [None]):
        LOG.info(
            'Instance changed while its move was confirmed', instance=instance
        )
    if node is not None:
        node.refresh_usage()
    LOG.info(
        'Confirmed migration %s: the copy on %s is deleted',
        migration.uuid,
        migration.source_compute,
        instance=instance,
    )


def revert_resize(
    context: RequestContext,
    rpc: Any,
    driver: Any,
    instance: Instance,
    migration: Migration,
) -> None:
    """Destination: destroy its copy, then ask the source to restore.
    A repeated request after the revert finished does nothing (on a
    resize to the same host, "its copy" is by then the restored one)."""
    fresh = migration_obj.Migration.get_by_id(context, migration.id)
    if fresh.status != 'reverting':
        LOG.info(
            'Not reverting migration %s: it is %s',
            migration.uuid,
            fresh.status,
            instance=instance,
        )
        return
    driver.destroy(instance)
    LOG.info(
        'Destroyed the copy on %s; %s restores its own (migration %s)',
        instance.host,
        migration.source_compute,
        migration.uuid,
        instance=instance,
    )
    rpc.finish_revert_resize(
        context, instance, migration, migration.source_compute
    )


def finish_revert_resize(
    context: RequestContext,
    driver: Any,
    node: Any,
    instance: Instance,
    migration: Migration,
) -> None:
    """Source: restore the copy kept aside; the instance is back here
    with its old flavor."""
    running = instance.power_state != power_state.SHUTDOWN
    try:
        driver.finish_revert_migration(instance, running)
    except Exception as exc:
        LOG.exception('Restoring the copy failed', instance=instance)
        _fail(
            instance,
            migration,
            [states.RESIZE_REVERTING],
            f'reverting on {node.host} failed: {exc}',
        )
        return
    # The record first: from here on it names this host, where the copy
    # is. (Ending the migration first left a window in which a crash
    # kept the record on the destination, which had destroyed its copy,
    # with the move over: found by the model test, seed 7027.)
    _arrive(
        instance,
        node,
        instance.old_flavor or instance.flavor or {},
        states.STOPPED if not running else states.ACTIVE,
        running,
    )
    instance.old_flavor = None
    instance.new_flavor = None
    outcome = instance_ops.save(instance, [states.RESIZE_REVERTING])
    if outcome == instance_ops.DELETED:
        LOG.info(
            'The instance was deleted while it was reverted; removing '
            'the copy here',
            instance=instance,
        )
        driver.destroy(instance)
        migration.transition(['reverting'], 'reverted')
        return
    if outcome == instance_ops.CHANGED:
        # A repeated request, or a reset: the copy here is the instance's.
        LOG.info(
            'Not reverting migration %s again: the instance is no '
            'longer reverting; its copy here is kept',
            migration.uuid,
            instance=instance,
        )
        return
    end_revert(context, migration)
    LOG.info(
        'Reverted migration %s: back on %s',
        migration.uuid,
        node.host,
        instance=instance,
    )


def end_revert(context: RequestContext, migration: Migration) -> None:
    """``reverting`` -> ``reverted`` once the instance is back on the
    source, then the destination's usage (it no longer holds the new
    flavor's room)."""
    if not migration.transition(['reverting'], 'reverted'):
        return
    if migration.dest_compute_id is not None:
        try:
            cn_obj.ComputeNode.get_by_id(
                context, migration.dest_compute_id
            ).refresh_usage()
        except Exception:  # the next usage report corrects it
            LOG.warning(
                'Could not refresh the usage of compute node %s '
                'after migration %s',
                migration.dest_compute_id,
                migration.uuid,
                exc_info=True,
            )
