"""A TCP proxy on loopback in front of the database server, that a test
turns into a database in trouble without touching the shared server.

Services connect to the proxy's port instead of the server's; the test
then:

- :meth:`DatabaseProxy.cut` drops every open connection (a server that
  crashed, or killed its connections);
- :meth:`DatabaseProxy.refuse` / :meth:`DatabaseProxy.accept` stop and
  start listening (new connections are refused, as by a server that is
  down or restarting); :meth:`DatabaseProxy.restart` does both, around a
  pause;
- :meth:`DatabaseProxy.limit` answers connections beyond a number with
  MariaDB's own "Too many connections" (error 1040) instead of the
  server's greeting, as a server at ``max_connections`` does.

Only MariaDB/MySQL is spoken (the 1040 packet); cutting and refusing
work for any server. Everything stays on 127.0.0.1; each connection is
pumped by two daemon threads and ends when either side closes.
"""

from collections.abc import Callable
from collections.abc import Iterator
import dataclasses
import socket
import struct
import threading
import time
from typing import Any

import pytest

LOCALHOST = '127.0.0.1'
#: Seconds the accepting thread waits on its socket before it looks at
#: what the test asked (refuse, stop) again.
POLL = 0.1
TOO_MANY_CONNECTIONS = 1040


def mysql_error_packet(code: int, message: str) -> bytes:
    """A MariaDB/MySQL ERR packet sent instead of the server greeting
    (sequence 0, no SQL state: the pre-handshake form)."""
    payload = b'\xff' + struct.pack('<H', code) + message.encode()
    return struct.pack('<I', len(payload))[:3] + b'\x00' + payload


@dataclasses.dataclass
class Counts:
    """What the proxy did, for a test's report."""

    accepted: int = 0
    limited: int = 0
    cut: int = 0
    refusals: int = 0


class _Link:
    """One proxied connection: the client's socket and the server's."""

    def __init__(self, client: socket.socket, server: socket.socket) -> None:
        self.client = client
        self.server = server
        self.closed = threading.Event()

    def start(self, on_end: Callable[['_Link'], None]) -> None:
        for source, sink in (
            (self.client, self.server),
            (self.server, self.client),
        ):
            threading.Thread(
                target=self._pump, args=(source, sink, on_end), daemon=True
            ).start()

    def _pump(
        self,
        source: socket.socket,
        sink: socket.socket,
        on_end: Callable[['_Link'], None],
    ) -> None:
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                sink.sendall(data)
        except OSError:
            pass
        finally:
            self.close()
            on_end(self)

    def close(self) -> None:
        if self.closed.is_set():
            return
        self.closed.set()
        for sock in (self.client, self.server):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()


class DatabaseProxy:
    """See the module docstring. ``port`` 0 picks a free port."""

    def __init__(
        self,
        target_port: int = 3306,
        port: int = 0,
        target_host: str = LOCALHOST,
    ) -> None:
        self.target = (target_host, target_port)
        self.port = port
        self.counts = Counts()
        self._links: set[_Link] = set()
        self._lock = threading.Lock()
        self._listener: socket.socket | None = None
        self._limit: int | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- running

    def start(self) -> 'DatabaseProxy':
        self.accept()
        self._thread = threading.Thread(
            target=self._serve, daemon=True, name='database-proxy'
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self.refuse()
        self.cut()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def url(self, url: str) -> str:
        """``url`` (a SQLAlchemy URL on 127.0.0.1) through the proxy."""
        return url.replace(f'@{LOCALHOST}/', f'@{LOCALHOST}:{self.port}/')

    # -- faults

    def cut(self) -> int:
        """Drop every open connection; how many there were."""
        with self._lock:
            links = list(self._links)
            self._links.clear()
        for link in links:
            link.close()
        self.counts.cut += len(links)
        return len(links)

    def refuse(self) -> None:
        """Stop listening: new connections are refused."""
        with self._lock:
            listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()
            self.counts.refusals += 1

    def accept(self) -> None:
        """Listen again (on the same port)."""
        with self._lock:
            if self._listener is not None:
                return
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind((LOCALHOST, self.port))
            listener.listen(128)
            listener.settimeout(POLL)
            self.port = listener.getsockname()[1]
            self._listener = listener

    def restart(self, down: float) -> None:
        """A server restart: every connection dropped, new ones refused
        for ``down`` seconds."""
        self.refuse()
        self.cut()
        time.sleep(down)
        self.accept()

    def limit(self, connections: int | None) -> None:
        """At most ``connections`` open at once (None: no limit); the
        next ones get error 1040."""
        self._limit = connections

    def open_connections(self) -> int:
        with self._lock:
            return len(self._links)

    # -- the accepting thread

    def _serve(self) -> None:
        while not self._stop.is_set():
            listener = self._listener
            if listener is None:
                time.sleep(POLL)
                continue
            try:
                client, _ = listener.accept()
            except (TimeoutError, OSError):
                continue
            client.settimeout(None)
            self._admit(client)

    def _admit(self, client: socket.socket) -> None:
        with self._lock:
            full = self._limit is not None and len(self._links) >= self._limit
        if full:
            self.counts.limited += 1
            try:
                client.sendall(
                    mysql_error_packet(
                        TOO_MANY_CONNECTIONS, 'Too many connections'
                    )
                )
            except OSError:
                pass
            client.close()
            return
        try:
            server = socket.create_connection(self.target, timeout=10)
            server.settimeout(None)
        except OSError:
            client.close()
            return
        link = _Link(client, server)
        with self._lock:
            self._links.add(link)
        self.counts.accepted += 1
        link.start(self._forget)

    def _forget(self, link: _Link) -> None:
        with self._lock:
            self._links.discard(link)


def module_fixture() -> Any:
    """A module-scoped ``proxy`` fixture: a started
    :class:`DatabaseProxy`, stopped after the module's tests."""

    @pytest.fixture(scope='module')
    def proxy() -> Iterator[DatabaseProxy]:
        running = DatabaseProxy().start()
        yield running
        running.stop()

    return proxy
