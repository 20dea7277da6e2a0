"""The periodic work of one conductor: heartbeat, takeover, clean wait.

- :meth:`ConductorPeriodics.heartbeat` keeps this conductor alive in
  the ``conductors`` table (as offline while it stops, see
  :mod:`ironic_lite.service`).
- :meth:`ConductorPeriodics.take_over` releases the node locks of dead
  conductors (a conductor whose heartbeat is younger than
  ``[conductor]heartbeat_timeout`` is not dead, however slow, and keeps
  its locks, even offline while it stops) and the locks this conductor
  lost (held in the database but claimed by no task of this process on
  two runs in a row: their release failed), then resumes every node
  this conductor owns (by the hash ring of the alive conductors,
  rebuilt on every run) that sits in a transient state without a lock:
  a flow whose conductor went away (see :func:`provisioning.resume_node`
  for which clean steps may run again). When it released locks of dead
  conductors it polls the nodes it now owns in ``clean wait`` at once,
  instead of at the next run of the clean wait task. The same scan at
  start-up, after :meth:`ConductorPeriodics.release_own_locks`, resumes
  what this host held before a crash and restart under the same name.
- :meth:`ConductorPeriodics.check_service_wait` and
  :meth:`ConductorPeriodics.check_deploy_wait` do the same for
  ``service wait`` (``[conductor]service_callback_timeout``) and ``wait
  call-back`` (``[conductor]deploy_callback_timeout``).
- :meth:`ConductorPeriodics.check_rescue_wait` and
  :meth:`ConductorPeriodics.check_inspect_wait` fail the owned nodes
  waiting in ``rescue wait`` longer than
  ``[conductor]rescue_callback_timeout`` and in ``inspect wait`` longer
  than ``[conductor]inspect_wait_timeout``.
- :meth:`ConductorPeriodics.check_clean_wait` polls the asynchronous
  clean step of every owned node in ``clean wait`` and fails those
  waiting longer than ``[conductor]clean_callback_timeout``. The first
  poll is made without the lock, on the row just listed; only a node
  whose step finished (or failed) is locked and polled again.

Each run lists its nodes with a constant number of queries, whatever
the number of nodes; only a node acted upon costs queries of its own.
A node locked by someone else (an API request) is skipped until the
next run.
"""

from collections.abc import Callable
import datetime
from typing import Any

from oslo_config import cfg
from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.common import hash_ring
from ironic_lite.common import states
from ironic_lite.common.conductor_identity import ConductorIdentity
from ironic_lite.conductor import allocations
from ironic_lite.conductor import clean_state
from ironic_lite.conductor import clean_wait
from ironic_lite.conductor import deploy_wait
from ironic_lite.conductor import inspection
from ironic_lite.conductor import locks
from ironic_lite.conductor import provisioning
from ironic_lite.conductor import rescue
from ironic_lite.conductor import servicing
from ironic_lite.conductor import task_manager
from ironic_lite.conductor import workers
from ironic_lite.db import conductors as db_conductors
from ironic_lite.db import node_locks
from ironic_lite.db import nodes as db_nodes
from ironic_lite.drivers import hardware
from lite_common import context as lite_context
from lite_common import db as lite_db
from lite_common.context import RequestContext

LOG = logging.getLogger(__name__)


def _uuids(rows: list[tuple[int, str]]) -> str:
    return ', '.join(node_uuid for _id, node_uuid in rows)


class Ownership:
    """Which nodes this conductor owns, by the hash ring of the alive
    conductors that load each node's hardware type.

    The nodes in ``clean wait`` of a conductor that missed two
    heartbeats (down, though not dead yet) are polled by the next
    conductor of the ring that is up (:meth:`polls`): a poll takes the
    node lock, so it is safe even if the owner was only slow.
    """

    def __init__(
        self,
        host: str,
        alive: list[dict[str, Any]],
        down: set[str] | None = None,
    ) -> None:
        self.host = host
        self.alive = alive
        self.down = down or set()
        self._rings: dict[tuple[str, str], hash_ring.HashRing | None] = {}

    def _ring(self, node: dict[str, Any]) -> hash_ring.HashRing | None:
        key = (hash_ring.node_group(node), node['driver'])
        if key not in self._rings:
            try:
                self._rings[key] = hash_ring.ring_for_driver(
                    self.alive, key[1], conductor_group=key[0]
                )
            except exception.NoValidHost:
                self._rings[key] = None
        return self._rings[key]

    def owns(self, node: dict[str, Any]) -> bool:
        ring = self._ring(node)
        return ring is not None and ring.get_host(node['uuid']) == self.host

    def polls(self, node: dict[str, Any]) -> bool:
        """Whether this conductor polls ``node`` in clean wait: it owns
        it, or it is the first conductor up after the owner."""
        ring = self._ring(node)
        if ring is None:
            return False
        for host in ring.get_hosts(node['uuid'], len(ring)):
            if host not in self.down or host == self.host:
                return host == self.host
        return False


