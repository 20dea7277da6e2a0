"""The ``openstack baremetal ...`` runner of the test_clients* modules
(their ``endpoint`` fixture is in conftest.py)."""

import json
import os
from pathlib import Path
import subprocess
import sys
from typing import Any

OPENSTACK = Path(sys.executable).parent / 'openstack'


def cli(endpoint: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``openstack baremetal ARGS`` without credentials (noauth)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith('OS_')}
    return subprocess.run(
        [str(OPENSTACK), '--os-auth-type', 'none', '--os-endpoint', endpoint,
         'baremetal', *args], capture_output=True, text=True, env=env,
        timeout=120)


def cli_json(endpoint: str, *args: str) -> Any:
    """``cli`` with ``-f json``, which must succeed; its parsed output."""
    done = cli(endpoint, *args, '-f', 'json')
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
