"""Power state sync: the BMC's power state against the database, as
upstream's ``_sync_power_states`` / ``do_sync_power_state`` and
``_power_failure_recovery``.

Every ``[conductor]sync_power_state_interval`` seconds
:meth:`PowerSync.sync_power_states` reads, in one query, the nodes not
in maintenance and not locked, keeps those this conductor owns (hash
ring) that are not in a wait state or enrolling (:data:`EXCLUDED_STATES`)
and have no power change under way, and reads their power state from
their power interface, on at most ``min(sync_power_state_workers,
periodic_max_workers)`` threads. Reading takes no lock and no query;
only a node that needs a change is locked (and read again):

- a node without a power state gets the one read;
- a node whose state differs: with ``[conductor]
  force_power_state_during_sync`` (the default) the hardware is set to
  the recorded state, otherwise the record is set to the hardware's;
  either way the change is logged and kept in the node history;
- a node whose state could not be read (or still differs) on more than
  ``[conductor]power_state_sync_max_retries`` runs in a row goes into
  maintenance with fault ``power failure`` and the reason, kept in its
  history (an operator's maintenance is left alone).

Every ``[conductor]power_failure_recovery_interval`` seconds
:meth:`PowerSync.recover_power_failures` reads the owned nodes in
maintenance with fault ``power failure`` (one query); those whose power
state can be read again leave maintenance, with the fault cleared.
"""

from collections.abc import Callable
from typing import Any

import futurist
from oslo_config import cfg
from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.common import states
from ironic_lite.common.conductor_identity import ConductorIdentity
from ironic_lite.conductor import history
from ironic_lite.conductor import periodics
from ironic_lite.conductor import task_manager
from ironic_lite.db import conductors as db_conductors
from ironic_lite.db import nodes as db_nodes
from ironic_lite.drivers import base
from lite_common import context as lite_context
from lite_common.context import RequestContext

LOG = logging.getLogger(__name__)

POWER_FAILURE = 'power failure'
#: Upstream's SYNC_EXCLUDED_STATES, and the other states that wait for
#: a ramdisk or an inspection to call back (locking such a node could
#: make its callback fail).
EXCLUDED_STATES = frozenset(
    {
        states.DEPLOYWAIT,
        states.CLEANWAIT,
        states.ENROLL,
        states.ADOPTFAIL,
        states.SERVICEWAIT,
        states.INSPECTWAIT,
        states.RESCUEWAIT,
    }
)


def _read_power(task: task_manager.Task) -> str:
    power = task.interfaces['power']
    assert isinstance(power, base.PowerInterface)
    actual = power.get_power_state(task)
    if actual not in states.POWER_STATES:
        raise exception.IronicLiteException(
            message=f'the power interface reports {actual!r}'
        )
    return actual


