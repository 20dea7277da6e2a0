"""Evacuation on a compute agent: rebuilding on the destination, and the
source's recovery when it comes back.

The source destroys a local copy only when an evacuation migration record
says the instance was moved away: never because an instance's host field
differs from its own name. Those instances are left alone and named in a
warning.
"""

from typing import Any

from oslo_config import cfg
from oslo_log import log as logging

from nova_lite.compute import instance_ops
from nova_lite.compute import move
from nova_lite.compute import states
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import migration as migration_obj

LOG = logging.getLogger(__name__)

# How many unexplained instances a warning names (the count is complete).
_NAMED = 20


def fail(instance: Any, migration: Any, reason: str) -> None:
    migration.status = 'failed'
    migration.save()
    instance.vm_state = states.ERROR
    instance.task_state = None
    instance.fault = instance_ops.fault(reason)
    if not instance_ops.saved(instance, [states.REBUILDING]):
        LOG.info('Instance changed while failing its evacuation',
                 instance=instance)


def _claim(node: Any, instance: Any, migration: Any) -> bool:
    if migration.claim_destination(node.id, instance.vcpus,
                                   instance.memory_mb, instance.root_gb):
        return True
    fail(instance, migration, f'Evacuation to {node.host} failed: the '
          f'node no longer has room, or the migration was not accepted '
          f'(status {migration.status}).')
    return False


def rebuild_on_destination(context: Any, driver: Any, node: Any,
                           instance: Any, migration: Any) -> None:
    """Claim on ``node``, rebuild the instance here, then move host,
    node and compute_id together and mark the migration ``done``."""
    if not _claim(node, instance, migration):
        LOG.warning('Evacuation %s failed to claim on %s', migration.uuid,
                    node.hypervisor_hostname, instance=instance)
        return
    try:
        driver.spawn(instance)
    except Exception as exc:
        LOG.exception('Rebuild of an evacuated instance failed',
                      instance=instance)
        fail(instance, migration, f'Evacuation rebuild failed: {exc}')
        return
    stopped = instance.vm_state == states.STOPPED
    move.place_on(instance, node,
                  states.STOPPED if stopped else states.ACTIVE, not stopped)
    if not instance_ops.saved(instance, [states.REBUILDING]):
        LOG.info('The instance was deleted while it was evacuated here; '
                 'removing the rebuilt copy', instance=instance)
        driver.destroy(instance)
        migration.status = 'failed'
        migration.save()
        return
    migration.finish_on_destination()
    LOG.info('Evacuated from %s to %s (migration %s, %s)',
             migration.source_compute, node.host, migration.uuid,
             migration.status, instance=instance)


def _destroy_local_copy(driver: Any, migration: Any,
                        shared: bool) -> None:
    copy = instance_obj.Instance(uuid=migration.instance_uuid)
    driver.destroy(copy, destroy_disks=not shared)
    LOG.info('Destroyed the local copy of an instance evacuated to %s '
             '(migration %s, status %s)%s', migration.dest_compute,
             migration.uuid, migration.status,
             '; disks kept on shared storage' if shared else '',
             instance_uuid=migration.instance_uuid)


def destroy_evacuated_instances(context: Any, driver: Any, host: str,
                                nodes: dict[str, Any],
                                on_hypervisor: list[str]) -> int:
    """The source's recovery, before any instance is initialised.

    One query loads the evacuations away from this host (accepted,
    pre-migrating or done, also of deleted instances); exactly their local
    copies are destroyed and the records marked completed in one update.
    Instances on the hypervisor that belong neither to this host's nodes
    nor to such a record are left alone and named in a warning.
    """
    migrations = migration_obj.MigrationList.get_evacuations_from(context,
                                                                  host)
    present = set(on_hypervisor)
    for migration in migrations:
        if migration.instance_uuid in present:
            shared = driver.shares_storage_with(migration.dest_compute)
            _destroy_local_copy(driver, migration, shared)
    migration_obj.MigrationList.mark_completed(
        context, [m.id for m in migrations])
    _warn_unexplained(context, host, nodes, present,
                      {m.instance_uuid for m in migrations})
    return len(migrations)


def _warn_unexplained(context: Any, host: str, nodes: dict[str, Any],
                      present: set[str], evacuated: set[str]) -> None:
    if not present - evacuated:
        return
    mine = set(instance_obj.InstanceList.get_uuids_by_compute_ids(
        context, [node.id for node in nodes.values()]))
    unexplained = sorted(present - evacuated - mine)
    if not unexplained:
        return
    named = ', '.join(unexplained[:_NAMED])
    more = (f' and {len(unexplained) - _NAMED} more'
            if len(unexplained) > _NAMED else '')
    LOG.warning('%d instance(s) on this hypervisor are not recorded on '
                'host %s and no evacuation record explains them: %s%s. '
                'They are left alone (never destroyed on a guess); check '
                'where each one runs ("openstack server show") and clean '
                'up by hand.', len(unexplained), host, named, more)


def warn_destroy_after_evacuate(conf: cfg.ConfigOpts) -> None:
    if conf.workarounds.destroy_after_evacuate is False:
        LOG.warning('[workarounds]destroy_after_evacuate = False has no '
                    'effect: local copies are destroyed only where an '
                    'evacuation record says the instance moved away.')
