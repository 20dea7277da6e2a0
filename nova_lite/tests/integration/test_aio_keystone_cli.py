"""``stacklite-aio --identity keystone``: the daily CLI commands of issue
31 with the generated clouds.yaml, no endpoint override and no explicit
project (they broke under http_basic, which gives clients no project and
no catalog)."""

import os
from pathlib import Path
import subprocess
import sys

import devstack_support as support
import pytest

from nova_lite.tests.integration import allinone

pytestmark = pytest.mark.integration


@pytest.fixture(scope='module')
def aio(request, tmp_path_factory):
    with allinone.running(request, tmp_path_factory, 'aio-keystone',
                          computes=1,
                          extra_args=(
            '--identity', 'keystone',
            '--identity-port', str(support.free_port()))) as cloud:
        yield cloud


def test_clouds_yaml_uses_password_auth_against_keystone(aio):
    token = aio.openstack('token', 'issue')
    project = aio.openstack('project', 'show', 'admin')
    assert token['project_id'] == project['id']
    services = {row['Type'] for row in aio.openstack('catalog', 'list')}
    assert {'identity', 'compute', 'image', 'baremetal'} <= services


@pytest.mark.parametrize('command', [
    ('quota', 'show'),
    ('quota', 'show', 'demo'),
    ('availability', 'zone', 'list'),
    ('limits', 'show', '--absolute'),
    ('keypair', 'list', '--user', 'demo'),
    ('server', 'list', '--project', 'demo'),
])
def test_daily_commands_work_without_overrides(aio, command):
    aio.openstack(*command)


def test_a_server_boots_and_shows_in_usage(aio):
    aio.openstack('flavor', 'create', '--vcpus', '1', '--ram', '64',
                  '--disk', '1', 'tiny')
    aio.openstack('image', 'create', '--disk-format', 'raw',
                  '--container-format', 'bare', 'img')
    server = aio.openstack('server', 'create', '--flavor', 'tiny',
                           '--image', 'img', '--no-network', '--wait', 'vm')
    assert server['status'] == 'ACTIVE'
    usage = aio.openstack('usage', 'show')
    assert [row['name'] for row in usage['Servers']] == ['vm']


def test_demo_sees_its_own_project_only(aio):
    assert aio.openstack('server', 'list', cloud='stacklite-demo') == []
    quota = aio.openstack('quota', 'show', cloud='stacklite-demo')
    assert quota


def test_baremetal_admin_is_system_scoped(aio):
    node = aio.openstack('baremetal', 'node', 'create', '--driver',
                         'fake-hardware', '--name', 'bm-1',
                         cloud='stacklite-system')
    names = [row['name'] for row in aio.openstack(
        'baremetal', 'node', 'list', cloud='stacklite-system')]
    assert names == ['bm-1'], node


def test_novaclient_with_the_openrc(aio):
    """``nova`` with the environment in ``openrc`` and nothing else of
    the caller's: password authentication, the catalog's endpoint."""
    env = {'PATH': os.environ['PATH'], 'HOME': str(aio.state_dir)}
    for line in (aio.state_dir / 'openrc').read_text().splitlines():
        key, _, value = line.removeprefix('export ').partition('=')
        env[key] = value
    nova = str(Path(sys.executable).with_name('nova'))
    proc = subprocess.run([nova, 'list'], env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert ' vm ' in proc.stdout, proc.stdout
