"""``stacklite-keystone``: upstream Keystone on SQLite, served, asked,
stopped; and refused when its configuration file is missing."""

import getpass
from pathlib import Path
import signal
import subprocess
import sys
import time
import urllib.request

from lite_common.tests import ports

BIN = Path(sys.executable).parent
HOST = '127.0.0.1'


def _get(url: str, timeout: float) -> bytes:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                return bytes(answer.read())
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def test_a_missing_configuration_file_exits_78_saying_so(tmp_path):
    proc = subprocess.run(
        [
            BIN / 'stacklite-keystone',
            '--config-file',
            str(tmp_path / 'keystone.conf'),
            '--port',
            '0',
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 78
    assert f'{tmp_path / "keystone.conf"} does not exist' in proc.stderr


def test_keystone_answers_and_stops_on_sigterm(tmp_path):
    conf = tmp_path / 'keystone.conf'
    conf.write_text(
        f'[database]\nconnection = sqlite:///{tmp_path}/keystone.db\n'
        f'[fernet_tokens]\nkey_repository = {tmp_path}/fernet\n'
        f'[credential]\nkey_repository = {tmp_path}/credential\n'
    )
    user = getpass.getuser()
    for command in (
        ['db_sync'],
        ['fernet_setup', '--keystone-user', user, '--keystone-group', user],
        [
            'credential_setup',
            '--keystone-user',
            user,
            '--keystone-group',
            user,
        ],
    ):
        subprocess.run(
            [BIN / 'keystone-manage', '--config-file', str(conf), *command],
            check=True,
            capture_output=True,
            timeout=300,
        )
    port = ports.free_port()
    log = open(tmp_path / 'keystone.log', 'wb')
    proc = subprocess.Popen(
        [
            BIN / 'stacklite-keystone',
            '--config-file',
            str(conf),
            '--host',
            HOST,
            '--port',
            str(port),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        assert b'"id": "v3' in _get(f'http://{HOST}:{port}/v3', 60)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0, (
            tmp_path / 'keystone.log'
        ).read_text()[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        log.close()
