"""The admin guides' runnable examples, run as written against one
all-in-one (two compute hosts and the Bare Metal API), and
``stacklite-top`` against what they leave.

One all-in-one serves the whole module (see tools/run-tests.sh: a
module stays on one worker); the documents run in the order of
``DOCS``, each as one ``bash -e`` of its ``.. runnable`` blocks (see
:mod:`runnable`) in a directory where ``./stacklite-state`` is the
all-in-one's state directory, after ``PREAMBLE``: the README's
clouds.yaml, flavor and image.
"""

from pathlib import Path
import subprocess

import pytest

from nova_lite.tests.integration import allinone
from nova_lite.tests.integration import conftest
from nova_lite.tests.integration import runnable

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[3]
# The order matters: a host with servers cannot join a zone, so the
# aggregates run before the first server is created.
DOCS = (
    'doc/source/admin/services.rst',
    'doc/source/admin/aggregates-zones-server-groups.rst',
    'doc/source/admin/move-operations.rst',
    'doc/source/admin/cleaning.rst',
)
PREAMBLE = """
export OS_CLIENT_CONFIG_FILE=$PWD/stacklite-state/clouds.yaml
export OS_CLOUD=stacklite
openstack flavor create --vcpus 1 --ram 512 --disk 1 m1.small
head -c 1048576 /dev/urandom > cirros.img
openstack image create --disk-format raw --container-format bare \\
    --file cirros.img cirros
"""
EXPORTS = PREAMBLE.strip().splitlines()[:2]


@pytest.fixture(scope='module')
def aio(request, tmp_path_factory):
    workdir = tmp_path_factory.mktemp('docs')
    cloud = allinone.AllInOne(
        workdir / 'stacklite-state', workdir / 'aio.out', computes=2
    )
    conftest.register_cloud(request, cloud)
    cloud.start()
    try:
        proc = runnable.run_blocks([PREAMBLE], workdir, timeout=120)
        assert proc.returncode == 0, proc.stderr[-4000:]
        yield workdir
    finally:
        cloud.stop(timeout=60)


def test_the_extractor_reads_literal_and_console_blocks():
    text = '\n'.join(
        [
            '.. runnable',
            '',
            '::',
            '',
            '    a \\',
            '      b',
            '',
            'not marked::',
            '',
            '    c',
            '',
            '.. runnable',
            '',
            '.. code-block:: console',
            '',
            '   $ d',
            '   output',
            "   $ e '[1,",
            "     2]'",
            '   more output',
        ]
    )
    assert runnable.runnable_blocks(text) == ['a \\\n  b', "d\ne '[1,\n  2]'"]


@pytest.mark.parametrize('doc', DOCS)
def test_the_admin_guide_examples_run(aio, doc):
    blocks = runnable.runnable_blocks((ROOT / doc).read_text())
    assert blocks and all(blocks), f'{doc} has no runnable block'
    proc = runnable.run_blocks([*EXPORTS, *blocks], aio)
    assert proc.returncode == 0, (
        f'an example of {doc} failed:\n{proc.stderr[-4000:]}'
    )


def test_stacklite_top_once_shows_nodes_and_servers(aio):
    """After the guides ran: their node and servers, grouped."""
    env = runnable.venv_env()
    env.update(
        OS_CLIENT_CONFIG_FILE=str(aio / 'stacklite-state/clouds.yaml'),
        OS_CLOUD='stacklite',
    )
    proc = subprocess.run(
        ['stacklite-top', '--once'],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert 'unavailable' not in out, out
    assert 'Bare metal nodes (1)' in out, out
    assert '\n  manageable (1)\n    bm-clean' in out, out
    assert 'Servers (1)' in out and 'vm-move' in out, out
    assert '\x1b' not in out, 'no screen clearing in --once'
