"""nova-lite-api on its real server against slow and idle clients:
others are still served within a second (bounded, 127.0.0.1 only)."""

from collections.abc import Iterator
import http.client
import json
import time

import pytest

from lite_common.tests import hostile
from lite_common.wsgi import server
from nova_lite.api import errors
from nova_lite.tests import stack as nova_stack

SETTINGS = server.Settings(threads=4, max_connections=100)
HEADERS = {'OpenStack-API-Version': 'compute 2.53'}


@pytest.fixture
def port() -> Iterator[int]:
    stack = nova_stack.Stack().start()
    try:
        with hostile.serving(
            stack.app, SETTINGS, errors.compute_error
        ) as port:
            yield port
    finally:
        stack.stop()


def test_slow_clients_and_a_connection_flood_starve_no_one(port):
    with hostile.slow_clients(port, 20), hostile.idle_connections(port, 200):
        took = hostile.timed_gets(port, 10, '/v2.1/servers', HEADERS)
        took += hostile.timed_gets(port, 3, '/healthcheck')
    assert max(took) < hostile.SERVED_WITHIN, took


def test_beyond_the_limit_the_503_is_in_the_compute_format(port):
    """Every connection in the middle of a request (none idle)."""
    socks = hostile.open_sockets(port, 100)
    try:
        for sock in socks:
            sock.sendall(b'GET /v2.1 HTTP/1.1\r\n')
        time.sleep(0.3)
        conn = http.client.HTTPConnection('127.0.0.1', port, timeout=5)
        conn.request('GET', '/v2.1')
        response = conn.getresponse()
        status, body = response.status, json.loads(response.read())
        conn.close()
    finally:
        for sock in socks:
            sock.close()
    assert status == 503
    assert body['serviceUnavailable']['code'] == 503
