"""Cold migrations and resizes that stalled, resumed by the agent whose
step it is.

A move is a relay of casts between two agents (compute/move.py); a
crash, a lost message or a flow that died on an error stops the relay.
At start-up (before the RPC server takes new requests, so no flow of
this process is under way), and on every housekeeping pass for moves
whose record has not changed for a while and that this agent is not
working on, the agent finds every move in flight from its host or
claimed by one of its nodes, and takes the step that is its own:

==================  ==============  ======================================
status              this host is    what it does
==================  ==============  ======================================
``pre-migrating``   destination     claimed: ask the source again to send
                                    the disks (a repeated request is
                                    refused by the source's
                                    compare-and-swap)
``pre-migrating``   source          it had begun (task state
                                    ``resize_migrating``) but sent
                                    nothing: as below
``migrating``       source          it was sending: put its copy back,
                                    the move is ``error`` (as before)
``post-migrating``  destination     the disks arrived: finish the move
``confirming``      source          delete the copy kept aside
``reverting``       source          restore the copy kept aside (what the
                                    destination still holds is then
                                    reaped by its own clean-up); when
                                    the record is back here already,
                                    end the migration ``reverted``
``reverting``       destination     destroy its copy, ask the source to
                                    restore (a move to another host)
==================  ==============  ======================================

Every step is one that would have run anyway, and each is safe to run
twice. A move whose instance was deleted ends ``error``; its copies are
reaped as those of any deleted instance (compute/cleanup.py).
"""

import datetime
from typing import Any
from typing import cast

from oslo_log import log as logging
from oslo_utils import timeutils

from lite_common.context import RequestContext
from nova_lite.common import states
from nova_lite.compute import move
from nova_lite.compute.busy import Busy
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import migration as migration_obj
from nova_lite.objects.instance import Instance
from nova_lite.objects.migration import Migration

LOG = logging.getLogger(__name__)


def stalled(record: Any, stale_after: float | None) -> bool:
    """Whether ``record`` (a migration or instance) has not changed for
    ``stale_after`` seconds (always, when None)."""
    if stale_after is None:
        return True
    changed = record.updated_at or record.created_at
    if changed is None:
        return True
    if changed.tzinfo is None:
        changed = changed.replace(tzinfo=datetime.UTC)
    age = timeutils.utcnow(with_timezone=True) - changed
    return cast(bool, age.total_seconds() >= stale_after)


def resume(
    context: RequestContext,
    rpc: Any,
    driver: Any,
    host: str,
    nodes: dict[str, Any],
    busy: Busy,
    stale_after: float | None = None,
) -> int:
    """Take this host's step of every cold move in flight; how many
    moves were looked at. Two queries, whatever the count.

    At start-up (``stale_after`` None) every move is taken up. On a
    housekeeping pass only those whose record has not changed for
    ``stale_after`` seconds (their step's request was lost, or the flow
    died on an error, e.g. an unreachable conductor), and never one this
    agent is working on (``busy``)."""
    by_id = {node.id: node for node in nodes.values()}
    by_name = {node.hypervisor_hostname: node for node in nodes.values()}
    migrations = migration_obj.MigrationList.get_cold_moves_in_flight(
        context, host, list(by_id)
    )
    if not migrations:
        return 0
    instances = {
        i.uuid: i
        for i in instance_obj.InstanceList.get_by_filters(
            context, {'uuid': [m.instance_uuid for m in migrations]}
        )
    }
    step = _Step(context, rpc, driver, host, by_id, by_name)
    for migration in migrations:
        if not stalled(migration, stale_after):
            continue
        instance = instances.get(migration.instance_uuid)
        if instance is None:
            LOG.info(
                '%s %s: its instance %s was deleted; the move ends',
                migration.migration_type.capitalize(),
                migration.uuid,
                migration.instance_uuid,
            )
            migration.transition(move.IN_FLIGHT, 'error')
            continue
        with busy.hold(migration.id) as free:
            if free:
                step.take(instance, migration)
    return len(migrations)


