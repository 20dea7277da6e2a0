"""The node lock, as a task: one node, its driver interfaces, its state.

:func:`acquire` reserves the node in the database (the ``reservation``
column, :func:`ironic_lite.db.nodes.reserve`), so that two conductors
never drive one node; a ``shared`` task only reads the node and takes
no lock. The task is a context manager::

    with task_manager.acquire(ctx, conf, uuid, holder, 'provide') as task:
        ...validate: raise to refuse, the lock is released...
        task.spawn_after(pool, cleaning.do_node_clean)  # reserves a worker
        task.process_event('provide', target_state=states.AVAILABLE)
    # a clean exit hands the task (lock included) to the reserved worker,
    # which runs do_node_clean(task) and releases the lock when it returns

Without :meth:`Task.spawn_after` (or when the block raises) the lock is
released on exit. A worker may in turn hand the node on to a flow that
ends in a wait state: it simply returns, and the lock goes with it.

Every lock a conductor holds is also claimed in memory
(:mod:`locks`): no two tasks of one conductor hold one node, and a lock
found in the database but claimed by no task was lost (its release
failed, say the database was away for a moment): the takeover periodic
task releases it, so that no node stays locked by a live conductor that
no longer works on it.

A task holds its node for one conductor *process*, ``holder`` (a
:class:`~ironic_lite.common.conductor_identity.ConductorIdentity`: its
host name and incarnation). A conductor never acts on a node whose lock
it lost (it was thought dead: paused, cut off from the database, too
slow to heartbeat, and another conductor cleared its locks, or a new
process took its host name over): every :meth:`Task.save` is a
conditional UPDATE on the lock and the incarnation, and long clean
steps call :meth:`Task.checkpoint` between units of work; both raise
:class:`~ironic_lite.exception.NodeNotLocked` and the flow stops.

``task.node`` gives attribute access to the node row; the JSON columns
(``driver_internal_info``, ``clean_step``, ``properties`` ...) are plain
dicts that may be changed in place. :meth:`Task.save` writes what
changed since the last save in one UPDATE, conditional on the node's
revision too; should a request have written the node in between (an
abort request does, without the lock), the changes are merged into the
newer row and written again (:meth:`TaskNode.rebase`).
"""

from collections.abc import Callable
import types
from typing import Any

from oslo_config import cfg
from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.common import interfaces
from ironic_lite.common import states
from ironic_lite.common.conductor_identity import ConductorIdentity
from ironic_lite.conductor import locks
from ironic_lite.conductor import task_node
from ironic_lite.conductor import workers
from ironic_lite.db import node_locks
from ironic_lite.db import nodes as db_nodes
from ironic_lite.drivers import base
from ironic_lite.drivers import hardware
from lite_common.context import RequestContext

LOG = logging.getLogger(__name__)

TaskNode = task_node.TaskNode
_UNSET: Any = object()
#: ``driver_internal_info`` key of a cleaning an operator asked to
#: abort (written without the lock, see :mod:`clean_wait`).
ABORT_KEY = 'abort_after_step'
#: How many times a save merges with a concurrent write before it gives
#: up (each merge means another write came in between).
MAX_SAVE_MERGES = 10


def interface_names(node: Any) -> dict[str, str | None]:
    """``{'power': node.power_interface, ...}`` of a node row or dict."""
    get = (
        node.get
        if isinstance(node, dict)
        else (lambda key: getattr(node, key))
    )
    return {
        kind: get(f'{kind}_interface') for kind in interfaces.INTERFACE_TYPES
    }


def load_driver(
    conf: cfg.ConfigOpts, node: Any
) -> dict[str, base.BaseInterface]:
    """The interfaces of a node (a row dict or a :class:`TaskNode`).

    :raises InvalidParameterValue: (a subclass) see
        :func:`ironic_lite.drivers.hardware.load_interfaces`.
    """
    driver = node['driver'] if isinstance(node, dict) else node.driver
    return hardware.load_interfaces(conf, driver, interface_names(node))


