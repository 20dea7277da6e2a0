"""Cleaning with the ``agent`` deploy interface: the Bare Metal API and
the conductor in process (served on 127.0.0.1), ironic-lite-agent as a
separate process acting on disk image files."""

import json
from pathlib import Path
import subprocess
import sys
import time
from typing import Any

import pytest
import requests

from ironic_lite.tests.functional import fixtures
from lite_common.tests import hostile
from lite_common.wsgi import server

HEADERS = {'X-OpenStack-Ironic-API-Version': 'latest'}
MIB = 1024 * 1024
SIZE = 4 * MIB
#: Seconds a node waits in clean wait without a heartbeat.
CALLBACK_TIMEOUT = 8


@pytest.fixture(scope='module')
def api_url():
    stack = fixtures.Stack(
        overrides={
            'enabled_deploy_interfaces': ['fake', 'agent'],
            'conductor.clean_callback_timeout': CALLBACK_TIMEOUT,
            'conductor.clean_step_poll_interval': 1,
            'api.ramdisk_heartbeat_timeout': 2,
        }
    ).start()
    try:
        with hostile.serving(stack.app, server.Settings(threads=4)) as port:
            yield f'http://127.0.0.1:{port}'
    finally:
        stack.stop()


def _call(
    api_url: str, method: str, path: str, body: Any = None
) -> tuple[int, Any]:
    response = requests.request(
        method, api_url + path, headers=HEADERS, json=body, timeout=30
    )
    return response.status_code, (
        response.json() if response.content else None
    )


def _disk(path: Path) -> Path:
    with path.open('wb') as handle:
        handle.truncate(SIZE)
        handle.seek(512)
        handle.write(b'EFI PART')
        handle.seek(1080)
        handle.write(b'\x53\xef')
        handle.seek(SIZE // 2)
        handle.write(b'precious data')
        handle.seek(SIZE - 512)
        handle.write(b'EFI PART')
    return path


class Agent:
    """An ironic-lite-agent process."""

    def __init__(self, api_url: str, mac: str, disk: Path, log: Path) -> None:
        self.log = log
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
                '0.5',
                '--lookup_interval',
                '0.3',
                '--shred_random_overwrite_iterations',
                '0',
            ],
            stdout=self._out,
            stderr=subprocess.STDOUT,
        )

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self._out.close()


@pytest.fixture
def agents():
    started: list[Agent] = []
    yield started
    for agent in started:
        agent.kill()


def _node(api_url: str, mac: str) -> str:
    status, node = _call(
        api_url,
        'POST',
        '/v1/nodes',
        {'driver': 'fake-hardware', 'deploy_interface': 'agent'},
    )
    assert status == 201, node
    status, port = _call(
        api_url,
        'POST',
        '/v1/ports',
        {'node_uuid': node['uuid'], 'address': mac},
    )
    assert status == 201, port
    return node['uuid']


def _provision(api_url: str, uuid: str, target: str) -> None:
    status, body = _call(
        api_url,
        'PUT',
        f'/v1/nodes/{uuid}/states/provision',
        {'target': target},
    )
    assert status == 202, body


