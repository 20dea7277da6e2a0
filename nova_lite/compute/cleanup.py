"""What a compute agent removes from its hypervisor, and what it keeps.

One pass runs at start-up, before any instance is initialised, and then
every ``[DEFAULT]cleanup_interval`` seconds while the agent runs, so that
a host that comes back without a restart (a frozen process, a network
partition) converges too. The rules, each proved by a record:

* **Evacuated away.** A copy named by an evacuation record from this
  host is destroyed only when the record is ``done`` and the instance is
  neither placed on one of this host's compute nodes nor moving to one;
  the record is then ``completed``. A done record whose instance lives
  here again is completed without destroying anything. While any
  evacuation of the instance from here is ``accepted`` or
  ``pre-migrating`` the copy is kept: the move may still fail.
* **Deleted.** A copy of an instance whose records are all deleted is
  reaped (``[DEFAULT]running_deleted_instance_action``).
* **Left by a move.** A copy that a move to this host left behind (of
  the instance's moves that involved this host, the newest came here and
  ended ``error``, ``failed`` or ``reverted``, and the instance, not in
  ERROR, lives elsewhere) is destroyed.
* **Kept aside by a move that ended.** A copy kept aside here of an
  instance placed here, with no task and no cold move of it in flight,
  and no copy in place (a state reset ended its move while the disks
  were sent or had been: db/moves.py) is put back in place.
* **Anything else** not placed here is kept and named in a warning:
  nothing is destroyed on a guess.

A pass costs a fixed number of conductor calls, whatever the number of
instances.
"""

import dataclasses
import threading
from typing import Any

from oslo_config import cfg
from oslo_log import log as logging

from lite_common.context import RequestContext
from nova_lite.common import states
from nova_lite.compute.busy import Busy
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import migration as migration_obj
from nova_lite.objects.migration import Migration

LOG = logging.getLogger(__name__)
IN_PROGRESS = ('accepted', 'pre-migrating')
# A move that ended without placing its instance on its destination.
ENDED_WITHOUT_ARRIVING = ('error', 'failed', 'reverted')
# How many instances a log line names (counts are complete).
_NAMED = 20


def _names(uuids: Any) -> str:
    ordered = sorted(uuids)
    more = (
        f' and {len(ordered) - _NAMED} more' if len(ordered) > _NAMED else ''
    )
    return ', '.join(ordered[:_NAMED]) + more


@dataclasses.dataclass
class Findings:
    """What one pass did and saw."""

    destroyed: list[str] = dataclasses.field(default_factory=list)
    completed: int = 0
    placed_again: list[str] = dataclasses.field(default_factory=list)
    waiting: dict[str, str] = dataclasses.field(default_factory=dict)
    reaped: list[str] = dataclasses.field(default_factory=list)
    unexplained: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class _View:
    """The records a pass decides on, read once."""

    node_ids: list[int]
    on_hypervisor: set[str]
    aside: set[str]
    presence: dict[str, str]
    placed_here: set[str]
    evacuations: dict[str, list[Any]]


