"""Fixtures shared by the functional tests."""

from collections.abc import Iterator

import pytest

from ironic_lite.tests.functional import fixtures
from lite_common.tests import hostile
from lite_common.wsgi import server


@pytest.fixture(scope='module')
def endpoint() -> Iterator[str]:
    """ironic-lite-api served by waitress on a free 127.0.0.1 port, the
    in-process stack (real conductor, inproc bus, SQLite) behind."""
    stack = fixtures.Stack().start()
    try:
        with hostile.serving(stack.app, server.Settings(threads=4)) as port:
            yield f'http://127.0.0.1:{port}'
    finally:
        stack.stop()