class _Step:
    def __init__(
        self,
        context: RequestContext,
        rpc: Any,
        driver: Any,
        host: str,
        by_id: dict[int, Any],
        by_name: dict[str, Any],
    ) -> None:
        self.context = context
        self.rpc = rpc
        self.driver = driver
        self.host = host
        self.by_id = by_id
        self.by_name = by_name

    def take(self, instance: Instance, migration: Migration) -> None:
        source = migration.source_compute == self.host
        dest = self.by_id.get(migration.dest_compute_id)
        status, task = migration.status, instance.task_state
        if (
            status == 'pre-migrating'
            and dest is not None
            and (task == states.RESIZE_PREP)
        ):
            self._ask_source_again(instance, migration)
        elif (
            status in ('pre-migrating', 'migrating')
            and source
            and (task == states.RESIZE_MIGRATING)
        ):
            self._put_back(instance, migration)
        elif (
            status == 'post-migrating'
            and dest is not None
            and task in (states.RESIZE_MIGRATED, states.RESIZE_FINISH)
        ):
            self._log_resume(instance, migration, 'finishing it here')
            move.finish_resize(
                self.context,
                self.driver,
                dest,
                instance,
                migration,
                resuming=True,
            )
        elif status == 'confirming' and source:
            self._log_resume(
                instance, migration, 'deleting the copy kept aside'
            )
            move.confirm_resize(
                self.context,
                self.driver,
                self.by_name.get(migration.source_node),
                instance,
                migration,
            )
        elif (
            status == 'reverting'
            and source
            and (task == states.RESIZE_REVERTING)
        ):
            self._revert_here(instance, migration)
        elif (
            status == 'reverting'
            and source
            and task is None
            and (instance.host == self.host)
        ):
            self._log_resume(
                instance,
                migration,
                'the instance is back here; ending the migration',
            )
            move.end_revert(self.context, migration)
        elif (
            status == 'reverting'
            and dest is not None
            and (task == states.RESIZE_REVERTING)
        ):
            self._log_resume(
                instance,
                migration,
                'destroying the copy '
                'here and asking the source to restore its own',
            )
            move.revert_resize(
                self.context, self.rpc, self.driver, instance, migration
            )
        elif status == 'finished':
            LOG.info(
                '%s %s waits to be confirmed or reverted',
                migration.migration_type.capitalize(),
                migration.uuid,
                instance=instance,
            )
        else:
            LOG.warning(
                "%s %s is %s (task state %s): not this host's "
                'step; left alone. If it does not go on, check '
                '"openstack server migration list" and the other '
                "host's log.",
                migration.migration_type.capitalize(),
                migration.uuid,
                status,
                task,
                instance=instance,
            )

    def _log_resume(
        self, instance: Instance, migration: Migration, what: str
    ) -> None:
        LOG.warning(
            '%s %s (%s) was interrupted; %s',
            migration.migration_type.capitalize(),
            migration.uuid,
            migration.status,
            what,
            instance=instance,
        )

    def _ask_source_again(
        self, instance: Instance, migration: Migration
    ) -> None:
        self._log_resume(
            instance,
            migration,
            'asking the source '
            f'{migration.source_compute} again to send the '
            f'disks',
        )
        self.rpc.resize_instance(
            self.context,
            instance,
            migration,
            self.driver.prepare_incoming(instance),
            migration.source_compute,
        )

    def _put_back(self, instance: Instance, migration: Migration) -> None:
        self.driver.abort_migration(instance)
        LOG.warning(
            'A move (migration %s) was interrupted while this host '
            'sent the disks; the instance stays here and the '
            'migration is error',
            migration.uuid,
            instance=instance,
        )
        migration.transition(move.IN_FLIGHT, 'error')
        move.clear_move(instance, [states.RESIZE_MIGRATING])

    def _revert_here(self, instance: Instance, migration: Migration) -> None:
        node = self.by_name.get(migration.source_node)
        if node is None:
            LOG.error(
                'Migration %s names source node %s, which this host '
                'does not have',
                migration.uuid,
                migration.source_node,
                instance=instance,
            )
            return
        self._log_resume(
            instance, migration, 'restoring the copy kept aside here'
        )
        move.finish_revert_resize(
            self.context, self.driver, node, instance, migration
        )
