"""Which conductor an API request goes to.

A request about a node goes to the conductor the consistent hash ring
maps the node's uuid to, among the alive conductors that load the node's
hardware type and serve its conductor group (so every API process and
conductor agrees on the owner without asking anyone).

A call waits ``[api]conductor_call_timeout`` seconds. A conductor whose
heartbeat was more than two ``[conductor]heartbeat_interval`` (and at
least five seconds) old when the API last read the conductors is
*down* (killed, paused, cut off) even before ``heartbeat_timeout`` takes
it out of the ring: a request goes to the next conductor of the ring
instead, at once when the owner already looks down, or after the
timeout when it turns out to be. The node lock keeps that safe: a node
the down conductor still holds answers ``NodeLocked`` (409).
"""

import threading
import time
from typing import Any

from oslo_config import cfg
from oslo_log import log as logging
import oslo_messaging as messaging

from ironic_lite import exception
from ironic_lite.common import hash_ring
from ironic_lite.db import conductors as db_conductors
from lite_common import db as lite_db
from lite_common import rpc
from lite_common.context import RequestContext

LOG = logging.getLogger(__name__)

#: Conductors of the ring a request may try, in ring order.
HOSTS_PER_REQUEST = 3
#: Missed heartbeats after which a conductor is down for the requests.
DOWN_AFTER_HEARTBEATS = 2
#: Seconds an API process keeps its hash ring before reading the alive
#: conductors again.
RING_REFRESH_SECONDS = 5.0


class Rings:
    """Hash rings per hardware type, rebuilt every few seconds.

    The alive conductors are read at most every
    :data:`RING_REFRESH_SECONDS`; a ring is built once per hardware type
    and read, not once per request.
    """

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.conf = conf
        self._lock = threading.Lock()
        self._alive: list[dict[str, Any]] = []
        #: When ``_alive`` was read (its heartbeats are as of then).
        self._read_wall = lite_db.utcnow()
        self._rings: dict[tuple[str, str], hash_ring.HashRing | None] = {}
        self._read_at = -RING_REFRESH_SECONDS

    def alive(
        self, context: RequestContext, refresh: bool = False
    ) -> list[dict[str, Any]]:
        with self._lock:
            now = time.monotonic()
            if refresh or now - self._read_at >= RING_REFRESH_SECONDS:
                self._read_wall = lite_db.utcnow()
                self._alive = db_conductors.list_alive(
                    context, self.conf.conductor.heartbeat_timeout
                )
                self._rings = {}
                self._read_at = now
            return self._alive

    def ring(
        self,
        context: RequestContext,
        driver: str,
        refresh: bool = False,
        conductor_group: str = '',
    ) -> hash_ring.HashRing | None:
        """The ring of ``driver`` in ``conductor_group``; None when no
        alive conductor of the group loads it."""
        alive = self.alive(context, refresh)
        key = (conductor_group, driver)
        with self._lock:
            if key not in self._rings:
                try:
                    self._rings[key] = hash_ring.ring_for_driver(
                        alive, driver, conductor_group=conductor_group
                    )
                except exception.NoValidHost:
                    self._rings[key] = None
            return self._rings[key]

    def hosts_for(
        self, context: RequestContext, node: dict[str, Any]
    ) -> list[str]:
        """The conductor owning ``node`` (of its conductor group),
        then the ones the node goes to if it leaves the ring.

        :raises NoValidHost: no alive conductor of the node's group
            loads its hardware type.
        """
        group = hash_ring.node_group(node)
        ring = self.ring(context, node['driver'], conductor_group=group)
        if ring is None:
            # A conductor may have started since the last read.
            ring = self.ring(
                context, node['driver'], refresh=True, conductor_group=group
            )
        if ring is None:
            in_group = f' in conductor group "{group}"' if group else ''
            raise exception.NoValidHost(
                reason=f'No conductor service registered which supports '
                f'driver {node["driver"]}{in_group}.'
            )
        return ring.get_hosts(node['uuid'], HOSTS_PER_REQUEST)

    def any_hosts(self, context: RequestContext, key: str) -> list[str]:
        """Alive conductors for work that belongs to no node yet (an
        allocation being made), by a ring over all of them keyed by
        ``key``.

        :raises NoValidHost: no conductor is alive.
        """
        hosts = [row['hostname'] for row in self.alive(context)]
        if not hosts:
            hosts = [
                row['hostname'] for row in self.alive(context, refresh=True)
            ]
        if not hosts:
            raise exception.NoValidHost(
                reason='No conductor service is registered and alive.'
            )
        return hash_ring.HashRing(hosts).get_hosts(key, HOSTS_PER_REQUEST)

    def looks_down(self, host: str) -> bool:
        """Whether ``host`` left the ring or missed
        :data:`DOWN_AFTER_HEARTBEATS` heartbeats (as last read)."""
        with self._lock:
            alive, read_at = list(self._alive), self._read_wall
        if host not in {row['hostname'] for row in alive}:
            return True
        return host in db_conductors.down_hosts(
            alive,
            self.conf.conductor.heartbeat_interval,
            DOWN_AFTER_HEARTBEATS,
            as_of=read_at,
        )


class RoutedClient:
    """An RPC client whose calls go to the conductor that owns their
    node (or to any alive one, for work that has no node yet)."""

    def __init__(
        self,
        conf: cfg.ConfigOpts,
        target: messaging.Target,
        timeout: int | None = None,
    ) -> None:
        self.timeout = timeout or conf.api.conductor_call_timeout
        self.client = rpc.get_client(
            conf, target, timeout=self.timeout, expected=exception.RPC_EXPECTED
        )
        self.rings = Rings(conf)

    def _prepare(self, context: RequestContext, node: dict[str, Any]) -> Any:
        host = self.rings.hosts_for(context, node)[0]
        return self.client.prepare(server=host)

    def _call(
        self,
        context: RequestContext,
        node: dict[str, Any],
        method: str,
        **kwargs: Any,
    ) -> Any:
        """``method`` on the node's conductor, or on the next one of the
        ring when it is down (see the module docstring)."""
        return self._call_hosts(
            context,
            self.rings.hosts_for(context, node),
            node['uuid'],
            method,
            **kwargs,
        )

    def _call_any(
        self, context: RequestContext, key: str, method: str, **kwargs: Any
    ) -> Any:
        """``method`` on any alive conductor (chosen by ``key``)."""
        return self._call_hosts(
            context, self.rings.any_hosts(context, key), key, method, **kwargs
        )

    def _call_hosts(
        self,
        context: RequestContext,
        hosts: list[str],
        key: str,
        method: str,
        **kwargs: Any,
    ) -> Any:
        error: messaging.MessagingTimeout | None = None
        for index, host in enumerate(hosts):
            last = index == len(hosts) - 1
            if not last and self.rings.looks_down(host):
                continue
            try:
                return self.client.prepare(server=host).call(
                    context, method, **kwargs
                )
            except messaging.MessagingTimeout as exc:
                error = exc
                self.rings.alive(context, refresh=True)
                if last or not self.rings.looks_down(host):
                    raise
                LOG.warning(
                    'Conductor %(host)s did not answer %(method)s '
                    'for %(key)s within %(timeout)s s and looks '
                    'down; trying the next conductor',
                    {
                        'host': host,
                        'method': method,
                        'key': key,
                        'timeout': self.timeout,
                    },
                )
        assert error is not None
        raise error