class PowerSync:
    """The power sync and power failure recovery of conductor ``host``."""

    def __init__(
        self, conf: cfg.ConfigOpts, identity: ConductorIdentity
    ) -> None:
        self.conf = conf
        self.identity = identity
        self.host = identity.host
        #: node uuid -> runs in a row the sync failed for it.
        self.failures: dict[str, int] = {}

    def _owned(
        self, context: RequestContext, rows: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        options = self.conf.conductor
        alive = db_conductors.list_alive(context, options.heartbeat_timeout)
        ownership = periodics.Ownership(self.host, alive)
        return [row for row in rows if ownership.owns(row)]

    def _in_parallel(
        self,
        func: Callable[[Any, dict[str, Any]], None],
        context: RequestContext,
        rows: list[dict[str, Any]],
    ) -> None:
        options = self.conf.conductor
        size = min(
            options.sync_power_state_workers,
            options.periodic_max_workers,
            len(rows),
        )
        if size < 1:
            return

        def guarded(row: dict[str, Any]) -> None:
            try:
                func(context, row)
            except Exception:
                LOG.exception(
                    'Power state sync of node %s failed', row['uuid']
                )

        with futurist.ThreadPoolExecutor(max_workers=size) as pool:
            for future in [pool.submit(guarded, row) for row in rows]:
                future.result()

    def _with_lock(
        self,
        context: RequestContext,
        row: dict[str, Any],
        func: Callable[[task_manager.Task], None],
    ) -> None:
        try:
            with task_manager.acquire(
                context,
                self.conf,
                row['uuid'],
                self.identity,
                'power state sync',
            ) as task:
                func(task)
        except (
            exception.NodeLocked,
            exception.NodeNotFound,
            exception.ConductorReplaced,
        ) as exc:
            LOG.info(
                'Power state sync skipped node %(node)s: %(err)s',
                {'node': row['uuid'], 'err': exc},
            )

    # -- the sync

    def sync_power_states(self) -> None:
        """One run over the owned nodes (see the module docstring)."""
        context = lite_context.get_admin_context()
        rows = db_nodes.node_list(
            context, {'maintenance': False, 'reserved': False}
        )
        rows = [
            row
            for row in rows
            if row['provision_state'] not in EXCLUDED_STATES
            and not row['target_power_state']
        ]
        rows = self._owned(context, rows) if rows else []
        known = {row['uuid'] for row in rows}
        self.failures = {
            uuid: count
            for uuid, count in self.failures.items()
            if uuid in known
        }
        # Failing nodes first: they reach maintenance soonest.
        rows.sort(key=lambda row: -self.failures.get(row['uuid'], 0))
        self._in_parallel(self._sync_node, context, rows)

    def _sync_node(self, context: RequestContext, row: dict[str, Any]) -> None:
        try:
            task = task_manager.shared_task(
                context, self.conf, self.identity, row, 'power state sync'
            )
        except exception.InvalidParameterValue:
            return  # a driver this conductor cannot load
        if row['power_state'] is None:
            try:
                task.interfaces['power'].validate(task)
            except exception.InvalidParameterValue:
                return  # never powered, not set up: nothing to sync
        try:
            actual = _read_power(task)
        except Exception as exc:
            self._read_failed(context, row, exc)
            return
        if actual == row['power_state']:
            self.failures.pop(row['uuid'], None)
            return
        self._with_lock(
            context, row, lambda locked: self._correct(locked, actual)
        )

    def _count_failure(self, node_uuid: str) -> int:
        count = self.failures.get(node_uuid, 0) + 1
        self.failures[node_uuid] = count
        return count

    def _read_failed(
        self, context: RequestContext, row: dict[str, Any], error: Exception
    ) -> None:
        if isinstance(error, exception.BMCCallStopped):
            LOG.debug(
                'Power state sync of node %s given up: %s', row['uuid'], error
            )
            return  # not the node's failure: the conductor stops
        count = self._count_failure(row['uuid'])
        retries = self.conf.conductor.power_state_sync_max_retries
        if count > retries:
            self._with_lock(
                context,
                row,
                lambda task: self._to_maintenance(task, None, error),
            )
            return
        LOG.warning(
            'During sync_power_state, could not get power state for '
            'node %(node)s, attempt %(attempt)s of %(retries)s. '
            'Error: %(err)s.',
            {
                'node': row['uuid'],
                'attempt': count,
                'retries': retries,
                'err': error,
            },
        )

    def _correct(self, task: task_manager.Task, actual: str) -> None:
        """The node (locked, read again) differs from the hardware."""
        node = task.node
        if (
            node.maintenance
            or node.target_power_state
            or node.provision_state in EXCLUDED_STATES
            or node.power_state == actual
        ):
            self.failures.pop(node.uuid, None)
            return
        if node.power_state is None:
            LOG.info(
                'During sync_power_state, node %(node)s has no previous '
                'known state. Recording current state "%(state)s".',
                {'node': node.uuid, 'state': actual},
            )
            task.update(power_state=actual)
            return
        count = self._count_failure(node.uuid)
        if count > self.conf.conductor.power_state_sync_max_retries:
            self._to_maintenance(task, actual, None)
        elif self.conf.conductor.force_power_state_during_sync and not getattr(
            node, 'disable_power_off', False
        ):
            self._force_hardware(task, actual)
        else:
            message = (
                f'During sync_power_state, node {node.uuid} state '
                f'"{actual}" does not match expected state '
                f'"{node.power_state}". Updating recorded state to '
                f'"{actual}".'
            )
            LOG.warning('%s', message)
            history.record(task, message, history.MONITORING, error=False)
            task.update(power_state=actual)

    def _force_hardware(self, task: task_manager.Task, actual: str) -> None:
        node = task.node
        wanted = node.power_state
        message = (
            f'During sync_power_state, node {node.uuid} state '
            f'"{actual}" does not match expected state. Changing '
            f'hardware state to "{wanted}".'
        )
        LOG.warning('%s', message)
        history.record(task, message, history.MONITORING, error=False)
        power = task.interfaces['power']
        assert isinstance(power, base.PowerInterface)
        try:
            power.set_power_state(task, str(wanted))
        except Exception as exc:
            LOG.error(
                'Failed to change power state of node %(node)s to '
                '"%(state)s", attempt %(attempt)s of %(retries)s: '
                '%(err)s',
                {
                    'node': node.uuid,
                    'state': wanted,
                    'attempt': self.failures.get(node.uuid),
                    'retries': (
                        self.conf.conductor.power_state_sync_max_retries
                    ),
                    'err': exc,
                },
            )

    def _to_maintenance(
        self,
        task: task_manager.Task,
        actual: str | None,
        error: Exception | None,
    ) -> None:
        """Upstream's handle_sync_power_state_max_retries_exceeded."""
        node = task.node
        message = (
            f'During sync_power_state, max retries exceeded for node '
            f'{node.uuid}, node state {actual} does not match '
            f'expected state "{node.power_state}". Updating DB state '
            f'to "{actual}". Switching node to maintenance mode.'
        )
        if error is not None:
            message += f' Error: {error}'
        history.record(task, message, history.MONITORING, error=True)
        values: dict[str, Any] = {'power_state': actual}
        if not node.maintenance:
            values.update(
                maintenance=True,
                maintenance_reason=message,
                fault=POWER_FAILURE,
            )
        task.update(**values)
        self.failures.pop(node.uuid, None)
        LOG.error('%s', message)

    # -- recovery

    def recover_power_failures(self) -> None:
        """Take the owned nodes whose power state can be read again out
        of the maintenance the sync put them in."""
        context = lite_context.get_admin_context()
        rows = db_nodes.node_list(
            context,
            {'maintenance': True, 'fault': POWER_FAILURE, 'reserved': False},
        )
        rows = [
            row
            for row in rows
            if row['provision_state'] != states.ENROLL
            and not row['target_power_state']
        ]
        if rows:
            self._in_parallel(
                self._recover_node, context, self._owned(context, rows)
            )

    def _recover_node(
        self, context: RequestContext, row: dict[str, Any]
    ) -> None:
        try:
            task = task_manager.shared_task(
                context,
                self.conf,
                self.identity,
                row,
                'power failure recovery',
            )
            # driver_info may have been fixed while in maintenance.
            task.interfaces['power'].validate(task)
            actual = _read_power(task)
        except Exception as exc:
            LOG.debug(
                'During power_failure_recovery, could not get power '
                'state for node %(node)s: %(err)s',
                {'node': row['uuid'], 'err': exc},
            )
            return
        self._with_lock(
            context, row, lambda locked: self._recovered(locked, actual)
        )

    def _recovered(self, task: task_manager.Task, actual: str) -> None:
        node = task.node
        if not node.maintenance or node.fault != POWER_FAILURE:
            return  # an operator got there first
        task.update(
            power_state=actual,
            maintenance=False,
            maintenance_reason=None,
            fault=None,
        )
        self.failures.pop(node.uuid, None)
        message = (
            f'Node {node.uuid} is recovered from power failure with '
            f'actual power state "{actual}".'
        )
        history.record(task, message, history.MONITORING, error=False)
        LOG.info('%s', message)
