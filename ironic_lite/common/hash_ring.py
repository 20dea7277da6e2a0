"""A consistent hash ring mapping node uuids to conductor hostnames.

Each host owns ``partitions_per_host`` points on a ring of 64-bit
integers, placed by SHA-256 of ``"<host>-<n>"``; a key belongs to the
first point at or after its own hash (wrapping around). The placement
depends only on the host names, so every process (API, conductors)
computes the same mapping, and removing a host moves only the keys
it owned.
"""

import bisect
from collections.abc import Iterable
import hashlib
from typing import Any

from ironic_lite import exception

DEFAULT_PARTITIONS_PER_HOST = 2**5


def _hash(text: str) -> int:
    digest = hashlib.sha256(text.encode('utf-8')).digest()
    return int.from_bytes(digest[:8], 'big')


class HashRing:
    """A ring over ``hosts``; duplicates count once."""

    def __init__(
        self,
        hosts: Iterable[str],
        partitions_per_host: int = DEFAULT_PARTITIONS_PER_HOST,
    ) -> None:
        if partitions_per_host < 1:
            raise ValueError('partitions_per_host must be at least 1')
        self.hosts = frozenset(hosts)
        # Ties (astronomically unlikely) break by host name, so the
        # order never depends on the iteration order of ``hosts``.
        points = sorted(
            (_hash(f'{host}-{n}'), host)
            for host in self.hosts
            for n in range(partitions_per_host)
        )
        self._points = [point for point, _host in points]
        self._owners = [host for _point, host in points]

    def __len__(self) -> int:
        return len(self.hosts)

    def _start(self, key: str) -> int:
        if not self._points:
            raise exception.NoValidHost(
                reason='the hash ring is empty: no conductor is alive.'
            )
        return bisect.bisect_left(self._points, _hash(key)) % len(self._points)

    def get_host(self, key: str) -> str:
        """The host ``key`` (a node uuid) maps to.

        :raises NoValidHost: the ring has no hosts.
        """
        return self._owners[self._start(key)]

    def get_hosts(self, key: str, n: int = 1) -> list[str]:
        """Up to ``n`` distinct hosts for ``key``, preferred first.

        The first is :meth:`get_host`; the others are where the key
        goes if the hosts before them leave the ring.

        :raises NoValidHost: the ring has no hosts.
        """
        if n < 1:
            raise ValueError('n must be at least 1')
        start = self._start(key)
        wanted = min(n, len(self.hosts))
        found: list[str] = []
        total = len(self._owners)
        for offset in range(total):
            host = self._owners[(start + offset) % total]
            if host not in found:
                found.append(host)
                if len(found) == wanted:
                    break
        return found


def ring_for_driver(
    conductors: Iterable[dict[str, Any]],
    driver: str,
    partitions_per_host: int = DEFAULT_PARTITIONS_PER_HOST,
    conductor_group: str = '',
) -> HashRing:
    """A ring over the conductors of ``conductor_group`` (a node's;
    ``''`` is the default group) that load hardware type ``driver``:
    a node is only ever routed to a conductor of its group, as
    upstream.

    ``conductors`` are alive conductors as
    :func:`ironic_lite.db.conductors.list_alive` returns them.

    :raises NoValidHost: no conductor of the group supports ``driver``.
    """
    group = (conductor_group or '').lower()
    hosts = [
        c['hostname']
        for c in conductors
        if driver in (c.get('hardware_types') or ())
        and (c.get('conductor_group') or '') == group
    ]
    if not hosts:
        in_group = f' in conductor group "{group}"' if group else ''
        raise exception.NoValidHost(
            reason=f'No conductor service registered which supports '
            f'driver {driver}{in_group}.'
        )
    return HashRing(hosts, partitions_per_host)


def node_group(node: dict[str, Any]) -> str:
    """The conductor group of a node row (``''``: the default)."""
    return str(node.get('conductor_group') or '').lower()
