"""Fixtures shared by the functional tests."""

from collections.abc import Iterator

import pytest

from ironic_lite.tests.functional import fixtures
from lite_common.tests import hostile
from lite_common.wsgi import server

#: One stack per process at a time (a second one's stop tears down the
#: in-process bus): the flat network interface is enabled in the one.
FLAT_NETWORK = {
    'enabled_network_interfaces': ['noop', 'flat'],
    'neutron.cleaning_network': 'cleaning-net',
}


@pytest.fixture(scope='module')
def endpoint() -> Iterator[str]:
    """ironic-lite-api served by waitress on a free 127.0.0.1 port, the
    in-process stack (real conductor, inproc bus, SQLite) behind; the
    flat network interface enabled beside noop (the default)."""
    stack = fixtures.Stack(overrides=FLAT_NETWORK).start()
    try:
        with hostile.serving(stack.app, server.Settings(threads=4)) as port:
            yield f'http://127.0.0.1:{port}'
    finally:
        stack.stop()
