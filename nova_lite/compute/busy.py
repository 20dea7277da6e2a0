"""Which moves and server tasks this agent is working on right now.

A move's step can be asked for twice in one agent: a request redelivered
by the broker, a housekeeping pass resuming a step that looks stalled
while its request is still being handled. Every step runs under
:meth:`Busy.hold` of its migration (its integer id), every request that
works on a server's task under the hold of the server (its uuid), so the
second asker finds it taken (the steps are safe to repeat one after the
other, not at the same time). A request waits for the hold (``wait``):
what held it may have just finished the task, or the request's own
task may come next; a housekeeping pass does not wait.
"""

from collections.abc import Hashable
from collections.abc import Iterator
import contextlib
import threading

# The longest a request waits for a server's hold (a driver operation
# of another thread); it then gives up, logged by its caller, and the
# task is taken up by a later housekeeping pass if it is still due.
WAIT_LIMIT = 600.0


class Busy:
    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._held: set[Hashable] = set()

    @contextlib.contextmanager
    def hold(
        self, key: Hashable, wait: bool = False, limit: float = WAIT_LIMIT
    ) -> Iterator[bool]:
        """True (and held until the block ends) when no other thread of
        this agent holds ``key`` (with ``wait``: once none does, up to
        ``limit`` seconds); False otherwise."""
        with self._lock:
            if wait:
                self._lock.wait_for(lambda: key not in self._held, limit)
            free = key not in self._held
            self._held.add(key)
        try:
            yield free
        finally:
            if free:
                with self._lock:
                    self._held.discard(key)
                    self._lock.notify_all()
