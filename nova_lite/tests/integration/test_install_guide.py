"""The install guide (doc/source/install/deployment.rst), followed as
written: every ``.. runnable`` block, in order, in one ``bash -e``, as
root would in the source tree.

What the test changes is what the guide's first block says a site sets:
the controller is 127.0.0.1 on free ports, configuration and state go
to a scratch directory, the databases, RabbitMQ users and virtual hosts
get names of their own (dropped afterwards), and the services run as the
user that runs the test. ``systemctl`` is :mod:`systemctl_standin`,
which starts each unit's ``ExecStart=`` line, so the daemons run from
the units the guide installed. The guide's Keystone, MariaDB and
RabbitMQ steps, its configuration files and clouds.yaml are the ones
used; the guide itself boots a server and provides a bare metal node,
and fails (``set -e``) when either does not end as it says.
"""

import getpass
import os
from pathlib import Path
import secrets
import signal
import sys
import time

import devstack_support as support  # tools/ is on sys.path
import pytest

from nova_lite.tests.integration import conftest
from nova_lite.tests.integration import runnable

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[3]
GUIDE = ROOT / 'doc' / 'source' / 'install' / 'deployment.rst'
STANDIN = Path(__file__).with_name('systemctl_standin.py')
UNITS = (
    'stacklite-keystone',
    'nova-lite-api',
    'nova-lite-conductor',
    'nova-lite-compute',
    'ironic-lite-api',
    'ironic-lite-conductor',
    'neutron-lite-server',
)


class Site:
    """The guide's settings for this run, and what it leaves behind."""

    def __init__(self, tmp: Path) -> None:
        suffix = secrets.token_hex(4)
        user = getpass.getuser()
        self.tmp = tmp
        self.run_dir = tmp / 'units-run'
        self.databases = {
            name: f'{name}_{suffix}'
            for name in ('keystone', 'nova', 'ironic', 'neutron')
        }
        self.vhosts = {
            name: f'{name}_mq_{suffix}' for name in ('nova', 'ironic')
        }
        bin_dir = tmp / 'bin'
        bin_dir.mkdir()
        systemctl = bin_dir / 'systemctl'
        systemctl.write_text(
            f'#!/bin/sh\nexec {sys.executable} {STANDIN} "$@"\n'
        )
        systemctl.chmod(0o755)
        self.env = {
            'CONTROLLER': support.LOCALHOST,
            'LISTEN_IP': support.LOCALHOST,
            'DB_HOST': support.LOCALHOST,
            'RABBIT_HOST': support.LOCALHOST,
            'KEYSTONE_PORT': str(support.free_port()),
            'NOVA_API_PORT': str(support.free_port()),
            'IRONIC_API_PORT': str(support.free_port()),
            'NEUTRON_API_PORT': str(support.free_port()),
            'PREFIX': sys.prefix,
            'ETC': str(tmp / 'etc'),
            'VAR_LIB': str(tmp / 'var' / 'lib'),
            'UNIT_DIR': str(tmp / 'units'),
            'KEYSTONE_DB': self.databases['keystone'],
            'NOVA_DB': self.databases['nova'],
            'IRONIC_DB': self.databases['ironic'],
            'NEUTRON_DB': self.databases['neutron'],
            'NOVA_MQ': self.vhosts['nova'],
            'IRONIC_MQ': self.vhosts['ironic'],
            'KEYSTONE_USER': user,
            'NOVA_USER': user,
            'IRONIC_USER': user,
            'NEUTRON_USER': user,
            'STANDIN_RUN_DIR': str(self.run_dir),
            'PATH': f'{bin_dir}:{Path(sys.executable).parent}:'
            f'{os.environ["PATH"]}',
            # Not the test runner's home: a clouds.yaml there must not
            # be read, nor a cache written.
            'HOME': str(tmp / 'home'),
        }

    def log_tails(self, lines: int = 40) -> str:
        return ''.join(
            f'==> {log.name} <==\n{support.tail(log, lines)}\n'
            for log in sorted(self.run_dir.glob('*.log'))
        )

    def _file(self, unit: str, kind: str) -> str | None:
        try:
            return (self.run_dir / f'{unit}.service.{kind}').read_text()
        except FileNotFoundError:
            return None

    def stop(self, timeout: float = 60) -> dict[str, int | None]:
        """SIGTERM every unit's process that runs; the exit status of
        every unit started (None: SIGKILLed after ``timeout``)."""
        pids = {
            unit: int(text)
            for unit in UNITS
            if (text := self._file(unit, 'pid'))
        }
        for unit, pid in pids.items():
            if self._file(unit, 'status') is None:
                support.signal_pid(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        codes: dict[str, int | None] = {}
        for unit, pid in pids.items():
            while (status := self._file(unit, 'status')) is None:
                if time.monotonic() > deadline:
                    support.signal_pid(pid, signal.SIGKILL)
                    break
                time.sleep(0.2)
            codes[unit] = int(status) if status else None
        return codes

    def clean_up(self) -> None:
        for name in self.databases.values():
            support.drop_database('mysql', name)
            support._db_execute('mysql', f"DROP USER IF EXISTS '{name}'@'%'")
        for vhost in self.vhosts.values():
            support.delete_vhost(vhost)
            try:
                support._rabbitmqctl('delete_user', vhost)
            except RuntimeError:
                pass  # the guide did not get as far as creating it


def test_the_guide_starts_every_shipped_unit():
    shipped = {
        unit.stem for unit in (ROOT / 'etc' / 'systemd').glob('*.service')
    }
    assert shipped == set(UNITS)


def test_the_guide_has_runnable_blocks_for_every_step():
    blocks = runnable.runnable_blocks(GUIDE.read_text())
    text = '\n'.join(blocks)
    for step in (
        'mysql <<SQL',
        'rabbitmqctl add_vhost',
        'keystone db_sync',
        'keystone bootstrap',
        'openstack endpoint create',
        'systemctl enable --now stacklite-keystone',
        'nova-lite-manage',
        'ironic-lite-dbsync',
        'systemctl enable --now nova-lite-compute',
        'openstack server create',
        'openstack baremetal node provide',
        'neutron-lite-db-manage',
        'systemctl enable --now neutron-lite-server',
        'subnet create',
    ):
        assert step in text, step


def test_the_install_guide_runs(tmp_path, request):
    site = Site(tmp_path)
    conftest.register_cloud(request, site)
    try:
        proc = runnable.run_blocks(
            runnable.runnable_blocks(GUIDE.read_text()),
            ROOT,
            timeout=600,
            env=site.env,
        )
        assert proc.returncode == 0, (
            f'the install guide failed:\n{proc.stderr[-6000:]}\n'
            f'{site.log_tails()}'
        )
        codes = site.stop()
    finally:
        site.stop()
        site.clean_up()
    # A daemon that dies on SIGTERM with a traceback, or hangs, is as
    # much a failure of the guide's deployment as a failed command.
    bad = {unit: code for unit, code in codes.items() if code != 0}
    assert not bad, (
        f'units that did not stop cleanly: {bad}\n' + site.log_tails()
    )
