"""The README's runnable examples, run as written against a fresh
all-in-one.

Blocks marked with a ``.. runnable`` comment before their literal block
are extracted in order and run by one ``bash -e`` in a directory where
``./stacklite-state`` is the all-in-one's state directory, with the
virtualenv's ``bin`` first on ``PATH`` (what ``. .venv/bin/activate``
does). A doc can no longer drift from the code.
"""

import os
from pathlib import Path
import subprocess
import sys

import pytest

from nova_lite.tests.integration import allinone
from nova_lite.tests.integration import conftest

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[3]
MARK = '.. runnable'


def runnable_blocks(text: str) -> list[str]:
    """The literal blocks that follow a ``.. runnable`` comment."""
    lines = text.splitlines()
    blocks, index = [], 0
    while index < len(lines):
        if lines[index].strip() != MARK:
            index += 1
            continue
        index += 1
        while index < len(lines) and not lines[index].rstrip().endswith(
                '::'):
            index += 1
        index += 1
        body = []
        while index < len(lines) and (not lines[index].strip()
                                      or lines[index].startswith('    ')):
            body.append(lines[index][4:])
            index += 1
        blocks.append('\n'.join(body).strip())
    return blocks


def test_the_readme_has_runnable_blocks():
    blocks = runnable_blocks((ROOT / 'README.rst').read_text())
    assert len(blocks) >= 3, blocks
    assert all(blocks), blocks


def test_the_readme_examples_run(tmp_path, request):
    cloud = allinone.AllInOne(tmp_path / 'stacklite-state',
                              tmp_path / 'aio.out', computes=1)
    conftest.register_cloud(request, cloud)
    cloud.start()
    try:
        script = '\n'.join(['set -ex', *runnable_blocks(
            (ROOT / 'README.rst').read_text())])
        env = {**os.environ,
               'PATH': f'{Path(sys.executable).parent}:{os.environ["PATH"]}'}
        for name in ('OS_CLOUD', 'OS_CLIENT_CONFIG_FILE'):
            env.pop(name, None)
        proc = subprocess.run(['bash', '-c', script], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, (
            f'a README example failed:\n{proc.stderr[-4000:]}')
    finally:
        cloud.stop(timeout=60)
