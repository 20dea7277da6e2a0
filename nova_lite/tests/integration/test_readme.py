"""The README's runnable examples, run as written against a fresh
all-in-one.

Blocks marked with a ``.. runnable`` comment before their literal block
(see :mod:`runnable`) are extracted in order and run by one ``bash -e``
in a directory where ``./stacklite-state`` is the all-in-one's state
directory, with the virtualenv's ``bin`` first on ``PATH`` (what
``. .venv/bin/activate`` does). A doc can no longer drift from the code.
"""

from pathlib import Path

import pytest

from nova_lite.tests.integration import allinone
from nova_lite.tests.integration import conftest
from nova_lite.tests.integration import runnable

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[3]


def test_the_readme_has_runnable_blocks():
    blocks = runnable.runnable_blocks((ROOT / 'README.rst').read_text())
    assert len(blocks) >= 3, blocks
    assert all(blocks), blocks


def test_the_readme_examples_run(tmp_path, request):
    cloud = allinone.AllInOne(
        tmp_path / 'stacklite-state', tmp_path / 'aio.out', computes=1
    )
    conftest.register_cloud(request, cloud)
    cloud.start()
    try:
        proc = runnable.run_blocks(
            runnable.runnable_blocks((ROOT / 'README.rst').read_text()),
            tmp_path,
        )
        assert proc.returncode == 0, (
            f'a README example failed:\n{proc.stderr[-4000:]}'
        )
    finally:
        cloud.stop(timeout=60)
