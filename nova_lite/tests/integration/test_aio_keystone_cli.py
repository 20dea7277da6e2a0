"""The all-in-one with Keystone (its default): the daily CLI commands of
doc/source/user/cli.rst, each row of its table run as written (they
broke under http_basic, which gives clients no project and no
catalog), and what they show."""

from pathlib import Path
import re

import pytest

from nova_lite.tests.integration import allinone
from nova_lite.tests.integration import runnable

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / 'doc/source/user/cli.rst'
EXPORTS = [
    'export OS_CLIENT_CONFIG_FILE=$PWD/stacklite-state/clouds.yaml',
    'export OS_CLOUD=stacklite',
]


def table_commands(text: str) -> list[str]:
    """The first column of the document's table (its header aside)."""
    rows = re.findall(r'^   \* - ``(.+)``$', text, flags=re.MULTILINE)
    return rows


@pytest.fixture(scope='module')
def aio(request, tmp_path_factory):
    with allinone.running(
        request,
        tmp_path_factory,
        'aio-keystone',
        computes=1,
        state='stacklite-state',
    ) as cloud:
        yield cloud


def test_the_table_lists_the_daily_commands():
    commands = table_commands(DOC.read_text())
    for expected in (
        'openstack quota show',
        'openstack availability zone list',
        'openstack usage show',
        'openstack limits show --absolute',
    ):
        assert expected in commands


def test_every_command_of_the_table_runs_as_written(aio):
    """In the table's order (the first rows create what later ones
    show), each in a shell of its own; all rows are run and the
    failures reported together."""
    failed = []
    for command in table_commands(DOC.read_text()):
        proc = runnable.run_blocks(
            [*EXPORTS, command], aio.state_dir.parent, timeout=180
        )
        if proc.returncode != 0:
            failed.append(f'{command}\n{proc.stderr[-1500:]}')
    assert not failed, '\n\n'.join(failed)


def test_clouds_yaml_uses_password_auth_against_keystone(aio):
    token = aio.openstack('token', 'issue')
    project = aio.openstack('project', 'show', 'admin')
    assert token['project_id'] == project['id']
    services = {row['Type'] for row in aio.openstack('catalog', 'list')}
    assert {'identity', 'compute', 'image', 'baremetal'} <= services


def test_demo_sees_its_own_project_only(aio):
    """After the table: admin's servers (vm, vm2) are not demo's."""
    names = {row['Name'] for row in aio.openstack('server', 'list')}
    assert {'vm', 'vm2'} <= names
    assert aio.openstack('server', 'list', cloud='stacklite-demo') == []
    assert aio.openstack('server', 'list', '--project', 'demo') == []


def test_nodes_are_owned_by_project_or_system(aio):
    """bm-1 (the table's) belongs to project admin, which created it;
    a node the system administrator creates belongs to no project and
    only system-scoped callers see it."""
    aio.openstack(
        'baremetal',
        'node',
        'create',
        '--driver',
        'fake-hardware',
        '--name',
        'bm-system',
        cloud='stacklite-system',
    )

    def names(cloud: str) -> set[str]:
        return {
            row['name']
            for row in aio.openstack(
                'baremetal', 'node', 'list', '--fields', 'name', cloud=cloud
            )
        }

    assert names('stacklite-system') == {'bm-1', 'bm-system'}
    assert names('stacklite') == {'bm-1'}
    assert names('stacklite-demo') == set()
