"""Refused agent look-ups are logged once per node (or addresses) in an
interval as a WARNING, at DEBUG in between, never at ERROR (issue 29:
an ERROR once a second per agent, without end), through the real API
application; and the limiter on its own, with a clock the test turns."""

import json
import logging
from typing import Any

import pytest
import webob

from ironic_lite.api import log_limit
from ironic_lite.tests.functional import fixtures

HEADERS = {
    'X-OpenStack-Ironic-API-Version': 'latest',
    'Content-Type': 'application/json',
}
LOGGER = 'ironic_lite.api.handlers.ramdisk'


@pytest.fixture(scope='module')
def stack():
    stack = fixtures.Stack().start()
    yield stack
    stack.stop()


def _call(stack: Any, method: str, path: str, body: Any = None) -> Any:
    request = webob.Request.blank(path, method=method, headers=HEADERS)
    if body is not None:
        request.body = json.dumps(body).encode()
    response = request.get_response(stack.app)
    return response.status_int, (response.json if response.body else None)


def _enrolled_node_with_port(stack: Any, mac: str) -> str:
    status, node = _call(
        stack, 'POST', '/v1/nodes', {'driver': 'fake-hardware'}
    )
    assert status == 201, node
    status, port = _call(
        stack, 'POST', '/v1/ports', {'node_uuid': node['uuid'], 'address': mac}
    )
    assert status == 201, port
    return str(node['uuid'])


def _records(caplog: Any) -> list[tuple[int, str]]:
    return [
        (r.levelno, r.getMessage()) for r in caplog.records if r.name == LOGGER
    ]


def _lookup(stack: Any, mac: str) -> None:
    status, _ = _call(stack, 'GET', f'/v1/lookup?addresses={mac}')
    assert status == 404


def test_a_node_not_to_be_looked_up_is_warned_about_once(stack, caplog):
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    first = _enrolled_node_with_port(stack, '52:54:00:ee:00:01')
    second = _enrolled_node_with_port(stack, '52:54:00:ee:00:02')
    for _second_of_an_agent in range(10):
        _lookup(stack, '52:54:00:ee:00:01')
        _lookup(stack, '52:54:00:ee:00:02')
    records = _records(caplog)
    warnings = [m for level, m in records if level == logging.WARNING]
    assert sorted(warnings) == sorted(
        f'Lookup is not allowed for node {uuid} in provision state enroll'
        for uuid in (first, second)
    )
    assert [level for level, _ in records].count(logging.DEBUG) == 18
    assert not [m for level, m in records if level >= logging.ERROR]


def test_unknown_addresses_are_warned_about_once(stack, caplog):
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    for _second_of_an_agent in range(5):
        _lookup(stack, '52:54:00:ee:00:99')
    levels = [level for level, _ in _records(caplog)]
    assert levels == [logging.WARNING] + [logging.DEBUG] * 4


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_warning_comes_again_after_the_interval_with_a_count(caplog):
    caplog.set_level(logging.DEBUG, logger='test.limited')
    logger = logging.getLogger('test.limited')
    clock = Clock()
    limited = log_limit.LimitedLog(interval=300, clock=clock)
    for _ in range(4):
        limited.warning(logger, 'node-a', 'about %(what)s', {'what': 'a'})
        clock.now += 1
    clock.now += 300
    limited.warning(logger, 'node-a', 'about %(what)s', {'what': 'a'})
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [
        (logging.WARNING, 'about a'),
        *[(logging.DEBUG, 'about a')] * 3,
        (
            logging.WARNING,
            'about a (3 more time(s) in the last 300 s, logged at DEBUG)',
        ),
    ]


def test_the_keys_kept_are_bounded(caplog):
    caplog.set_level(logging.DEBUG, logger='test.limited')
    logger = logging.getLogger('test.limited')
    limited = log_limit.LimitedLog(max_keys=3, clock=Clock())
    for key in ('a', 'b', 'c', 'd', 'a'):
        limited.warning(logger, key, 'about %(key)s', {'key': key})
    # 'a' was forgotten to keep 3 keys: warned about again.
    assert [r.levelno for r in caplog.records] == [logging.WARNING] * 5
    assert len(limited._seen) == 3
