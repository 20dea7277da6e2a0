"""Throttling of failed http_basic logins: the guesser, never the owner.

bcrypt costs about a quarter of a second of CPU per check, on purpose;
without a limit a few guessing clients starve the API. The limits are
on the client's address, never on a user name alone: anyone can send
wrong passwords for any name, and a limit per name would let them lock
its owner out.

* A source address gets :data:`SOURCE_ATTEMPTS` failed checks within
  :data:`WINDOW` seconds, whatever the names it tries;
* a source address and user name together get :data:`PAIR_ATTEMPTS`.

Past either, the source is answered ``429`` with ``Retry-After`` for
that name (or every name) until the oldest failure leaves the window,
without running bcrypt. A check is counted when it starts, not when
bcrypt has answered: concurrent guessers cannot all pass the limit
before the first failure is recorded. A check that succeeds gives its
count back. A distributed guesser, with many addresses, is bounded by
the bcrypt slots of the process (:mod:`lite_common.wsgi.auth`), not by
this table. Both tables keep at most :data:`MAX_ENTRIES` keys (the least
recently used are forgotten first).
"""

import collections
from collections.abc import Callable
import dataclasses
import ipaddress
import math
import threading
import time

WINDOW = 60.0
SOURCE_ATTEMPTS = 20
PAIR_ATTEMPTS = 5
MAX_ENTRIES = 10000

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class Throttled(Exception):
    """The source must wait :attr:`retry_after` seconds."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f'retry after {retry_after} s')
        self.retry_after = retry_after


@dataclasses.dataclass(frozen=True)
class Ticket:
    """A check under way, counted in both tables at :attr:`at`."""

    source: str
    pair: str
    at: float


class _Attempts:
    """Recent attempt times per key, bounded in keys and per key."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.times: collections.OrderedDict[str, collections.deque[float]] = (
            collections.OrderedDict()
        )

    def __len__(self) -> int:
        return len(self.times)

    def wait(self, key: str, now: float) -> float:
        """Seconds until ``key`` may try again (0: now)."""
        times = self.times.get(key)
        if times is None or len(times) < self.limit:
            return 0.0
        return max(0.0, times[0] + WINDOW - now)

    def add(self, key: str, now: float) -> None:
        times = self.times.get(key)
        if times is None:
            times = self.times[key] = collections.deque(maxlen=self.limit)
        times.append(now)
        self.times.move_to_end(key)
        while len(self.times) > MAX_ENTRIES:
            self.times.popitem(last=False)

    def give_back(self, key: str, at: float) -> None:
        times = self.times.get(key)
        if times is None:
            return
        try:
            times.remove(at)
        except ValueError:
            return  # already pushed out of the window
        if not times:
            del self.times[key]


class Guard:
    """The attempt tables of one API process (thread-safe)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.sources = _Attempts(SOURCE_ATTEMPTS)
        self.pairs = _Attempts(PAIR_ATTEMPTS)
        self._lock = threading.Lock()

    def admit(self, source: str, user: str) -> Ticket:
        """Count a check of ``user``'s password from ``source``, or raise
        :class:`Throttled`. Failed checks keep their count."""
        pair = f'{source}\0{user}'
        with self._lock:
            now = self.clock()
            wait = max(
                self.sources.wait(source, now), self.pairs.wait(pair, now)
            )
            if wait:
                raise Throttled(max(1, math.ceil(wait)))
            self.sources.add(source, now)
            self.pairs.add(pair, now)
        return Ticket(source, pair, now)

    def succeeded(self, ticket: Ticket) -> None:
        """The check was the right password: it does not count."""
        with self._lock:
            self.sources.give_back(ticket.source, ticket.at)
            self.pairs.give_back(ticket.pair, ticket.at)


def parse_networks(values: list[str]) -> list[Network]:
    """Addresses and networks (``192.0.2.10``, ``10.0.0.0/8``); a clear
    error for anything else."""
    networks = []
    for value in values:
        try:
            networks.append(ipaddress.ip_network(value.strip(), strict=False))
        except ValueError:
            raise ValueError(
                f'{value!r} in http_basic_trusted_proxies is not an IP '
                'address or network (such as 192.0.2.10 or 10.0.0.0/8).'
            )
    return networks


def _trusted(address: str, proxies: list[Network]) -> bool:
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return False
    return any(ip in network for network in proxies)


def client_address(
    peer: str, forwarded_for: str | None, proxies: list[Network]
) -> str:
    """The address a request came from: its peer, or, when the peer is
    a trusted proxy, the last address in ``X-Forwarded-For`` that is not
    one (each proxy appends the address it was called from; what a
    client wrote itself comes first and is not believed)."""
    if not forwarded_for or not _trusted(peer, proxies):
        return peer
    hops = [hop.strip() for hop in forwarded_for.split(',')]
    for hop in reversed(hops):
        if not _trusted(hop, proxies):
            # Written by the nearest trusted proxy: the client's address
            # (a key of its own even when a proxy writes no address).
            return hop or peer
    return peer
