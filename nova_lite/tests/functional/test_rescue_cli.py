"""The real ``openstack`` CLI against nova-lite-api on its server (fake
compute agents): ``server rescue`` / ``unrescue`` at 2.89, ``server
volume list`` (no volumes: an empty list), ``hypervisor show`` at 2.88
(``uptime`` in the show), ``server event list`` and ``console log
show``."""

from collections.abc import Iterator
import json
import os
from pathlib import Path
import subprocess
import sys
from typing import Any

import pytest

from lite_common.tests import hostile
from lite_common.wsgi import server
from nova_lite.api import errors
from nova_lite.tests import stack as nova_stack
from nova_lite.tests.functional.test_evacuate import Client
from nova_lite.tests.functional.test_evacuate import _image

OPENSTACK = Path(sys.executable).parent / 'openstack'


@pytest.fixture
def served() -> Iterator[tuple[Client, str]]:
    stack = nova_stack.Stack().start()
    try:
        client = Client(stack)
        client.ok(
            'POST',
            '/flavors',
            {
                'flavor': {
                    'name': 'small',
                    'id': 'f1',
                    'vcpus': 1,
                    'ram': 64,
                    'disk': 1,
                }
            },
        )
        client.image = _image(stack)
        with hostile.serving(
            stack.app, server.Settings(threads=4), errors.compute_error
        ) as port:
            yield client, f'http://127.0.0.1:{port}/v2.1'
    finally:
        stack.stop()


def _cli(endpoint: str, version: str, *args: str) -> Any:
    env = {k: v for k, v in os.environ.items() if not k.startswith('OS_')}
    done = subprocess.run(
        [
            str(OPENSTACK),
            '--os-auth-type',
            'none',
            '--os-endpoint',
            endpoint,
            '--os-compute-api-version',
            version,
            *args,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, (args, done.stderr)
    return json.loads(done.stdout) if '-f' in args else done.stdout


def test_rescue_volume_list_and_hypervisor_show(served):
    client, endpoint = served
    uuid = client.boot('cli-rescue')['id']
    _cli(endpoint, '2.89', 'server', 'rescue', '--password', 'pw', uuid)
    client.wait(lambda: client.server(uuid)['status'] == 'RESCUE', 'rescued')
    _cli(endpoint, '2.89', 'server', 'unrescue', uuid)
    client.wait(lambda: client.server(uuid)['status'] == 'ACTIVE', 'unrescued')
    assert (
        _cli(endpoint, '2.89', 'server', 'volume', 'list', uuid, '-f', 'json')
        == []
    )
    events = _cli(
        endpoint, '2.89', 'server', 'event', 'list', uuid, '-f', 'json'
    )
    assert [e['Action'] for e in events] == ['unrescue', 'rescue', 'create']
    shown = _cli(
        endpoint, '2.88', 'hypervisor', 'show', 'compute-1', '-f', 'json'
    )
    assert shown['hypervisor_type'] == 'fake'
    assert shown['uptime'], shown
    assert 'vcpus' not in shown and 'running_vms' not in shown, shown
    # The fake driver's console log.
    assert _cli(endpoint, '2.89', 'console', 'log', 'show', uuid) == (
        'FAKE CONSOLE OUTPUT\nANOTHER\nLAST LINE\n'
    )
    assert (
        _cli(endpoint, '2.89', 'console', 'log', 'show', '--lines', '1', uuid)
        == 'LAST LINE\n'
    )
