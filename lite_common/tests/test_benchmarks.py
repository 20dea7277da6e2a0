"""The benchmarks in benchmarks/ still run (tiny sizes, numbers ignored).

A benchmark asserts nothing about speed; this smoke test only catches a
script that no longer works against the current code: each must exit 0
and print its report lines.
"""

from pathlib import Path
import subprocess
import sys

import pytest

ROOT = Path(__file__).resolve().parents[2]

RUNS = [
    (
        'baremetal_cleaning.py',
        ['--nodes', '3', '--repeat', '2'],
        ['startup', 'create', 'provide', 'clean', 'GET detail'],
    ),
    (
        'compute_startup.py',
        ['--sizes', '5', '--evacuations', '2'],
        ['recovery'],
    ),
    ('boot_servers.py', ['--servers', '2', '--detail-at', '3'], ['ACTIVE']),
]


@pytest.mark.parametrize(
    'script,args,expected', RUNS, ids=[run[0] for run in RUNS]
)
def test_benchmark_runs(
    script: str, args: list[str], expected: list[str]
) -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / 'benchmarks' / script), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for word in expected:
        assert word in proc.stdout, proc.stdout
