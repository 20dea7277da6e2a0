"""Evacuation on its destination: claim, rebuild, hand over.

The conductor chose this host and cast ``rebuild_instance``. The
destination claims (the ``accepted`` record becomes ``pre-migrating``,
linked to its node), rebuilds the instance, then moves host, node and
compute_id together and marks the record ``done``; only then may the
source destroy its copy (compute/cleanup.py). It ends ACTIVE, or
STOPPED when it was stopped or the evacuation was asked with API 2.95
or later (the record's ``target_state``).

A request repeated, or one that a crash interrupted, is safe: the claim
is a compare-and-swap, and :class:`Incoming` resumes claimed
evacuations at start-up and on every housekeeping pass, never two at
once for one migration. A failure ends in ``failed`` with the instance
in ERROR on its source, whose copy is kept; what this host built for it
is removed.
"""

from typing import Any

from oslo_log import log as logging

from lite_common.context import RequestContext
from nova_lite.common import instance_ops
from nova_lite.common import states
from nova_lite.compute import move
from nova_lite.compute.busy import Busy
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import migration as migration_obj
from nova_lite.objects.instance import Instance
from nova_lite.objects.migration import Migration
from nova_lite.scheduler import claim_terms

LOG = logging.getLogger(__name__)


def fail(instance: Instance, migration: Migration, reason: str) -> None:
    """The evacuation ends ``failed``; the instance (still recorded on
    its source) goes to ERROR with a fault, unless it changed
    meanwhile (deleted, or reset by an administrator)."""
    if not migration.transition(['accepted', 'pre-migrating'], 'failed'):
        LOG.info(
            'Evacuation %s ended meanwhile (%s); not failing it',
            migration.uuid,
            migration.status,
            instance=instance,
        )
        return
    instance.vm_state = states.ERROR
    instance.task_state = None
    instance.fault = instance_ops.fault(reason)
    if not instance_ops.saved(instance, [states.REBUILDING]):
        LOG.info(
            'Instance changed while failing its evacuation', instance=instance
        )


def _claimed(node: Any, instance: Instance, migration: Migration) -> bool:
    """Claim the node for the evacuation; True when this host is to
    (go on and) rebuild it."""
    result = migration.claim_destination(
        node.id, instance.vcpus, instance.memory_mb, instance.root_gb
    )
    if result == claim_terms.CLAIMED:
        return True
    if result == claim_terms.ALREADY_CLAIMED:
        # A repeated request, or a resumption: go on unless it ended.
        return bool(migration.status == 'pre-migrating')
    if result == claim_terms.NO_ROOM:
        LOG.warning(
            'Evacuation %s cannot claim %s: no room',
            migration.uuid,
            node.hypervisor_hostname,
            instance=instance,
        )
        fail(
            instance,
            migration,
            f'Evacuation to {node.host} failed: the node no longer has room.',
        )
        return False
    if result == claim_terms.GROUP_POLICY:
        LOG.warning(
            'Evacuation %s cannot claim %s: another member of the '
            "instance's server group holds the host now",
            migration.uuid,
            node.hypervisor_hostname,
            instance=instance,
        )
        fail(
            instance,
            migration,
            f'Evacuation to {node.host} failed: the '
            f"server group's policy no longer allows the host.",
        )
        return False
    LOG.info(
        'Evacuation %s is %s (destination %s): nothing to do here',
        migration.uuid,
        migration.status,
        migration.dest_compute,
        instance=instance,
    )
    return False


def ends_stopped(instance: Instance, migration: Migration) -> bool:
    """Whether the evacuated instance ends STOPPED (shut off) here: it
    was stopped, or the evacuation was asked with API 2.95 or later
    (``target_state``); else it ends ACTIVE, as before 2.95."""
    return bool(
        instance.vm_state == states.STOPPED
        or migration.target_state == states.STOPPED
    )


