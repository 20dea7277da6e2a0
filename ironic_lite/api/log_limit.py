"""A log line that repeats, limited per key: one WARNING per interval,
DEBUG in between.

An agent that finds no node it may look up (the node is not waiting
for it, or not enrolled yet) asks again every second, for as long as it
runs: upstream's agent does the same. Logged at ERROR every time, a
handful of idle agents filled the API's log with the same lines
(issue 29). What an operator needs is to learn once that an agent
looks for a node it cannot have, and again now and then while it goes
on, with how many look-ups were not logged in between.

Keyed by what the line is about (a node uuid, the MAC addresses looked
up); the keys kept are bounded (the least recently warned forgotten
first), so that look-ups with made-up addresses cannot grow memory.
"""

import collections
from collections.abc import Callable
import threading
import time
from typing import Any

#: Seconds between two WARNINGs about the same key.
DEFAULT_INTERVAL = 300.0
#: Keys remembered at most.
DEFAULT_MAX_KEYS = 10000


class _Seen:
    __slots__ = ('warned_at', 'quiet')

    def __init__(self, warned_at: float) -> None:
        self.warned_at = warned_at
        self.quiet = 0


class LimitedLog:
    """WARNING for the first line of a key in ``interval`` seconds,
    DEBUG for the others."""

    def __init__(
        self,
        interval: float = DEFAULT_INTERVAL,
        max_keys: int = DEFAULT_MAX_KEYS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.interval = interval
        self.max_keys = max_keys
        self.clock = clock
        self._seen: collections.OrderedDict[str, _Seen] = (
            collections.OrderedDict()
        )
        self._lock = threading.Lock()

    def warning(
        self, logger: Any, key: str, message: str, values: dict[str, Any]
    ) -> None:
        """Log ``message % values`` about ``key`` on ``logger`` (see
        the class)."""
        quiet = self._quiet_since_warning(key)
        if quiet is None:
            logger.debug(message, values)
            return
        if quiet:
            message += (
                ' (%(quiet)d more time(s) in the last %(interval)d '
                's, logged at DEBUG)'
            )
            values = {**values, 'quiet': quiet, 'interval': self.interval}
        logger.warning(message, values)

    def _quiet_since_warning(self, key: str) -> int | None:
        """None: stay quiet; else warn now, and this many lines were
        quiet since the last warning."""
        now = self.clock()
        with self._lock:
            seen = self._seen.get(key)
            if seen is not None and now - seen.warned_at < self.interval:
                seen.quiet += 1
                return None
            quiet = seen.quiet if seen is not None else 0
            self._seen[key] = _Seen(now)
            self._seen.move_to_end(key)
            while len(self._seen) > self.max_keys:
                self._seen.popitem(last=False)
            return quiet
