"""Concurrent writes through the real API server: a 200 is stored.

The in-process stack (real conductor, inproc bus, SQLite) behind
ironic-lite-api on waitress; clients are plain HTTP connections on
threads, all released at once.
"""

from collections.abc import Iterator
import http.client
import json
import threading
from typing import Any

import pytest

from ironic_lite.tests.functional import fixtures
from lite_common.tests import hostile
from lite_common.wsgi import server

CLIENTS = 30
HEADERS = {
    'Content-Type': 'application/json',
    'X-OpenStack-Ironic-API-Version': 'latest',
}


@pytest.fixture
def port() -> Iterator[int]:
    stack = fixtures.Stack().start()
    try:
        with hostile.serving(stack.app, server.Settings(threads=16)) as port:
            yield port
    finally:
        stack.stop()


def request(
    port: int, method: str, path: str, body: Any = None
) -> tuple[int, Any]:
    conn = http.client.HTTPConnection('127.0.0.1', port, timeout=60)
    try:
        conn.request(
            method,
            path,
            body=json.dumps(body) if body is not None else None,
            headers=HEADERS,
        )
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b'null')
    finally:
        conn.close()


def at_once(count: int, func: Any) -> list[Any]:
    """``func(i)`` for i in range(count) on threads released together."""
    results: list[Any] = [None] * count
    barrier = threading.Barrier(count)

    def run(index: int) -> None:
        barrier.wait()
        results[index] = func(index)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_concurrent_patches_answered_200_are_all_stored(port: int) -> None:
    """Item 3: 30 PATCHes adding distinct /extra keys at once: 17 were
    answered 200 and 10 of those lost (each wrote the whole field it
    computed from a row read before the others wrote). Every 200 must be
    stored; the others are 409s a client retries."""
    status, node = request(
        port, 'POST', '/v1/nodes', {'driver': 'fake-hardware', 'name': 'busy'}
    )
    assert status == 201, node

    def patch(index: int) -> int:
        status, _body = request(
            port,
            'PATCH',
            '/v1/nodes/busy',
            [{'op': 'add', 'path': f'/extra/key-{index}', 'value': index}],
        )
        return status

    statuses = at_once(CLIENTS, patch)
    assert set(statuses) <= {200, 409}, statuses
    answered = {
        f'key-{i}' for i, status in enumerate(statuses) if status == 200
    }
    assert answered, statuses
    status, node = request(port, 'GET', '/v1/nodes/busy')
    assert answered <= set(node['extra']), (
        sorted(answered),
        sorted(node['extra']),
    )
    # Retrying the refused ones stores them too, one at a time.
    for index, status in enumerate(statuses):
        if status != 200:
            assert patch(index) == 200
    status, node = request(port, 'GET', '/v1/nodes/busy')
    assert set(node['extra']) == {f'key-{i}' for i in range(CLIENTS)}


def test_one_port_per_mac_under_concurrent_creates(port: int) -> None:
    """30 creates of one MAC address at once: one 201, the rest 409,
    never a 500; 30 creates of distinct addresses on one node: all
    201 (a create takes the node's shared lock only)."""
    status, node = request(
        port, 'POST', '/v1/nodes', {'driver': 'fake-hardware', 'name': 'nics'}
    )
    assert status == 201, node

    def create_same(index: int) -> int:
        status, _body = request(
            port,
            'POST',
            '/v1/ports',
            {
                'node_uuid': node['uuid'],
                'address': '52:54:00:12:34:56',
                'extra': {'client': index},
            },
        )
        return status

    statuses = at_once(CLIENTS, create_same)
    assert sorted(statuses) == [201] + [409] * (CLIENTS - 1), statuses

    def create_distinct(index: int) -> int:
        status, _body = request(
            port,
            'POST',
            '/v1/ports',
            {
                'node_uuid': node['uuid'],
                'address': f'52:54:00:00:10:{index:02x}',
            },
        )
        return status

    assert at_once(CLIENTS, create_distinct) == [201] * CLIENTS
    status, body = request(port, 'GET', '/v1/nodes/nics/ports?limit=100')
    assert len(body['ports']) == CLIENTS + 1


def test_concurrent_port_changes_of_one_node_take_turns(port: int) -> None:
    """30 PATCHes of 30 ports of one node at once: each waits for the
    node lock (as upstream retries) and is stored; none is refused."""
    status, node = request(
        port, 'POST', '/v1/nodes', {'driver': 'fake-hardware', 'name': 'wired'}
    )
    assert status == 201, node
    uuids = []
    for index in range(CLIENTS):
        status, created = request(
            port,
            'POST',
            '/v1/ports',
            {
                'node_uuid': node['uuid'],
                'address': f'52:54:00:00:20:{index:02x}',
            },
        )
        assert status == 201, created
        uuids.append(created['uuid'])

    def patch(index: int) -> int:
        status, _body = request(
            port,
            'PATCH',
            f'/v1/ports/{uuids[index]}',
            [
                {'op': 'add', 'path': '/extra/turn', 'value': index},
                {'op': 'replace', 'path': '/pxe_enabled', 'value': False},
            ],
        )
        return status

    assert at_once(CLIENTS, patch) == [200] * CLIENTS
    for index, uuid in enumerate(uuids):
        status, shown = request(port, 'GET', f'/v1/ports/{uuid}')
        assert shown['extra'] == {'turn': index}
        assert shown['pxe_enabled'] is False
