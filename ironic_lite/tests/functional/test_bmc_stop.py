"""A conductor that stops gives up its BMC calls and their retries at
once (issue 29: a SIGTERM of the all-in-one took 4 min 37 s, retrying an
unreachable Redfish BMC after the conductor had said it stopped).

The retry options are upstream's defaults (a Redfish request tried 5
times, each repeated 10 times by sushy, 3 s apart: about 150 s; an IPMI
command retried for 60 s, each attempt waiting up to 60 s), so that a
stop that waited for them would take minutes; each test measures the
stop while a call is under way against a BMC that refuses connections
or says nothing, with the conductor in process and real sockets.
"""

import json
import logging
import socket
import threading
import time
from typing import Any

import pytest
import webob

from ironic_lite.db import nodes as db_nodes
from ironic_lite.tests.functional import fixtures
from lite_common import context as lite_context

HEADERS = {
    'X-OpenStack-Ironic-API-Version': 'latest',
    'Content-Type': 'application/json',
}
#: A stop takes well under this (measured: under 1 s); the retries it
#: ends would take minutes.
STOP_BOUND = 10.0
UPSTREAM_RETRIES = {
    'redfish.connection_attempts': 5,
    'redfish.connection_retry_interval': 4,
    'redfish.server_side_retries': 10,
    'redfish.server_side_retries_delay': 3,
    'redfish.read_timeout': 60,
    'ipmi.command_retry_timeout': 60,
    'ipmi.min_command_interval': 5,
    'ipmi.operation_timeout': 60,
    # The power sync stays out of the way of the power change watched.
    'conductor.sync_power_state_interval': 0,
}


class SilentTCP:
    """A BMC that accepts connections and never answers."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(('127.0.0.1', 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.accepted = threading.Event()
        self.conns: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)
            self.accepted.set()

    def close(self) -> None:
        self.sock.close()
        for conn in self.conns:
            conn.close()


class SilentUDP:
    """An IPMI BMC that receives and never answers."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(('127.0.0.1', 0))
        self.port = self.sock.getsockname()[1]
        self.received = threading.Event()
        threading.Thread(target=self._receive, daemon=True).start()

    def _receive(self) -> None:
        while True:
            try:
                self.sock.recv(4096)
            except OSError:
                return
            self.received.set()

    def close(self) -> None:
        self.sock.close()


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def stack():
    stack = fixtures.Stack(
        overrides={
            'enabled_hardware_types': ['fake-hardware', 'redfish', 'ipmi'],
            'enabled_power_interfaces': ['fake', 'redfish', 'ipmi'],
            'enabled_management_interfaces': ['fake', 'redfish', 'ipmi'],
            'enabled_deploy_interfaces': ['fake', 'agent'],
            **UPSTREAM_RETRIES,
        }
    ).start()
    yield stack
    stack.stop()


def _call(stack: Any, method: str, path: str, body: Any = None) -> Any:
    request = webob.Request.blank(path, method=method, headers=HEADERS)
    if body is not None:
        request.body = json.dumps(body).encode()
    response = request.get_response(stack.app)
    return response.status_int, (response.json if response.body else None)


def _redfish_node(stack: Any, port: int, **fields: Any) -> str:
    status, body = _call(
        stack,
        'POST',
        '/v1/nodes',
        {
            'driver': 'redfish',
            'driver_info': {
                'redfish_address': f'http://127.0.0.1:{port}',
                'redfish_system_id': '/redfish/v1/Systems/1',
                'redfish_username': 'admin',
                'redfish_password': 'pw',
            },
            **fields,
        },
    )
    assert status == 201, body
    return str(body['uuid'])


def _ipmi_node(stack: Any, port: int) -> str:
    status, body = _call(
        stack,
        'POST',
        '/v1/nodes',
        {
            'driver': 'ipmi',
            'driver_info': {
                'ipmi_address': '127.0.0.1',
                'ipmi_port': port,
                'ipmi_username': 'admin',
                'ipmi_password': 'pw',
            },
        },
    )
    assert status == 201, body
    return str(body['uuid'])


def _power_on(stack: Any, uuid: str) -> None:
    status, body = _call(
        stack, 'PUT', f'/v1/nodes/{uuid}/states/power', {'target': 'power on'}
    )
    assert status == 202, body


def _timed_stop(stack: Any) -> float:
    """Stop the conductor (once: not again at the stack's end)."""
    conductor = stack.conductor
    stack._cleanups.remove(conductor.stop)
    started = time.monotonic()
    conductor.stop()
    return time.monotonic() - started


def _node(stack: Any, uuid: str) -> dict[str, Any]:
    return dict(_call(stack, 'GET', f'/v1/nodes/{uuid}')[1])


def _wait_for(check: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f'waited {timeout} s for {what}'
        time.sleep(0.05)


def test_a_stop_ends_the_retries_of_a_refused_redfish_bmc(stack, caplog):
    caplog.set_level(logging.WARNING, logger='sushy')
    uuid = _redfish_node(stack, _closed_port())
    _power_on(stack, uuid)
    # sushy's own repeat of the refused request: the call is retrying.
    _wait_for(
        lambda: 'Transient error during Redfish request' in caplog.text,
        30,
        'the first refused request',
    )
    assert _timed_stop(stack) < STOP_BOUND
    node = _node(stack, uuid)
    assert node['target_power_state'] is None, node
    assert 'The conductor is stopping' in node['last_error'], node


def test_a_stop_ends_a_redfish_request_the_bmc_never_answers(stack):
    bmc = SilentTCP()
    try:
        uuid = _redfish_node(stack, bmc.port)
        _power_on(stack, uuid)
        assert bmc.accepted.wait(30), 'the BMC was never called'
        # The request now waits for an answer ([redfish]read_timeout).
        assert _timed_stop(stack) < STOP_BOUND
    finally:
        bmc.close()
    assert 'The conductor is stopping' in _node(stack, uuid)['last_error']


def test_a_stop_ends_the_retries_of_a_silent_ipmi_bmc(stack):
    bmc = SilentUDP()
    try:
        uuid = _ipmi_node(stack, bmc.port)
        _power_on(stack, uuid)
        assert bmc.received.wait(30), 'the BMC was never called'
        assert _timed_stop(stack) < STOP_BOUND
    finally:
        bmc.close()
    assert 'The conductor is stopping' in _node(stack, uuid)['last_error']


def test_a_stop_while_cleaning_waits_for_the_bmc_fails_no_node(stack, caplog):
    """The agent's boot for cleaning retries a refused BMC; the stop
    leaves the node in ``cleaning`` for the next owner, as a conductor
    that died there would: not failed, not in maintenance."""
    caplog.set_level(logging.WARNING, logger='sushy')
    uuid = _redfish_node(stack, _closed_port(), deploy_interface='agent')
    db_nodes.node_update(
        lite_context.get_admin_context(),
        uuid,
        {'provision_state': 'manageable'},
    )
    status, body = _call(
        stack,
        'PUT',
        f'/v1/nodes/{uuid}/states/provision',
        {'target': 'provide'},
    )
    assert status == 202, body
    _wait_for(
        lambda: 'Transient error during Redfish request' in caplog.text,
        30,
        'the boot for cleaning to call the BMC',
    )
    assert _timed_stop(stack) < STOP_BOUND
    node = _node(stack, uuid)
    assert (
        node['provision_state'],
        node['maintenance'],
        node['fault'],
        node['reservation'],
    ) == ('cleaning', False, None, None), node
    assert 'interrupted' in caplog.text