def rebuild(
    driver: Any, node: Any, instance: Instance, migration: Migration
) -> None:
    """Claimed: build the instance here, then place it here and mark the
    evacuation done."""
    if instance.compute_id == node.id:
        # Placed here before a crash: only the record is left to finish.
        migration.finish_on_destination()
        LOG.info(
            'Evacuation %s finished (the instance was already placed here)',
            migration.uuid,
            instance=instance,
        )
        return
    stopped = ends_stopped(instance, migration)
    try:
        driver.spawn(instance)
        if stopped:
            driver.power_off(instance)
    except Exception as exc:
        LOG.exception(
            'Rebuild of an evacuated instance failed', instance=instance
        )
        driver.destroy(instance)
        fail(instance, migration, f'Evacuation rebuild failed: {exc}')
        return
    move.place_on(
        instance,
        node,
        states.STOPPED if stopped else states.ACTIVE,
        not stopped,
    )
    if not instance_ops.saved(instance, [states.REBUILDING]):
        LOG.info(
            'The instance was deleted or reset while it was evacuated '
            'here; removing the rebuilt copy',
            instance=instance,
        )
        driver.destroy(instance)
        migration.transition(['pre-migrating'], 'failed')
        return
    migration.finish_on_destination()
    LOG.info(
        'Evacuated from %s to %s (migration %s, %s)',
        migration.source_compute,
        node.host,
        migration.uuid,
        migration.status,
        instance=instance,
    )


class Incoming:
    """This agent's evacuations in progress: one worker per migration,
    whether it came as a request or is resumed after a crash."""

    def __init__(self, driver: Any, host: str, busy: Busy) -> None:
        self.driver = driver
        self.host = host
        self._hold = busy.hold

    def evacuate_here(
        self, node: Any, instance: Instance, migration: Migration
    ) -> None:
        with self._hold(migration.id) as free:
            if not free:
                LOG.info(
                    'Evacuation %s is already being worked on here',
                    migration.uuid,
                    instance=instance,
                )
                return
            if _claimed(node, instance, migration):
                rebuild(self.driver, node, instance, migration)

    def resume(self, context: RequestContext, nodes: dict[str, Any]) -> int:
        """Go on with evacuations to this host that were claimed (or
        chosen) but not finished, e.g. interrupted by a crash; returns
        how many were looked at. Two queries, whatever the count."""
        by_id = {node.id: node for node in nodes.values()}
        by_name = {node.hypervisor_hostname: node for node in nodes.values()}
        migrations = migration_obj.MigrationList.get_evacuations_to(
            context, self.host, list(by_id)
        )
        if not migrations:
            return 0
        instances = {
            i.uuid: i
            for i in instance_obj.InstanceList.get_by_filters(
                context, {'uuid': [m.instance_uuid for m in migrations]}
            )
        }
        for migration in migrations:
            node = by_id.get(migration.dest_compute_id) or by_name.get(
                migration.dest_node
            )
            self._resume_one(
                node, instances.get(migration.instance_uuid), migration
            )
        return len(migrations)

    def _resume_one(
        self, node: Any, instance: Instance | None, migration: Migration
    ) -> None:
        if instance is None:
            LOG.info(
                'Evacuation %s: its instance %s was deleted; the '
                'evacuation fails',
                migration.uuid,
                migration.instance_uuid,
            )
            migration.transition(['accepted', 'pre-migrating'], 'failed')
            return
        if (
            node is not None
            and instance.compute_id == node.id
            and migration.status == 'pre-migrating'
        ):
            with self._hold(migration.id) as free:
                if free:
                    rebuild(self.driver, node, instance, migration)
            return
        if node is None or instance.task_state != states.REBUILDING:
            LOG.warning(
                'Evacuation %s (%s) to node %s is left alone: the '
                'instance is in task state %s',
                migration.uuid,
                migration.status,
                migration.dest_node,
                instance.task_state,
                instance=instance,
            )
            return
        LOG.info(
            'Resuming evacuation %s (%s) from %s',
            migration.uuid,
            migration.status,
            migration.source_compute,
            instance=instance,
        )
        self.evacuate_here(node, instance, migration)