class Task:
    """A node held by this conductor (or read, when ``shared``)."""

    def __init__(
        self,
        context: RequestContext,
        conf: cfg.ConfigOpts,
        holder: ConductorIdentity,
        row: dict[str, Any],
        purpose: str,
        shared: bool,
    ) -> None:
        self.context = context
        self.conf = conf
        self.holder = holder
        self.purpose = purpose
        self.shared = shared
        self.node = TaskNode(row)
        self.interfaces: dict[str, base.BaseInterface] = {}
        self.driver = types.SimpleNamespace()
        self._slot: workers.Slot | None = None
        self._pool: workers.WorkerPool | None = None
        self._after: tuple[Callable[..., Any], tuple[Any, ...]] | None = None
        self._released = shared

    @property
    def host(self) -> str:
        """The host name of the conductor holding the task."""
        return self.holder.host

    def load_driver(self) -> None:
        """(Re)load the interfaces of ``self.node``."""
        self.interfaces = load_driver(self.conf, self.node)
        self.driver = types.SimpleNamespace(**self.interfaces)

    # -- changing the node

    def save(self) -> None:
        """Write the changed fields (none when unchanged), only while
        this process still holds the lock; a write that came in between
        is merged, not undone.

        :raises NodeNotLocked: the lock was taken over (this conductor
            was thought dead): the flow must stop, the node is another
            conductor's now.
        """
        if self.shared:
            raise RuntimeError(
                f'shared task of node {self.node.uuid} cannot save'
            )
        for _attempt in range(MAX_SAVE_MERGES):
            changes = self.node.changes()
            if not changes:
                return
            try:
                self.node._reset(
                    db_nodes.node_update(
                        self.context,
                        self.node.id,
                        changes,
                        locked_by=self.holder,
                        expected_revision=self.node.revision,
                    )
                )
                return
            except exception.NodeChanged:
                LOG.debug(
                    'Node %s was written while locked by %s; merging',
                    self.node.uuid,
                    self.holder,
                )
                self.node.rebase(self._read_locked())
        raise exception.NodeChanged(
            node=self.node.uuid, expected=self.node.revision, actual='changing'
        )

    def _read_locked(self) -> dict[str, Any]:
        row = db_nodes.node_get(self.context, self.node.id)
        self._check_lock(node_locks.lock_state(self.context, self.node.id))
        return row

    def _check_lock(self, lock: node_locks.LockState) -> None:
        if not lock.held_by(self.holder):
            raise node_locks.not_locked(self.node.uuid, self.holder, lock)

    def reload(self) -> None:
        """Read the node again, dropping unsaved changes.

        :raises NodeNotLocked: the lock was taken over.
        """
        self.node._reset(self._read_locked())

    def checkpoint(self) -> None:
        """Check, between two units of work of a long clean step, that
        the step may go on (one light query).

        :raises NodeNotLocked: this conductor lost the node's lock:
            stop touching the node.
        :raises CleanStepAborted: an abort was requested and the
            running step is abortable.
        """
        if self.shared:
            return
        lock = node_locks.lock_state(self.context, self.node.id)
        self._check_lock(lock)
        info = lock.driver_internal_info
        if info.get(ABORT_KEY) and self.node.clean_step.get('abortable'):
            raise exception.CleanStepAborted()

    def destroy(self) -> None:
        """Delete the locked node; the lock goes with the row."""
        if self.shared:
            raise RuntimeError(
                f'shared task of node {self.node.uuid} cannot destroy it'
            )
        db_nodes.node_destroy(self.context, self.node.id)
        self._released = True
        locks.unclaim(self.holder, self.node.uuid)

    def update(self, **values: Any) -> None:
        """Set fields and save them."""
        for key, value in values.items():
            setattr(self.node, key, value)
        self.save()

    def process_event(
        self, event: str, target_state: str | None = _UNSET, **values: Any
    ) -> None:
        """Move the node along the state machine and save it, with
        ``values`` set too.

        The target follows the new state: none in stable and failure
        states, the fixed one of deploying, deleting ...;
        ``target_state`` sets it explicitly (entering cleaning), and
        clean wait / clean hold keep the target cleaning had.

        :raises InvalidStateRequested: no such transition.
        """
        node = self.node
        old = node.provision_state
        new = states.next_state(old, event, node.uuid)
        if target_state is not _UNSET:
            target = target_state
        elif new in states.STABLE_STATES or new in states.FAILURE_STATES:
            target = None
        else:
            target = states.FIXED_TARGETS.get(new, node.target_provision_state)
        node.provision_state = new
        node.target_provision_state = target
        for key, value in values.items():
            setattr(node, key, value)
        self.save()
        LOG.info(
            'Node %(node)s moved from provision state "%(old)s" to '
            '"%(new)s" (event %(event)s, target %(target)s)',
            {
                'node': node.uuid,
                'old': old,
                'new': new,
                'event': event,
                'target': target,
            },
        )

    # -- the lock and the worker

    def reserve_worker(self, pool: workers.WorkerPool) -> None:
        """Reserve a worker now (before changing the node), so that a
        full pool refuses the request while nothing has happened.

        :raises NoFreeConductorWorker:
        """
        if self._slot is None:
            self._slot = pool.reserve()
            self._pool = pool

    @property
    def stopping(self) -> bool:
        """Whether the conductor running this task's worker is stopping
        (a flow then leaves the node at its next safe point)."""
        return self._pool is not None and self._pool.stopping

    def spawn_after(
        self, pool: workers.WorkerPool, func: Callable[..., Any], *args: Any
    ) -> None:
        """On a clean exit, run ``func(task, *args)`` on a worker (with
        the lock) instead of releasing the lock.

        :raises NoFreeConductorWorker: no worker reserved and none free.
        """
        self.reserve_worker(pool)
        self._after = (func, args)

    def release_resources(self) -> None:
        """Release the node lock (once; a no-op for shared tasks)."""
        if self._released:
            return
        self._released = True
        # Unclaimed first: should the release fail, the lock is found
        # lost and released by the takeover periodic task.
        locks.unclaim(self.holder, self.node.uuid)
        try:
            node_locks.release(self.context, self.holder, self.node.id)
        except (exception.NodeNotLocked, exception.NodeNotFound) as exc:
            LOG.warning(
                'Releasing the lock of node %(node)s: %(err)s',
                {'node': self.node.uuid, 'err': exc},
            )
        except Exception:
            LOG.exception(
                'Could not release the lock of node %s; the '
                'takeover periodic task will release it',
                self.node.uuid,
            )

    def _run_after(
        self, func: Callable[..., Any], args: tuple[Any, ...]
    ) -> None:
        try:
            func(self, *args)
        except exception.NodeNotLocked as exc:
            # Thought dead (too slow): another conductor has the node.
            LOG.warning(
                'Stopped processing node %(node)s (%(purpose)s): '
                'its lock was taken over: %(err)s',
                {'node': self.node.uuid, 'purpose': self.purpose, 'err': exc},
            )
            self._released = True
            locks.unclaim(self.holder, self.node.uuid)
        except Exception:
            LOG.exception(
                'Unexpected error while processing node %s (%s)',
                self.node.uuid,
                self.purpose,
            )
        finally:
            self.release_resources()

    def __enter__(self) -> 'Task':
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        slot, after = self._slot, self._after
        self._slot = self._after = None
        if slot is not None and after is not None and exc_type is None:
            try:
                slot.start(self._run_after, *after)
                return
            except Exception:
                LOG.exception(
                    'Could not start a worker for node %s', self.node.uuid
                )
        if slot is not None:
            slot.cancel()
        self.release_resources()


