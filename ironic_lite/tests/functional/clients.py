"""The ``openstack baremetal ...`` runner of the test_clients* modules
(their ``endpoint`` fixture is in conftest.py).

Each command runs in a fork of a process that imported the CLI once
(tools/openstack_fork.py: the same entry point, arguments, environment
and exit status, without its second of imports);
``STACKLITE_CLI_FORK=0`` runs the ``openstack`` executable instead.
"""

import importlib
import json
import os
from pathlib import Path
import subprocess
import sys
from typing import Any

from lite_common.tests import integration

#: tools/openstack_fork.py (tools/ is on sys.path once ``integration``
#: is imported).
openstack_fork = importlib.import_module('openstack_fork')
assert integration.TOOLS.is_dir()

OPENSTACK = Path(sys.executable).parent / 'openstack'


def cli(endpoint: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``openstack baremetal ARGS`` without credentials (noauth)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith('OS_')}
    argv = [
        str(OPENSTACK),
        '--os-auth-type',
        'none',
        '--os-endpoint',
        endpoint,
        'baremetal',
        *args,
    ]
    if openstack_fork.enabled():
        return openstack_fork.run(argv, env, 120)
    return subprocess.run(
        argv, capture_output=True, text=True, env=env, timeout=120
    )


def cli_json(endpoint: str, *args: str) -> Any:
    """``cli`` with ``-f json``, which must succeed; its parsed output."""
    done = cli(endpoint, *args, '-f', 'json')
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