class Cleaner:
    """The housekeeping of one agent; passes never overlap."""

    def __init__(
        self,
        conf: cfg.ConfigOpts,
        driver: Any,
        host: str,
        busy: Busy | None = None,
    ) -> None:
        self.conf = conf
        self.driver = driver
        self.host = host
        # Held by the requests that send a server's disks away.
        self.busy = busy or Busy()
        self._lock = threading.Lock()
        self._told: dict[str, frozenset[str]] = {}

    def run(self, context: RequestContext, nodes: dict[str, Any]) -> Findings:
        with self._lock:
            view = self._read(context, nodes)
            found = Findings()
            self._evacuated_away(context, view, found)
            self._reap_deleted(view, found)
            self._unexplained(context, view, found)
            self._put_back_aside(context, view)
            self._report(found)
            return found

    # reading -------------------------------------------------------------

    def _read(self, context: RequestContext, nodes: dict[str, Any]) -> _View:
        on_hypervisor = set(self.driver.list_instance_uuids())
        aside = set(self.driver.list_aside_uuids())
        evacuations: dict[str, list[Any]] = {}
        for migration in migration_obj.MigrationList.get_evacuations_from(
            context, self.host
        ):
            evacuations.setdefault(migration.instance_uuid, []).append(
                migration
            )
        node_ids = [node.id for node in nodes.values()]
        placed_here = set(
            instance_obj.InstanceList.get_uuids_by_compute_ids(
                context, node_ids
            )
        )
        # Whether the rest is live or deleted (usually few: what is
        # placed here needs no question).
        wanted = sorted(
            (on_hypervisor | aside | set(evacuations)) - placed_here
        )
        presence = (
            instance_obj.InstanceList.get_presence(context, wanted)
            if wanted
            else {}
        )
        presence.update(dict.fromkeys(placed_here, states.RECORD_LIVE))
        return _View(
            node_ids, on_hypervisor, aside, presence, placed_here, evacuations
        )

    def _arriving(
        self, context: RequestContext, view: _View, uuids: list[str]
    ) -> set[str]:
        """Those of ``uuids`` with a move to one of this host's nodes
        under way (claimed there, or an evacuation that chose it)."""
        if not uuids:
            return set()
        moves = migration_obj.MigrationList.get_by_filters(
            context,
            {
                'instance_uuids': uuids,
                'status': ['accepted', *states.INCOMING_STATUSES],
            },
        )
        return {
            m.instance_uuid
            for m in moves
            if m.dest_compute_id in view.node_ids
            or (m.status == 'accepted' and m.dest_compute == self.host)
        }

    # the rules -----------------------------------------------------------

    def _evacuated_away(
        self, context: RequestContext, view: _View, found: Findings
    ) -> None:
        done: dict[str, list[Any]] = {}
        for uuid, migrations in view.evacuations.items():
            busy = [m for m in migrations if m.status in IN_PROGRESS]
            if busy:
                found.waiting[uuid] = ', '.join(
                    f'{m.uuid} ({m.status})' for m in busy
                )
            else:
                done[uuid] = migrations
        live = [
            uuid
            for uuid in done
            if view.presence.get(uuid) == states.RECORD_LIVE
            and uuid not in view.placed_here
        ]
        arriving = self._arriving(context, view, live)
        completed: list[int] = []
        for uuid, migrations in done.items():
            if uuid in arriving:
                found.waiting[uuid] = 'a move to this host under way'
                continue
            if uuid in view.placed_here:
                found.placed_again.append(uuid)
            elif uuid in view.on_hypervisor:
                self._destroy_evacuated(uuid, migrations[-1])
                found.destroyed.append(uuid)
            completed += [m.id for m in migrations]
        if completed:
            found.completed = migration_obj.MigrationList.mark_completed(
                context, completed
            )

    def _destroy_evacuated(self, uuid: str, migration: Migration) -> None:
        shared = self.driver.shares_storage_with(migration.dest_compute)
        self.driver.destroy(
            instance_obj.Instance(uuid=uuid), destroy_disks=not shared
        )
        LOG.info(
            'Destroyed the local copy of an instance evacuated to %s '
            '(migration %s, done)%s',
            migration.dest_compute,
            migration.uuid,
            '; disks kept on shared storage' if shared else '',
            instance_uuid=uuid,
        )

    def _reap_deleted(self, view: _View, found: Findings) -> None:
        action = self.conf.running_deleted_instance_action
        deleted = sorted(
            uuid
            for uuid in view.on_hypervisor | view.aside
            if view.presence.get(uuid) == states.RECORD_DELETED
        )
        if not deleted or action == 'noop':
            return
        if action == 'log':
            self._tell(
                'deleted',
                deleted,
                'Local copies of %d deleted '
                'instance(s) are kept ([DEFAULT]'
                'running_deleted_instance_action = log): %s',
            )
            return
        for uuid in deleted:
            if uuid in view.on_hypervisor and uuid not in found.destroyed:
                self.driver.destroy(instance_obj.Instance(uuid=uuid))
            if uuid in view.aside:
                self.driver.destroy_aside(uuid)
            LOG.info(
                'Reaped the local copy of a deleted instance',
                instance_uuid=uuid,
            )
            found.reaped.append(uuid)

    def _unexplained(
        self, context: RequestContext, view: _View, found: Findings
    ) -> None:
        suspects = sorted(
            view.on_hypervisor
            - view.placed_here
            - set(view.evacuations)
            - {
                u
                for u, p in view.presence.items()
                if p == states.RECORD_DELETED
            }
        )
        arriving = self._arriving(context, view, suspects)
        suspects = [u for u in suspects if u not in arriving]
        debris = self._left_by_ended_moves(context, view, suspects)
        for uuid, migration in debris.items():
            self.driver.destroy(instance_obj.Instance(uuid=uuid))
            LOG.info(
                'Destroyed the copy left here by %s %s, which ended '
                '%s; the instance lives on %s',
                migration.migration_type,
                migration.uuid,
                migration.status,
                migration.source_compute,
                instance_uuid=uuid,
            )
            found.reaped.append(uuid)
        found.unexplained = [u for u in suspects if u not in debris]

    def _left_by_ended_moves(
        self, context: RequestContext, view: _View, uuids: list[str]
    ) -> dict[str, Any]:
        """Those of ``uuids`` whose copy here a move to this host left
        behind: of the instance's moves that involved this host (from
        it, or to one of its nodes), the newest came here and ended
        without placing it here (error, failed, reverted); the instance
        lives elsewhere and is not in ERROR (an operator may want every
        copy of that one). Moves between other hosts since then change
        nothing: the copy here is still the one that move left (a move
        away from here would be newer, and keeps the copy)."""
        if not uuids:
            return {}
        newest: dict[str, Any] = {}
        for migration in migration_obj.MigrationList.get_by_filters(
            context, {'instance_uuids': uuids}
        ):
            involved = (
                migration.source_compute == self.host
                or migration.dest_compute == self.host
                or migration.dest_compute_id in view.node_ids
            )
            if involved and migration.id > getattr(
                newest.get(migration.instance_uuid), 'id', -1
            ):
                newest[migration.instance_uuid] = migration
        ended = {
            u: m
            for u, m in newest.items()
            if m.dest_compute_id in view.node_ids
            and m.status in ENDED_WITHOUT_ARRIVING
        }
        if not ended:
            return {}
        # Lives elsewhere: placed on another host's compute node (a
        # record proves where it is), and not in ERROR.
        healthy = {
            i.uuid
            for i in instance_obj.InstanceList.get_by_filters(
                context, {'uuid': list(ended)}
            )
            if i.vm_state != states.ERROR
            and i.compute_id is not None
            and i.compute_id not in view.node_ids
        }
        return {u: m for u, m in ended.items() if u in healthy}

    def _put_back_aside(self, context: RequestContext, view: _View) -> None:
        """Rule "kept aside by a move that ended" (module docstring).
        Under the server's hold, so that no send of its disks starts
        meanwhile (compute/manager.py), and read again in it."""
        uuids = sorted((view.aside - view.on_hypervisor) & view.placed_here)
        for uuid in uuids:
            with self.busy.hold(uuid) as free:
                instance = (
                    self._ended_aside(context, uuid, view.node_ids)
                    if free
                    else None
                )
                if instance is not None:
                    self.driver.abort_migration(instance)
                    LOG.warning(
                        'The copy kept aside here for a move that '
                        'ended (a state reset?) is back in place: '
                        'the instance is placed here',
                        instance=instance,
                    )

    @staticmethod
    def _ended_aside(
        context: RequestContext, uuid: str, node_ids: list[int]
    ) -> Any:
        """The instance, if it is placed here with no task and no cold
        move of it is in flight; None otherwise."""
        found = instance_obj.InstanceList.get_by_filters(
            context, {'uuid': [uuid]}
        )
        if (
            not found
            or found[0].task_state is not None
            or (found[0].compute_id not in node_ids)
        ):
            return None
        moving = migration_obj.MigrationList.get_by_filters(
            context,
            {
                'instance_uuids': [uuid],
                'status': list(states.COLD_MOVES_IN_FLIGHT),
            },
        )
        return None if moving else found[0]

    # telling the operator --------------------------------------------------

    def _tell(self, key: str, uuids: list[str], message: str) -> None:
        """Log ``message`` when the set of instances it names changed
        since the last pass (every pass would repeat it)."""
        current = frozenset(uuids)
        if self._told.get(key) == current:
            return
        self._told[key] = current
        if current:
            LOG.warning(message, len(current), _names(current))

    def _report(self, found: Findings) -> None:
        for uuid in found.placed_again:
            LOG.info(
                'The instance is placed on this host again; its done '
                'evacuation is completed and the copy here is kept',
                instance_uuid=uuid,
            )
        self._tell(
            'waiting',
            list(found.waiting),
            'Keeping the local copies of %d instance(s) whose '
            'evacuation away from here is still in progress (the '
            'move may yet fail); each is destroyed once its '
            'evacuation is done: %s',
        )
        self._tell(
            'unexplained',
            found.unexplained,
            '%d instance(s) on this hypervisor are not placed on '
            "this host's compute node(s), and no migration record "
            'or deletion explains them: %s. They are left alone '
            '(never destroyed on a guess); check where each one runs '
            '("openstack server show") and clean up by hand.',
        )
        if found.destroyed or found.completed or found.reaped:
            LOG.info(
                'Clean-up of host %s: %d evacuated copy(ies) '
                'destroyed, %d evacuation(s) completed, %d deleted '
                'instance(s) reaped',
                self.host,
                len(found.destroyed),
                found.completed,
                len(found.reaped),
            )
