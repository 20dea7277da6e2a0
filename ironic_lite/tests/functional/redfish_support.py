"""What the redfish functional tests share: the emulator and the
in-process control plane (one of each per test module), and calls of
the Bare Metal API."""

import functools
import http.server
import json
from pathlib import Path
import threading
import time
from typing import Any

import webob

from ironic_lite.tests import redfish_emulator
from ironic_lite.tests.functional import fixtures

HEADERS = {
    'X-OpenStack-Ironic-API-Version': 'latest',
    'Content-Type': 'application/json',
}
REDFISH_OPTIONS = {
    'redfish.power_state_change_timeout': 40,
    'redfish.power_state_poll_interval': 0.2,
    'redfish.connection_attempts': 2,
    'redfish.connection_retry_interval': 0,
    'redfish.read_timeout': 3,
    'redfish.server_side_retries': 1,
    'redfish.server_side_retries_delay': 0,
}


def start_emulator(
    workdir: Path, count: int = 2, plus: bool = False
) -> redfish_emulator.Emulator:
    return redfish_emulator.Emulator(
        workdir,
        [redfish_emulator.system(n + 1) for n in range(count)],
        plus=plus,
    ).start()


def start_stack(**interfaces: list[str]) -> fixtures.Stack:
    """The control plane with the redfish hardware type and, per
    interface type given, these enabled interfaces; clean steps polled
    every second."""
    overrides: dict[str, Any] = {
        'enabled_hardware_types': ['fake-hardware', 'redfish'],
        'enabled_power_interfaces': ['fake', 'redfish'],
        'enabled_management_interfaces': ['fake', 'redfish'],
        'conductor.clean_step_poll_interval': 1,
        'conductor.clean_callback_timeout': 120,
        **REDFISH_OPTIONS,
    }
    for kind, names in interfaces.items():
        overrides[f'enabled_{kind}_interfaces'] = names
    return fixtures.Stack(overrides=overrides).start()


def call(stack: Any, method: str, path: str, body: Any = None) -> Any:
    request = webob.Request.blank(path, method=method, headers=HEADERS)
    if body is not None:
        request.body = json.dumps(body).encode()
    response = request.get_response(stack.app)
    return response.status_int, (response.json if response.body else None)


def create_node(
    stack: Any,
    emulator: Any,
    index: int,
    interfaces: dict[str, str] | None = None,
    **info: Any,
) -> dict[str, Any]:
    status, node = call(
        stack,
        'POST',
        '/v1/nodes',
        {
            'driver': 'redfish',
            **(interfaces or {}),
            'driver_info': {
                'redfish_address': emulator.address,
                'redfish_system_id': emulator.system_path(index),
                'redfish_username': 'admin',
                'redfish_password': 's3cret',
                'redfish_verify_ca': 'false',
                **info,
            },
        },
    )
    assert status == 201, node
    return dict(node)


def wait_for(
    what: str, check: Any, timeout: float = 60, interval: float = 0.2
) -> Any:
    """``check()`` until it answers something true, for at most
    ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        assert time.monotonic() < deadline, f'timed out waiting: {what}'
        time.sleep(interval)


def get_node(stack: Any, uuid: str) -> dict[str, Any]:
    return dict(call(stack, 'GET', f'/v1/nodes/{uuid}')[1])


def provision(stack: Any, uuid: str, target: str, **extra: Any) -> None:
    status, body = call(
        stack,
        'PUT',
        f'/v1/nodes/{uuid}/states/provision',
        {'target': target, **extra},
    )
    assert status == 202, body


def wait_provision(
    stack: Any, uuid: str, wanted: str, timeout: float = 120
) -> dict[str, Any]:
    """The node once it is in a stable state; it must be ``wanted``."""

    def stable() -> dict[str, Any] | None:
        node = get_node(stack, uuid)
        return None if node['target_provision_state'] else node

    node = wait_for(f'node {uuid} to settle', stable, timeout)
    assert node['provision_state'] == wanted, node
    return dict(node)


def clean(
    stack: Any,
    uuid: str,
    steps: list[dict[str, Any]],
    wanted: str = 'manageable',
) -> dict[str, Any]:
    """Manual cleaning with ``steps``; the node once it ended."""
    provision(stack, uuid, 'clean', clean_steps=steps)
    return wait_provision(stack, uuid, wanted, timeout=150)


def manageable(
    stack: Any,
    emulator: Any,
    index: int,
    interfaces: dict[str, str] | None = None,
) -> dict[str, Any]:
    node = create_node(stack, emulator, index, interfaces)
    provision(stack, node['uuid'], 'manage')
    return wait_provision(stack, node['uuid'], 'manageable')


class ImageServer:
    """A small HTTP server on 127.0.0.1 serving the files of a
    directory (the images virtual media is given)."""

    def __init__(self, directory: Path) -> None:
        handler = functools.partial(
            http.server.SimpleHTTPRequestHandler, directory=str(directory)
        )
        self.server = http.server.ThreadingHTTPServer(
            ('127.0.0.1', 0), handler
        )
        self.thread = threading.Thread(
            target=self.server.serve_forever, daemon=True
        )
        self.thread.start()

    def url(self, name: str) -> str:
        return f'http://127.0.0.1:{self.server.server_address[1]}/{name}'

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)