class ConductorPeriodics:
    """The periodic tasks of the conductor process ``identity``."""

    def __init__(
        self,
        conf: cfg.ConfigOpts,
        identity: ConductorIdentity,
        pool: workers.WorkerPool,
        hardware_types: list[str],
    ) -> None:
        self.conf = conf
        self.identity = identity
        self.host = identity.host
        self.pool = pool
        self.hardware_types = hardware_types
        #: Nodes (id, uuid) found locked by this host, claimed by no
        #: task, on the previous run of :meth:`release_lost_locks`.
        self._suspects: set[tuple[int, str]] = set()
        #: Conductors (host, incarnation) found dead on the previous run
        #: of take_over.
        self._dead: set[tuple[str, str | None]] = set()

    def _ownership(self, context: RequestContext) -> Ownership:
        alive = db_conductors.list_alive(
            context, self.conf.conductor.heartbeat_timeout
        )
        return Ownership(
            self.host,
            alive,
            db_conductors.down_hosts(
                alive, self.conf.conductor.heartbeat_interval
            ),
        )

    # -- heartbeat

    def register(self) -> None:
        """Take this conductor's host name for this process and record
        it online.

        :raises ConductorHostInUse: a live process holds the name.
        """
        db_conductors.register(
            lite_context.get_admin_context(),
            self.identity,
            self.hardware_types,
            self.conf.conductor.conductor_group,
            hardware.interfaces_by_hardware_type(
                self.conf, self.hardware_types
            ),
            heartbeat_timeout=self.conf.conductor.heartbeat_timeout,
        )

    def heartbeat(self, online: bool = True) -> None:
        """Record that this conductor is alive (``online=False``: alive
        but stopping: out of the ring, keeping its locks).

        :raises ConductorReplaced: another process holds the host name
            now: this one must stop.
        """
        context = lite_context.get_admin_context()
        try:
            db_conductors.heartbeat(context, self.identity, online)
        except exception.ConductorNotFound:
            LOG.warning(
                'The conductors table lost conductor %s; registering it again',
                self.host,
            )
            self.register()

    # -- takeover and resumption

    def release_own_locks(self, context: RequestContext) -> list[int]:
        """At start: drop the locks the previous process of this host
        held (it crashed, or froze and was found dead: its writes are
        refused from the moment this one took the name; a clean stop
        leaves none). The nodes are resumed by :meth:`resume_orphans`."""
        released = node_locks.clear_own(context, self.identity)
        if released:
            LOG.warning(
                'Conductor %(host)s released the locks its '
                'previous process held, on nodes %(uuids)s',
                {'host': self.identity, 'uuids': _uuids(released)},
            )
        return [node_id for node_id, _uuid in released]

    def release_lost_locks(self, context: RequestContext) -> list[int]:
        """Release the locks this host holds in the database while no
        task of this process claims them, on two runs in a row (a
        release that failed); returns their node ids."""
        claimed = locks.claimed(self.identity)
        lost = {
            (node_id, node_uuid)
            for node_id, node_uuid in node_locks.reserved_by(
                context, self.identity
            )
            if node_uuid not in claimed
        }
        confirmed = sorted(lost & self._suspects)
        self._suspects = lost - set(confirmed)
        # Claimed while they are released: a task taking one of them
        # now waits (NodeLocked) rather than lose its lock to this.
        mine = [
            (node_id, node_uuid)
            for node_id, node_uuid in confirmed
            if locks.claim(self.identity, node_uuid)
        ]
        if not mine:
            return []
        try:
            released = node_locks.clear_own(
                context, self.identity, [node_id for node_id, _uuid in mine]
            )
        finally:
            for _id, node_uuid in mine:
                locks.unclaim(self.identity, node_uuid)
        if released:
            LOG.warning(
                'Conductor %(host)s released the locks it had '
                'lost (no task held them) on nodes %(uuids)s',
                {'host': self.host, 'uuids': _uuids(released)},
            )
        return [node_id for node_id, _uuid in released]

    def take_over(self) -> None:
        """Release the locks of dead conductors and lost locks, and
        resume the orphaned nodes this conductor owns."""
        context = lite_context.get_admin_context()
        dead = db_conductors.list_dead(
            context, self.conf.conductor.heartbeat_timeout
        )
        dead = [
            (host, incarnation)
            for host, incarnation in dead
            if host != self.host
        ]
        newly_dead = set(dead) - self._dead
        self._dead = set(dead)
        if dead:
            released = node_locks.clear_dead(context, dead)
            if released:
                LOG.warning(
                    'Released the locks of dead conductor(s) '
                    '%(hosts)s on nodes %(uuids)s',
                    {
                        'hosts': ', '.join(host for host, _i in dead),
                        'uuids': _uuids(released),
                    },
                )
        self.release_lost_locks(context)
        self.resume_orphans(context)
        self.resume_allocations(context)
        if newly_dead:
            # Their nodes in clean wait, ours now, may have finished
            # long ago: poll them now, not at the next clean wait run.
            self.check_clean_wait()
            self.check_service_wait()
            self.check_deploy_wait()

    def resume_orphans(self, context: RequestContext) -> int:
        """Resume owned nodes in a transient state without a lock;
        returns how many were handed to a worker."""
        orphans = db_nodes.node_list(
            context,
            {
                'provision_state': sorted(provisioning.RESUMABLE_STATES),
                'reserved': False,
            },
        )
        if not orphans:
            return 0
        ownership = self._ownership(context)
        resumed = 0
        for node in orphans:
            if ownership.owns(node) and self._resume_one(context, node):
                resumed += 1
        return resumed

    def resume_allocations(
        self, context: RequestContext, include_own: bool = False
    ) -> int:
        """Process the allocations a dead conductor left allocating
        (with ``include_own``: this one's too, at start-up)."""

        def alive() -> set[str]:
            return {
                row['hostname']
                for row in db_conductors.list_alive(
                    context, self.conf.conductor.heartbeat_timeout
                )
            }

        return allocations.resume_orphans(
            context, self.host, alive, include_own=include_own
        )

    def _resume_one(
        self, context: RequestContext, node: dict[str, Any]
    ) -> bool:
        def start(task: task_manager.Task) -> bool:
            if task.node.provision_state not in provisioning.RESUMABLE_STATES:
                return False
            task.spawn_after(self.pool, provisioning.resume_node)
            return True

        return bool(self._with_lock(context, node, 'takeover', start))

    # -- clean wait

    def check_clean_wait(self) -> None:
        """Poll the asynchronous steps of owned nodes in ``clean wait``
        and fail those whose callback timeout expired."""
        self._check_step_wait(
            states.CLEANWAIT, self.conf.conductor.clean_callback_timeout
        )

    def check_service_wait(self) -> None:
        """The same for ``service wait`` (its own timeout,
        ``[conductor]service_callback_timeout``)."""
        self._check_step_wait(
            states.SERVICEWAIT, self.conf.conductor.service_callback_timeout
        )

    def check_deploy_wait(self) -> None:
        """The same for ``wait call-back`` (an asynchronous deploy
        step, ``[conductor]deploy_callback_timeout``)."""
        self._check_step_wait(
            states.DEPLOYWAIT, self.conf.conductor.deploy_callback_timeout
        )

    def _check_step_wait(self, state: str, timeout: int) -> None:
        context = lite_context.get_admin_context()
        nodes = db_nodes.node_list_in_states(context, [state])
        if not nodes:
            return
        ownership = self._ownership(context)
        expired_before = (
            (lite_db.utcnow() - datetime.timedelta(seconds=timeout))
            if timeout
            else None
        )
        for node in nodes:
            if not ownership.polls(node):
                continue
            updated = node['provision_updated_at']
            if (
                expired_before is not None
                and updated is not None
                and updated < expired_before
            ):
                self._with_lock(
                    context, node, f'{state} timeout', self._fail_on_timeout
                )
            elif self._step_may_be_done(context, node):
                self._with_lock(context, node, f'{state} poll', self._poll)

    # -- rescue wait, inspect wait

    def check_rescue_wait(self) -> None:
        """Fail the owned nodes in ``rescue wait`` longer than
        ``[conductor]rescue_callback_timeout`` (their agent never
        heartbeated)."""
        self._fail_expired(
            states.RESCUEWAIT,
            self.conf.conductor.rescue_callback_timeout,
            'provision_updated_at',
            rescue.fail_on_timeout,
        )

    def check_inspect_wait(self) -> None:
        """Fail the owned nodes in ``inspect wait`` whose inspection
        started more than ``[conductor]inspect_wait_timeout`` ago (not
        those in maintenance, as upstream)."""
        self._fail_expired(
            states.INSPECTWAIT,
            self.conf.conductor.inspect_wait_timeout,
            'inspection_started_at',
            inspection.fail_on_timeout,
            skip_maintenance=True,
        )

    def _fail_expired(
        self,
        state: str,
        timeout: int,
        since: str,
        fail: Callable[[task_manager.Task], Any],
        skip_maintenance: bool = False,
    ) -> None:
        """``fail`` (with the lock) the owned nodes in ``state`` whose
        ``since`` column is more than ``timeout`` seconds old (0: no
        timeout)."""
        if not timeout:
            return
        context = lite_context.get_admin_context()
        nodes = db_nodes.node_list_in_states(context, [state])
        if not nodes:
            return
        ownership = self._ownership(context)
        expired_before = lite_db.utcnow() - datetime.timedelta(seconds=timeout)
        for node in nodes:
            started = node.get(since)
            if (
                ownership.polls(node)
                and not (skip_maintenance and node['maintenance'])
                and started is not None
                and started < expired_before
            ):
                self._with_lock(context, node, f'{state} timeout', fail)

    def _step_may_be_done(
        self, context: RequestContext, node: dict[str, Any]
    ) -> bool:
        """Poll without the lock, on the listed row (no query): False
        while the step still runs; True when it finished or the poll
        failed (then the lock is taken and the poll made again)."""
        if (node['driver_internal_info'] or {}).get(clean_state.CALLBACK_KEY):
            return True
        try:
            task = task_manager.shared_task(
                context, self.conf, self.identity, node, 'step pre-poll'
            )
            if node['provision_state'] == states.SERVICEWAIT:
                return servicing.step_finished(task)
            if node['provision_state'] == states.DEPLOYWAIT:
                return deploy_wait.step_finished(task)
            step = task.node.clean_step
            if not step:
                return False  # waiting for the agent's first heartbeat
            return bool(
                task.interfaces[step['interface']].poll_clean_step(task)
            )
        except Exception:
            return True

    def _fail_on_timeout(self, task: task_manager.Task) -> None:
        if task.node.provision_state == states.CLEANWAIT:
            clean_wait.fail_on_timeout(task)
        elif task.node.provision_state == states.SERVICEWAIT:
            servicing.fail_on_timeout(task)
        elif task.node.provision_state == states.DEPLOYWAIT:
            deploy_wait.fail_on_timeout(task)

    def _poll(self, task: task_manager.Task) -> None:
        if task.node.provision_state == states.CLEANWAIT:
            clean_wait.poll_async_step(task, self.pool)
        elif task.node.provision_state == states.SERVICEWAIT:
            servicing.poll_async_step(task, self.pool)
        elif task.node.provision_state == states.DEPLOYWAIT:
            deploy_wait.poll_async_step(task, self.pool)

    # -- helpers

    def _with_lock(
        self,
        context: RequestContext,
        node: dict[str, Any],
        purpose: str,
        func: Callable[[task_manager.Task], Any],
    ) -> Any:
        """``func(task)`` with the node lock; None when the node is
        locked, gone, or no worker is free (the next run retries)."""
        try:
            with task_manager.acquire(
                context, self.conf, node['uuid'], self.identity, purpose
            ) as task:
                return func(task)
        except (
            exception.NodeLocked,
            exception.NodeNotFound,
            exception.ConductorReplaced,
        ) as exc:
            LOG.debug(
                'Skipping node %(node)s for %(purpose)s: %(err)s',
                {'node': node['uuid'], 'purpose': purpose, 'err': exc},
            )
        except exception.NoFreeConductorWorker:
            LOG.warning(
                'No free worker for %(purpose)s of node %(node)s; '
                'retrying at the next run',
                {'node': node['uuid'], 'purpose': purpose},
            )
        except Exception:
            LOG.exception(
                '%(purpose)s of node %(node)s failed',
                {'node': node['uuid'], 'purpose': purpose},
            )
        return None
