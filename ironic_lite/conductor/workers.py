"""The conductor's worker pool: where long node operations run.

An RPC call validates a request and takes the node lock on the RPC
server's thread, then hands the work to this pool and answers at once.
The pool has ``[conductor]workers_pool_size`` threads and no queue of
its own: a free worker is *reserved* (:meth:`WorkerPool.reserve`)
before the node changes state, so a full pool refuses the request with
:class:`~ironic_lite.exception.NoFreeConductorWorker` (503) while
nothing has happened yet, and a reserved worker always starts.
"""

from collections.abc import Callable
import threading
from typing import Any

import futurist
from oslo_log import log as logging

from ironic_lite import exception

LOG = logging.getLogger(__name__)


class Slot:
    """One reserved worker: :meth:`start` it or :meth:`cancel` it."""

    def __init__(self, pool: 'WorkerPool') -> None:
        self._pool = pool
        self._used = False

    def start(self, func: Callable[..., Any], *args: Any) -> None:
        """Run ``func(*args)`` on the reserved worker."""
        if self._used:
            raise RuntimeError('worker slot already used')
        self._used = True
        self._pool._submit(func, args)

    def cancel(self) -> None:
        """Give the reserved worker back unused (idempotent)."""
        if not self._used:
            self._used = True
            self._pool._free.release()


class WorkerPool:
    """A fixed number of worker threads, reserved before use."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._executor = futurist.ThreadPoolExecutor(max_workers=size)
        self._free = threading.BoundedSemaphore(size)
        self._stopping = False

    @property
    def stopping(self) -> bool:
        """Whether :meth:`shutdown` was called: running flows should
        leave their node at the next safe point."""
        return self._stopping

    def reserve(self) -> Slot:
        """A free worker.

        :raises NoFreeConductorWorker: every worker is busy (or the
            conductor is stopping).
        """
        if self._stopping or not self._free.acquire(blocking=False):
            raise exception.NoFreeConductorWorker()
        return Slot(self)

    def _submit(self, func: Callable[..., Any], args: tuple[Any, ...]) -> None:
        def run() -> None:
            try:
                func(*args)
            except Exception:
                LOG.exception('Unexpected error in worker %s', func)
            finally:
                self._free.release()

        try:
            self._executor.submit(run)
        except Exception:
            self._free.release()
            raise

    def stop_accepting(self) -> None:
        """Refuse new work from now on (:attr:`stopping` becomes true)."""
        self._stopping = True

    def shutdown(self, wait: bool = True) -> None:
        """Refuse new work; with ``wait``, let running work finish."""
        self._stopping = True
        self._executor.shutdown(wait=wait)
