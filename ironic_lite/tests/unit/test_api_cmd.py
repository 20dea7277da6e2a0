"""ironic-lite-api, run as its own process as an operator would."""

import json
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from ironic_lite.api import microversion
from lite_common.tests import ports


def _get(url: str, timeout: float = 30.0) -> tuple[int, dict, dict]:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                return (
                    response.status,
                    dict(response.headers),
                    json.loads(response.read()),
                )
        except urllib.error.HTTPError as exc:
            return exc.code, dict(exc.headers), json.loads(exc.read())
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


@pytest.fixture
def config(tmp_path):
    db = tmp_path / 'ironic.sqlite'
    port = ports.free_port()
    conf = tmp_path / 'ironic-lite.conf'
    conf.write_text(
        '[DEFAULT]\ntransport_url = inproc://\nauth_strategy = noauth\n'
        f'[database]\nconnection = sqlite:///{db}\nmax_retries = 0\n'
        f'[api]\nhost_ip = 127.0.0.1\nport = {port}\nthreads = 2\n'
    )
    env = {'PYTHONPATH': ':'.join(sys.path)}
    subprocess.run(
        [
            sys.executable,
            '-m',
            'ironic_lite.cmd.dbsync',
            '--config-file',
            str(conf),
        ],
        check=True,
        env=env,
        capture_output=True,
        timeout=120,
    )
    return conf, port, env


def test_serves_until_sigterm(config) -> None:
    conf, port, env = config
    proc = subprocess.Popen(
        [
            sys.executable,
            '-m',
            'ironic_lite.cmd.api',
            '--config-file',
            str(conf),
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        status, headers, body = _get(f'http://127.0.0.1:{port}/')
        assert status == 200
        # A real API with the default configuration: the complete
        # versions only.
        assert body['default_version']['version'] == (
            microversion.COMPLETE_VERSION
        )
        status, headers, body = _get(f'http://127.0.0.1:{port}/v1/nodes')
        assert status == 200 and body == {'nodes': []}
        assert headers['X-OpenStack-Ironic-API-Version'] == '1.1'
        status, _, body = _get(f'http://127.0.0.1:{port}/v1/nodes/nope')
        assert status == 404
        assert 'Node nope could not be found.' in body['error_message']
    finally:
        proc.send_signal(signal.SIGTERM)
        output, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, output


def test_wsgi_module_builds_the_application(config) -> None:
    conf, _port, env = config
    code = (
        'from ironic_lite.api import wsgi\n'
        'import webob\n'
        'req = webob.Request.blank("/v1")\n'
        'print(req.get_response(wsgi.application).status_int)\n'
    )
    done = subprocess.run(
        [sys.executable, '-c', code],
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, 'IRONIC_LITE_CONFIG_FILES': str(conf)},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == '200'
