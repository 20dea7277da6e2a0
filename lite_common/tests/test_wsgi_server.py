"""The API server against hostile and unlucky clients (real sockets on
127.0.0.1, every loop bounded).

Each test failed on the cheroot server used before: a slow client held
a worker thread per connection, idle connections blocked every thread,
a short body held a worker until the socket timeout, and health checks
waited behind busy workers.
"""

from collections.abc import Iterator
import contextlib
import http.client
import threading
import time

import pytest

from lite_common.tests import hostile
from lite_common.wsgi import server

CLIENTS = 150
SERVED_WITHIN = hostile.SERVED_WITHIN


class App:
    """Answers ``ok``; ``/block`` waits until released."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.calls = 0

    def __call__(self, environ, start_response):
        self.calls += 1
        if environ['PATH_INFO'] == '/block':
            self.release.wait(10)
        elif environ['PATH_INFO'] == '/slow':
            time.sleep(0.05)
        start_response('200 OK', [('Content-Type', 'text/plain')])
        return [b'ok']


@contextlib.contextmanager
def serving(app, **settings) -> Iterator[int]:
    try:
        with hostile.serving(app, server.Settings(**settings)) as port:
            yield port
    finally:
        release = getattr(app, 'release', None)
        if release is not None:
            release.set()


def test_a_burst_of_connections_is_queued_not_reset() -> None:
    statuses: list[int] = []
    errors: list[str] = []
    barrier = threading.Barrier(CLIENTS)

    def one(port: int) -> None:
        barrier.wait()
        try:
            statuses.append(hostile.get(port, '/slow'))
        except OSError as exc:
            errors.append(repr(exc))

    with serving(App(), threads=4) as port:
        threads = [
            threading.Thread(target=one, args=(port,)) for _ in range(CLIENTS)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert errors == []
    assert statuses == [200] * CLIENTS


def test_slow_clients_hold_no_worker() -> None:
    """20 clients sending a header byte at a time (slowloris) on a
    4-thread server: others are still served at once."""
    with serving(App(), threads=4) as port:
        with hostile.slow_clients(port, 20):
            took = hostile.timed_gets(port, 10)
    assert max(took) < SERVED_WITHIN, took


def test_a_request_that_does_not_arrive_in_time_is_cut_off() -> None:
    """A trickling head, or a body shorter than its Content-Length, is
    disconnected after client_timeout; the application never sees it."""
    app = App()
    with serving(app, client_timeout=1) as port:
        short_body, trickle = hostile.open_sockets(port, 2)
        short_body.sendall(
            b'POST / HTTP/1.1\r\nHost: x\r\n'
            b'Content-Length: 100\r\n\r\n0123456789'
        )
        trickle.sendall(b'GET / HTTP/1.1\r\n')
        started = time.monotonic()
        with contextlib.suppress(OSError):  # cut off while trickling
            for _ in range(4):
                time.sleep(0.5)
                trickle.send(b'X')
        assert hostile.closed_by_server(short_body, within=5)
        assert hostile.closed_by_server(trickle, within=5)
        assert time.monotonic() - started < 6
        assert app.calls == 0
        assert hostile.timed_gets(port, 1)[0] < SERVED_WITHIN


def test_idle_connections_are_closed_after_keepalive_timeout() -> None:
    with serving(App(), keepalive_timeout=1) as port:
        (idle,) = hostile.open_sockets(port, 1)
        assert hostile.closed_by_server(idle, within=5)


def test_a_flood_of_idle_connections_gives_way() -> None:
    """200 idle connections against a limit of 50: the oldest idle ones
    are closed to make room, and others are served at once."""
    with serving(App(), max_connections=50) as port:
        with hostile.idle_connections(port, 200):
            took = hostile.timed_gets(port, 10)
    assert max(took) < SERVED_WITHIN, took


def test_beyond_the_limit_with_none_idle_is_a_fast_503() -> None:
    """Every connection is in the middle of a request: a newcomer gets
    an immediate 503 (with Retry-After), not a wait."""
    with serving(App(), max_connections=10) as port:
        socks = hostile.open_sockets(port, 10)
        for sock in socks:
            sock.sendall(b'GET / HTTP/1.1\r\n')
        time.sleep(0.3)
        try:
            started = time.monotonic()
            conn = http.client.HTTPConnection('127.0.0.1', port, timeout=5)
            conn.request('GET', '/')
            response = conn.getresponse()
            body = response.read()
            took = time.monotonic() - started
        finally:
            for sock in socks:
                sock.close()
    assert response.status == 503
    assert response.getheader('Retry-After') == '1'
    assert b'busy' in body
    assert took < SERVED_WITHIN


def test_health_checks_are_answered_while_every_worker_is_busy() -> None:
    app = App()
    with serving(app, threads=2) as port:
        blocked = [
            threading.Thread(target=hostile.get, args=(port, '/block'))
            for _ in range(4)
        ]
        for thread in blocked:
            thread.start()
        time.sleep(0.3)
        started = time.monotonic()
        status = hostile.get(port, '/healthcheck', timeout=5)
        took = time.monotonic() - started
        app.release.set()
        for thread in blocked:
            thread.join()
    assert status == 200
    assert took < SERVED_WITHIN


def test_stop_is_prompt_with_connections_open() -> None:
    app = App()
    api = server.APIServer('test-api', app, '127.0.0.1', 0)
    api.start()
    socks = hostile.open_sockets(api.bind_addr[1], 5)
    started = time.monotonic()
    api.stop()
    assert time.monotonic() - started < 3
    for sock in socks:
        assert hostile.closed_by_server(sock, within=2)
        sock.close()


def test_a_port_in_use_is_a_clear_error() -> None:
    with serving(App()) as port:
        with pytest.raises(RuntimeError, match='cannot listen on'):
            server.APIServer('second', App(), '127.0.0.1', port)


def test_header_names_are_sent_as_the_application_wrote_them() -> None:
    def app(environ, start_response):
        start_response(
            '200 OK',
            [
                ('Content-Type', 'text/plain'),
                ('X-OpenStack-Request-Id', 'req-1'),
                ('OpenStack-API-Version', 'compute 2.1'),
            ],
        )
        return [b'ok']

    with serving(app) as port:
        (sock,) = hostile.open_sockets(port, 1)
        sock.sendall(b'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
        raw = b''
        while chunk := sock.recv(4096):
            raw += chunk
        sock.close()
    head = raw.split(b'\r\n\r\n')[0]
    assert b'\r\nX-OpenStack-Request-Id: req-1' in head
    assert b'\r\nOpenStack-API-Version: compute 2.1' in head
