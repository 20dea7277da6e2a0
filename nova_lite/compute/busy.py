"""Which moves this agent is working on right now.

A move's step can be asked for twice in one agent: a request redelivered
by the broker, a housekeeping pass resuming a step that looks stalled
while its request is still being handled. Every step runs under
:meth:`Busy.hold` of its migration, so the second asker finds it taken
and leaves it (the steps are safe to repeat one after the other, not at
the same time).
"""

from collections.abc import Iterator
import contextlib
import threading


class Busy:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: set[int] = set()

    @contextlib.contextmanager
    def hold(self, migration_id: int) -> Iterator[bool]:
        """True (and held until the block ends) when no other thread of
        this agent holds the migration; False otherwise."""
        with self._lock:
            free = migration_id not in self._held
            self._held.add(migration_id)
        try:
            yield free
        finally:
            if free:
                with self._lock:
                    self._held.discard(migration_id)
