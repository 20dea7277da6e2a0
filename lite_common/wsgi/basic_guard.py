"""Throttling of failed http_basic logins, per source and per user.

bcrypt costs about a quarter of a second of CPU per check, on purpose;
without a limit a few guessing clients starve the API. A source address
with :data:`SOURCE_FAILURES` failed logins within :data:`WINDOW` seconds,
or a user name with :data:`USER_FAILURES` (from any source), is answered
``429`` with ``Retry-After`` until the oldest of those failures leaves
the window, without running bcrypt. The owner of a throttled user name
still gets in with a password this process has verified before (that
check costs no bcrypt). Both tables keep at most :data:`MAX_ENTRIES`
keys (the least recently failed are forgotten first).
"""

import collections
from collections.abc import Callable
import math
import threading
import time

WINDOW = 60.0
SOURCE_FAILURES = 20
USER_FAILURES = 10
MAX_ENTRIES = 10000


class _Failures:
    """Recent failure times per key, bounded in keys and per key."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.times: collections.OrderedDict[str, collections.deque[float]] = (
            collections.OrderedDict())

    def __len__(self) -> int:
        return len(self.times)

    def add(self, key: str, now: float) -> None:
        times = self.times.get(key)
        if times is None:
            times = self.times[key] = collections.deque(maxlen=self.limit)
        times.append(now)
        self.times.move_to_end(key)
        while len(self.times) > MAX_ENTRIES:
            self.times.popitem(last=False)

    def wait(self, key: str, now: float) -> float:
        """Seconds until ``key`` may try again (0: now)."""
        times = self.times.get(key)
        if times is None or len(times) < self.limit:
            return 0.0
        return max(0.0, times[0] + WINDOW - now)


class Guard:
    """The failure tables of one API process (thread-safe)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.sources = _Failures(SOURCE_FAILURES)
        self.users = _Failures(USER_FAILURES)
        self._lock = threading.Lock()

    def failed(self, source: str, user: str) -> None:
        with self._lock:
            now = self.clock()
            self.sources.add(source, now)
            self.users.add(user, now)

    def retry_after(self, source: str, user: str) -> int:
        """Whole seconds until this source may try this user (0: now)."""
        with self._lock:
            now = self.clock()
            wait = max(self.sources.wait(source, now),
                       self.users.wait(user, now))
        return math.ceil(wait)
