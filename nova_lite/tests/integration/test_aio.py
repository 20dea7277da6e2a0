"""The all-in-one (``stacklite-aio``, one process over SQLite and an
in-memory bus) through the same scenario as the devstack deployment."""

import os
from pathlib import Path
import stat
import subprocess
import sys

import pytest

from nova_lite.tests.integration import allinone
from nova_lite.tests.integration import conftest
from nova_lite.tests.integration import scenario

pytestmark = pytest.mark.integration


@pytest.fixture(scope='module')
def aio(request, tmp_path_factory):
    base = tmp_path_factory.mktemp('aio')
    cloud = allinone.AllInOne(base / 'state', base / 'aio.out', computes=2)
    conftest.register_cloud(request, cloud)
    # Started as a shell with a common umask would start it (another
    # test in this process may have changed it).
    umask = os.umask(0o022)
    try:
        cloud.start()
        os.umask(umask)
        yield cloud
    finally:
        code = cloud.stop(timeout=60)
    assert code == 0, (
        f'stacklite-aio did not exit 0 within 60 s of '
        f'SIGTERM (exit {code})\n{cloud.log_tails()}'
    )


def test_scenario(aio):
    scenario.run_scenario(aio)


def test_state_is_private_to_its_user(aio):
    """After the scenario (servers, disks, identity files, SQLite in WAL
    mode, the log), nothing under the state directory is open to other
    users, although it was started with umask 022."""
    paths = [aio.state_dir, *aio.state_dir.rglob('*')]
    names = {p.name for p in paths}
    assert {'nova.sqlite', 'ironic.sqlite', 'stacklite.log'} <= names
    assert any(name.endswith('-wal') for name in names)
    open_to_others = {
        str(p): oct(stat.S_IMODE(p.lstat().st_mode))
        for p in paths
        if not p.is_symlink() and p.lstat().st_mode & 0o077
    }
    assert open_to_others == {}


def test_openstacksdk(aio, monkeypatch):
    scenario.run_sdk_checks(aio, monkeypatch)


def test_novaclient_with_the_novarc(aio):
    """The ``nova`` command works with the environment in ``novarc``
    (and nothing else of the caller's)."""
    env = {'PATH': os.environ['PATH'], 'HOME': str(aio.state_dir)}
    for line in (aio.state_dir / 'novarc').read_text().splitlines():
        key, _, value = line.removeprefix('export ').partition('=')
        env[key] = value
    nova = str(Path(sys.executable).with_name('nova'))
    for args in (['flavor-list'], ['list', '--all-tenants'], ['service-list']):
        proc = subprocess.run(
            [nova, *args], env=env, capture_output=True, text=True, timeout=60
        )
        assert proc.returncode == 0, (args, proc.stderr)
    services = subprocess.run(
        [nova, 'service-list'],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert 'compute-1' in services.stdout, services.stdout


def test_baremetal_node_is_cleaned_to_available(aio):
    """The all-in-one runs ironic-lite-api and a conductor too."""
    created = aio.openstack(
        'baremetal',
        'node',
        'create',
        '--driver',
        'fake-hardware',
        '--name',
        'aio-bm-1',
    )
    assert created['provision_state'] == 'enroll'
    aio.openstack(
        'baremetal', 'node', 'manage', 'aio-bm-1', '--wait', '60', parse=False
    )
    aio.openstack(
        'baremetal', 'node', 'provide', 'aio-bm-1', '--wait', '60', parse=False
    )
    node = aio.openstack('baremetal', 'node', 'show', 'aio-bm-1')
    assert node['provision_state'] == 'available'
    assert node['driver_internal_info']['fake_steps_run'] == [
        'erase_devices_metadata',
        'verify_properties',
    ]


def test_a_port_in_use_ends_the_all_in_one_with_a_message(tmp_path):
    """Nothing is left half running when a server cannot listen, and the
    reason is on the terminal, not only in the log file."""
    import socket
    import subprocess

    import devstack_support as support

    with socket.socket() as taken:
        taken.bind(('127.0.0.1', 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [
                support.binary('stacklite-aio'),
                '--state-dir',
                str(tmp_path / 'state'),
                '--computes',
                '1',
                '--api-port',
                str(support.free_port()),
                '--identity-port',
                str(support.free_port()),
                '--baremetal-port',
                str(port),
                '--network-port',
                str(support.free_port()),
            ],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 1, done.stdout + done.stderr
    assert (
        f'ironic-lite-api cannot listen on 127.0.0.1:{port}' in done.stderr
    ), done.stderr