def acquire(
    context: RequestContext,
    conf: cfg.ConfigOpts,
    node_id: int | str,
    holder: ConductorIdentity,
    purpose: str,
    shared: bool = False,
    patience: float = 0,
) -> Task:
    """Take the lock of a node (unless ``shared``) and load its driver.

    :param node_id: the node's uuid or integer id (or name, shared).
    :param patience: seconds to keep trying while the node is locked
        (0: refuse at once, as requests from the API do).
    :raises NodeLocked: another conductor or operation holds it.
    :raises ConductorReplaced: ``holder`` no longer holds its host name.
    :raises NodeNotFound:
    :raises InvalidParameterValue: the node's interfaces cannot load
        (the lock is released again).
    """
    if shared:
        row = db_nodes.node_get(context, node_id)
    else:
        node_uuid = (
            node_id
            if isinstance(node_id, str)
            else db_nodes.node_get(context, node_id)['uuid']
        )
        row = locks.reserve(context, holder, node_uuid, patience)
        LOG.debug('Node %s locked by %s for %s', row['uuid'], holder, purpose)
    task = Task(context, conf, holder, row, purpose, shared)
    try:
        task.load_driver()
    except Exception:
        task.release_resources()
        raise
    return task


def shared_task(
    context: RequestContext,
    conf: cfg.ConfigOpts,
    holder: ConductorIdentity,
    row: dict[str, Any],
    purpose: str,
) -> Task:
    """A read-only task of a node row already read (no query, no lock).

    :raises InvalidParameterValue: the node's interfaces cannot load.
    """
    task = Task(context, conf, holder, row, purpose, shared=True)
    task.load_driver()
    return task
