"""ironic-lite-agent's hardware manager and command API, in process, on
real disk image files (no conductor)."""

import json
from pathlib import Path
import time

import pytest
import webob

from ironic_lite.agent import api
from ironic_lite.agent import commands
from ironic_lite.agent import disks

MIB = disks.MIB
SIZE = 8 * MIB
TOKEN = 'agent-token'


def _disk(path: Path, size: int = SIZE) -> Path:
    """A disk file with a protective MBR, a GPT header (LBA 1) and its
    backup (last LBA), an ext4 superblock magic (1080), an XFS magic (at
    1 MiB - 512: inside the first MiB) and data in the middle."""
    with path.open('wb') as handle:
        handle.truncate(size)
        handle.seek(510)
        handle.write(b'\x55\xaa')
        handle.seek(512)
        handle.write(b'EFI PART')
        handle.seek(1080)
        handle.write(b'\x53\xef')
        handle.seek(MIB - 512)
        handle.write(b'XFSB')
        handle.seek(size // 2)
        handle.write(b'precious data' * 100)
        handle.seek(size - 512)
        handle.write(b'EFI PART')
    return path


def _read(path: Path, offset: int, length: int) -> bytes:
    with path.open('rb') as handle:
        handle.seek(offset)
        return handle.read(length)


def test_erase_metadata_wipes_signatures_and_keeps_data(tmp_path):
    disk = _disk(tmp_path / 'sda.img')
    disks.erase_metadata(disk)
    assert _read(disk, 0, MIB) == bytes(MIB)
    assert _read(disk, SIZE - MIB, MIB) == bytes(MIB)
    assert _read(disk, SIZE // 2, 13) == b'precious data'
    assert disk.stat().st_size == SIZE


def test_erase_metadata_reaches_far_btrfs_mirror(tmp_path):
    disk = tmp_path / 'big.img'
    size = 80 * MIB
    with disk.open('wb') as handle:
        handle.truncate(size)
        handle.seek(64 * MIB + 0x40)
        handle.write(b'_BHRfS_M')
        handle.seek(40 * MIB)
        handle.write(b'data')
    disks.erase_metadata(disk)
    assert _read(disk, 64 * MIB + 0x40, 8) == bytes(8)
    assert _read(disk, 40 * MIB, 4) == b'data'


def test_erase_overwrites_every_byte_and_reports_progress(tmp_path):
    disk = _disk(tmp_path / 'sda.img', 3 * MIB + 100)
    seen = []
    result = disks.erase(
        [disk], 1, True, lambda d, t: seen.append((d, t)), lambda: False
    )
    assert _read(disk, 0, 3 * MIB + 100) == bytes(3 * MIB + 100)
    assert result['passes'] == 2
    assert seen[-1] == (2 * (3 * MIB + 100), 2 * (3 * MIB + 100))


def test_erase_stops_when_asked(tmp_path):
    disk = _disk(tmp_path / 'sda.img')
    with pytest.raises(InterruptedError):
        disks.erase([disk], 0, True, lambda d, t: None, lambda: True)


def _app(tmp_path, files):
    runner = commands.CommandRunner(files, 0, True)
    return api.AgentAPI(runner, lambda: TOKEN), runner


def _call(app, method, path, body=None):
    req = webob.Request.blank(path, method=method)
    if body is not None:
        req.body = json.dumps(body).encode()
    res = req.get_response(app)
    return res.status_int, json.loads(res.body)


def test_commands_need_the_token(tmp_path):
    app, _runner = _app(tmp_path, [])
    status, body = _call(app, 'GET', '/v1/commands/')
    assert (status, body) == (
        401,
        {'faultcode': 'Client', 'faultstring': 'Token invalid.'},
    )
    status, body = _call(app, 'GET', '/v1/commands/?agent_token=wrong')
    assert status == 401
    assert _call(app, 'GET', f'/v1/commands/?agent_token={TOKEN}') == (
        200,
        {'commands': []},
    )


def test_get_clean_steps_has_upstream_shape(tmp_path):
    app, _runner = _app(tmp_path, [])
    status, body = _call(
        app,
        'POST',
        f'/v1/commands/?wait=true&agent_token={TOKEN}',
        {'name': 'clean.get_clean_steps', 'params': {'node': {}, 'ports': []}},
    )
    assert status == 200
    assert body['command_name'] == 'get_clean_steps'
    assert body['command_status'] == 'SUCCEEDED'
    result = body['command_result']
    assert result['hardware_manager_version'] == {
        'generic_hardware_manager': '1.2'
    }
    steps = {
        s['step']: s for s in result['clean_steps']['GenericHardwareManager']
    }
    assert steps['erase_devices_metadata']['priority'] == 99
    assert steps['erase_devices']['priority'] == 10
    assert {s['interface'] for s in steps.values()} == {'deploy'}


def _wait_done(app, command_id):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        status, body = _call(
            app, 'GET', f'/v1/commands/{command_id}?agent_token={TOKEN}'
        )
        assert status == 200
        if body['command_status'] != 'RUNNING':
            return body
        time.sleep(0.05)
    raise AssertionError('command did not finish')


def test_execute_clean_step_runs_async_then_succeeds(tmp_path):
    disk = _disk(tmp_path / 'sda.img')
    app, _runner = _app(tmp_path, [disk])
    step = {
        'step': 'erase_devices',
        'interface': 'deploy',
        'priority': 10,
        'args': {},
    }
    status, body = _call(
        app,
        'POST',
        f'/v1/commands/?wait=false&agent_token={TOKEN}',
        {
            'name': 'clean.execute_clean_step',
            'params': {
                'step': step,
                'node': {},
                'ports': [],
                'clean_version': disks.versions(),
            },
        },
    )
    assert status == 200
    assert body['command_name'] == 'execute_clean_step'
    done = _wait_done(app, body['id'])
    assert done['command_status'] == 'SUCCEEDED', done
    assert done['command_result']['clean_step'] == step
    assert _read(disk, 0, SIZE) == bytes(SIZE)
    status, listing = _call(app, 'GET', f'/v1/commands/?agent_token={TOKEN}')
    assert [c['id'] for c in listing['commands']] == [body['id']]


def test_a_failing_step_reports_the_error(tmp_path):
    app, _runner = _app(tmp_path, [tmp_path / 'missing.img'])
    status, body = _call(
        app,
        'POST',
        f'/v1/commands/?agent_token={TOKEN}',
        {
            'name': 'clean.execute_clean_step',
            'params': {
                'step': {'step': 'erase_devices_metadata'},
                'node': {},
                'ports': [],
            },
        },
    )
    done = _wait_done(app, body['id'])
    assert done['command_status'] == 'FAILED'
    assert done['command_error']['type'] == 'CleaningError'
    assert 'missing.img' in done['command_error']['details']


def test_unknown_command_and_version_mismatch(tmp_path):
    app, _runner = _app(tmp_path, [])
    status, body = _call(
        app,
        'POST',
        f'/v1/commands/?agent_token={TOKEN}',
        {'name': 'standby.cache_image', 'params': {}},
    )
    assert status == 400 and 'Invalid command' in body['faultstring']
    status, body = _call(
        app,
        'POST',
        f'/v1/commands/?agent_token={TOKEN}',
        {
            'name': 'clean.execute_clean_step',
            'params': {
                'step': {'step': 'erase_devices'},
                'clean_version': {'generic_hardware_manager': '0.9'},
            },
        },
    )
    assert status == 200
    assert body['command_status'] == 'CLEAN_VERSION_MISMATCH'


def test_busy_agent_refuses_a_second_command(tmp_path):
    app, runner = _app(tmp_path, [])
    running = commands.CommandResult('execute_clean_step', {})
    runner.results.append(running)
    status, body = _call(
        app,
        'POST',
        f'/v1/commands/?agent_token={TOKEN}',
        {'name': 'clean.get_clean_steps', 'params': {}},
    )
    assert status == 409
    assert body['faultstring'].startswith('Agent is busy')


def test_the_status_message_says_how_far_the_running_command_is(tmp_path):
    _app_, runner = _app(tmp_path, [])
    assert runner.status_message() is None
    step = commands.CommandResult(
        'execute_clean_step', {'step': {'step': 'erase_devices'}}
    )
    runner.results.append(step)
    assert (
        runner.status_message() == 'execute_clean_step erase_devices: started'
    )
    step.result = {
        'progress': {'bytes_done': 3 * 1024 * 1024, 'bytes_total': 12 << 20}
    }
    assert runner.status_message() == (
        'execute_clean_step erase_devices: 3.0 MiB of 12.0 MiB (25%)'
    )
    step.finish({'clean_result': None})
    assert runner.status_message() is None

    image = commands.CommandResult(
        'prepare_image', {'image_info': {'id': 'abc'}}
    )
    runner.results.append(image)
    image.result = {
        'progress': {'bytes_done': 1536 * 1024, 'bytes_total': None}
    }
    assert (
        runner.status_message() == 'prepare_image of image abc: 1.5 MiB done'
    )
