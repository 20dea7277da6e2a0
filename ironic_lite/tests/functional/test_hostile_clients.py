"""ironic-lite-api on its real server against slow and idle clients:
others are still served within a second (bounded, 127.0.0.1 only)."""

from collections.abc import Iterator

import pytest

from ironic_lite.api import errors
from ironic_lite.tests.functional import fixtures
from lite_common.tests import hostile
from lite_common.wsgi import server

SETTINGS = server.Settings(threads=4, max_connections=100)
HEADERS = {'X-OpenStack-Ironic-API-Version': 'latest'}


@pytest.fixture
def port() -> Iterator[int]:
    stack = fixtures.Stack().start()
    try:
        with hostile.serving(
            stack.app, SETTINGS, errors.baremetal_error
        ) as port:
            yield port
    finally:
        stack.stop()


def test_slow_clients_and_a_connection_flood_starve_no_one(port):
    with hostile.slow_clients(port, 20), hostile.idle_connections(port, 200):
        took = hostile.timed_gets(port, 10, '/v1/nodes', HEADERS)
        took += hostile.timed_gets(port, 3, '/healthcheck')
    assert max(took) < hostile.SERVED_WITHIN, took
