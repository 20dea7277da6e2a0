"""The cheroot API server under a burst of connections (real sockets).

A burst of clients larger than the server's threads must queue in the
listen backlog and all get their answer: with cheroot's default backlog
of 5 the kernel dropped the handshakes of the others, and their clients
timed out or saw their connection reset.
"""

import http.client
import threading
import time

from lite_common.wsgi import server

CLIENTS = 150


def _slow_app(environ, start_response):
    time.sleep(0.05)
    start_response('200 OK', [('Content-Type', 'text/plain')])
    return [b'ok']


def _burst(port: int, clients: int) -> tuple[list[int], list[str]]:
    statuses: list[int] = []
    errors: list[str] = []
    barrier = threading.Barrier(clients)

    def one() -> None:
        barrier.wait()
        try:
            conn = http.client.HTTPConnection('127.0.0.1', port, timeout=15)
            conn.request('GET', '/')
            response = conn.getresponse()
            response.read()
            statuses.append(response.status)
            conn.close()
        except OSError as exc:
            errors.append(repr(exc))

    threads = [threading.Thread(target=one) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return statuses, errors


def test_a_burst_of_connections_is_queued_not_reset() -> None:
    api = server.APIServer('burst-test', _slow_app, '127.0.0.1', 0,
                           threads=4)
    api.start()
    try:
        statuses, errors = _burst(api.bind_addr[1], CLIENTS)
    finally:
        api.stop()
    assert errors == []
    assert statuses == [200] * CLIENTS


def test_the_backlog_is_configurable() -> None:
    api = server.APIServer('backlog-test', _slow_app, '127.0.0.1', 0,
                           backlog=64)
    assert api.server.request_queue_size == 64
    assert server.APIServer('default', _slow_app, '127.0.0.1', 0
                            ).server.request_queue_size == (
        server.DEFAULT_BACKLOG)