def _wait(
    api_url: str, uuid: str, check: Any, timeout: float = 60
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        node = _call(api_url, 'GET', f'/v1/nodes/{uuid}')[1]
        if check(node):
            return node
        assert time.monotonic() < deadline, json.dumps(node, default=str)
        time.sleep(0.1)


def _state(wanted: str) -> Any:
    return lambda node: node['provision_state'] == wanted


def _manageable(api_url: str, uuid: str) -> None:
    _provision(api_url, uuid, 'manage')
    _wait(api_url, uuid, _state('manageable'))


def _read(path: Path) -> bytes:
    return path.read_bytes()


def _steps_run(log: Path) -> list[str]:
    marker = 'Executing clean step '
    return [
        line.split(marker, 1)[1].strip()
        for line in log.read_text().splitlines()
        if marker in line
    ]


def test_agent_cleans_the_disks(api_url, agents, tmp_path):
    mac = '52:54:00:00:00:01'
    disk = _disk(tmp_path / 'sda.img')
    uuid = _node(api_url, mac)
    _manageable(api_url, uuid)
    _provision(api_url, uuid, 'provide')
    node = _wait(api_url, uuid, _state('clean wait'))
    assert node['power_state'] == 'power on'
    assert node['clean_step'] == {}
    agents.append(Agent(api_url, mac, disk, tmp_path / 'agent.log'))
    node = _wait(api_url, uuid, _state('available'))
    assert node['last_error'] is None
    assert node['power_state'] == 'power off'
    assert _read(disk) == bytes(SIZE)
    # Upstream's order (metadata 99, then the whole disk 10), each step
    # run once although the agent heartbeated while they ran.
    assert _steps_run(tmp_path / 'agent.log') == [
        'erase_devices_metadata',
        'erase_devices',
    ]
    history = _call(api_url, 'GET', f'/v1/nodes/{uuid}/history')[1]
    assert history is not None
    info = node['driver_internal_info']
    assert 'agent_secret_token' not in info
    assert 'agent_url' not in info
    assert 'clean_steps' not in info


def test_killed_agent_fails_at_the_timeout_then_recovers(
    api_url, agents, tmp_path
):
    mac = '52:54:00:00:00:02'
    disk = _disk(tmp_path / 'sdb.img')
    uuid = _node(api_url, mac)
    _manageable(api_url, uuid)
    _provision(api_url, uuid, 'provide')
    agent = Agent(api_url, mac, disk, tmp_path / 'agent1.log')
    agents.append(agent)
    _wait(
        api_url,
        uuid,
        lambda n: (
            n['provision_state'] == 'clean wait' and n['clean_step'] != {}
        ),
    )
    agent.kill()
    node = _wait(
        api_url, uuid, _state('clean failed'), timeout=CALLBACK_TIMEOUT + 30
    )
    error = node['last_error']
    assert 'Timeout reached while cleaning node' in error, error
    assert 'runs on the agent, which did not heartbeat within' in error
    assert f'{CALLBACK_TIMEOUT} seconds' in error
    assert 'deploy.erase_devices' in error
    # A step ran: in maintenance (upstream's rule, as above).
    assert (node['maintenance'], node['fault']) == (True, 'clean failure')
    status, body = _call(api_url, 'DELETE', f'/v1/nodes/{uuid}/maintenance')
    assert status == 202, body
    _manageable(api_url, uuid)
    _provision(api_url, uuid, 'provide')
    agents.append(Agent(api_url, mac, disk, tmp_path / 'agent2.log'))
    node = _wait(api_url, uuid, _state('available'))
    assert node['last_error'] is None
    assert _read(disk) == bytes(SIZE)


def test_abort_in_clean_wait(api_url, tmp_path):
    uuid = _node(api_url, '52:54:00:00:00:03')
    _manageable(api_url, uuid)
    _provision(api_url, uuid, 'provide')
    _wait(api_url, uuid, _state('clean wait'))
    _provision(api_url, uuid, 'abort')
    node = _wait(api_url, uuid, _state('clean failed'))
    assert 'aborted by request' in node['last_error']
    assert node['maintenance'] is False


def test_no_agent_fails_at_the_timeout(api_url, tmp_path):
    uuid = _node(api_url, '52:54:00:00:00:04')
    _manageable(api_url, uuid)
    _provision(api_url, uuid, 'provide')
    node = _wait(
        api_url, uuid, _state('clean failed'), timeout=CALLBACK_TIMEOUT + 30
    )
    assert 'its agent did not heartbeat within' in node['last_error']
    # No step ran: not in maintenance (upstream's rule, as below).
    assert (node['maintenance'], node['fault']) == (False, None)


def test_a_failing_agent_step_fails_the_node(api_url, agents, tmp_path):
    mac = '52:54:00:00:00:05'
    uuid = _node(api_url, mac)
    _manageable(api_url, uuid)
    _provision(api_url, uuid, 'provide')
    agents.append(
        Agent(
            api_url, mac, tmp_path / 'no-such-disk.img', tmp_path / 'agent.log'
        )
    )
    node = _wait(api_url, uuid, _state('clean failed'))
    error = node['last_error']
    assert error.startswith(
        'Clean step deploy.erase_devices_metadata '
        f'failed on node {uuid}: the agent reported: '
        'disk file(s) not found'
    ), error
    assert node['maintenance'] is True
    assert node['fault'] == 'clean failure'
    assert _steps_run(tmp_path / 'agent.log') == ['erase_devices_metadata']
