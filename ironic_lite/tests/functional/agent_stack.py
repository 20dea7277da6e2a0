"""An in-process Bare Metal API and conductor, and ironic-lite-agent
processes acting on disk files: what the agent cleaning and deploy
tests share."""

from collections.abc import Iterator
import contextlib
import json
from pathlib import Path
import subprocess
import sys
import time
from typing import Any

import requests

from ironic_lite.tests.functional import fixtures
from lite_common.tests import hostile
from lite_common.wsgi import server

HEADERS = {'X-OpenStack-Ironic-API-Version': 'latest'}
MIB = 1024 * 1024


@contextlib.contextmanager
def serving(overrides: dict[str, Any]) -> Iterator[str]:
    """The API's URL, the conductor in the same process."""
    stack = fixtures.Stack(overrides=overrides).start()
    try:
        with hostile.serving(stack.app, server.Settings(threads=4)) as port:
            yield f'http://127.0.0.1:{port}'
    finally:
        stack.stop()


def call(
    api_url: str, method: str, path: str, body: Any = None
) -> tuple[int, Any]:
    response = requests.request(
        method, api_url + path, headers=HEADERS, json=body, timeout=30
    )
    return response.status_code, (
        response.json() if response.content else None
    )


def make_disk(path: Path, size: int) -> Path:
    """A disk file with signatures and data that cleaning erases."""
    with path.open('wb') as handle:
        handle.truncate(size)
        handle.seek(512)
        handle.write(b'EFI PART')
        handle.seek(1080)
        handle.write(b'\x53\xef')
        handle.seek(size // 2)
        handle.write(b'precious data')
        handle.seek(size - 512)
        handle.write(b'EFI PART')
    return path


class Agent:
    """An ironic-lite-agent process."""

    def __init__(
        self,
        api_url: str,
        mac: str,
        disk: Path,
        log: Path,
        heartbeat: float = 0.5,
        extra_args: tuple[str, ...] = (),
    ) -> None:
        """``extra_args``: more of the agent's command line options."""
        self.log = log
        #: Where rescue.finalize_rescue writes the password's hash.
        self.rescue_password_file = disk.parent / 'rescue' / 'password'
        self._out = log.open('ab')
        self.proc = subprocess.Popen(
            [
                sys.executable,
                '-m',
                'ironic_lite.agent.main',
                '--api_url',
                api_url,
                '--mac_addresses',
                mac,
                '--disk_files',
                str(disk),
                '--listen_port',
                '0',
                '--heartbeat_interval',
                str(heartbeat),
                '--lookup_interval',
                '0.3',
                '--shred_random_overwrite_iterations',
                '0',
                '--rescue_password_file',
                str(self.rescue_password_file),
                *extra_args,
            ],
            stdout=self._out,
            stderr=subprocess.STDOUT,
        )

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self._out.close()


def create_node(api_url: str, mac: str, deploy: str = 'agent') -> str:
    """A fake-hardware node with the ``deploy`` interface and a port of
    ``mac``; its uuid."""
    status, node = call(
        api_url,
        'POST',
        '/v1/nodes',
        {'driver': 'fake-hardware', 'deploy_interface': deploy},
    )
    assert status == 201, node
    status, port = call(
        api_url,
        'POST',
        '/v1/ports',
        {'node_uuid': node['uuid'], 'address': mac},
    )
    assert status == 201, port
    return str(node['uuid'])


def provision(api_url: str, uuid: str, target: str, **body: Any) -> None:
    status, answer = call(
        api_url,
        'PUT',
        f'/v1/nodes/{uuid}/states/provision',
        {'target': target, **body},
    )
    assert status == 202, answer


def wait(
    api_url: str, uuid: str, check: Any, timeout: float = 60
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        node = call(api_url, 'GET', f'/v1/nodes/{uuid}')[1]
        if check(node):
            return dict(node)
        assert time.monotonic() < deadline, json.dumps(node, default=str)
        time.sleep(0.1)


def state(wanted: str) -> Any:
    return lambda node: node['provision_state'] == wanted


def settled(api_url: str, uuid: str, timeout: float = 60) -> dict[str, Any]:
    """The node once no provision action is under way."""
    return wait(
        api_url,
        uuid,
        lambda n: n['target_provision_state'] is None,
        timeout=timeout,
    )


def patch_node(
    api_url: str, uuid: str, op: str, path: str, value: Any
) -> None:
    status, body = call(
        api_url,
        'PATCH',
        f'/v1/nodes/{uuid}',
        [{'op': op, 'path': path, 'value': value}],
    )
    assert status == 200, body


def manageable(api_url: str, uuid: str) -> None:
    provision(api_url, uuid, 'manage')
    wait(api_url, uuid, state('manageable'))


def log_lines(log: Path, marker: str) -> list[str]:
    """What follows ``marker`` on each line of an agent's log."""
    return [
        line.split(marker, 1)[1].strip()
        for line in log.read_text().splitlines()
        if marker in line
    ]


def steps_run(log: Path) -> list[str]:
    return log_lines(log, 'Executing clean step ')
