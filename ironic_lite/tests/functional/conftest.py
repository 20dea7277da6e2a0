"""Fixtures shared by the functional tests."""

from collections.abc import Iterator

import pytest

from ironic_lite.tests.functional import agent_stack

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
    with agent_stack.serving(FLAT_NETWORK) as url:
        yield url


@pytest.fixture
def agents() -> Iterator[list[agent_stack.Agent]]:
    """The ironic-lite-agent processes a test starts: killed after it."""
    started: list[agent_stack.Agent] = []
    yield started
    for agent in started:
        agent.kill()
