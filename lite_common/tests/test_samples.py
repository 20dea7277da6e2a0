"""The sample configuration and policy files in etc/ are up to date.

They are generated (``tox -e genconfig``, ``tox -e genpolicy``); a new
option or policy rule without a regenerated sample fails here, with the
command that fixes it.
"""

from pathlib import Path
import subprocess
import sys

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
SAMPLES = [
    (
        'oslo-config-generator',
        'etc/nova_lite/nova-lite-config-generator.conf',
        'etc/nova_lite/nova-lite.conf.sample',
    ),
    (
        'oslopolicy-sample-generator',
        'etc/nova_lite/nova-lite-policy-generator.conf',
        'etc/nova_lite/policy.yaml.sample',
    ),
    (
        'oslo-config-generator',
        'etc/ironic_lite/ironic-lite-config-generator.conf',
        'etc/ironic_lite/ironic-lite.conf.sample',
    ),
    (
        'oslopolicy-sample-generator',
        'etc/ironic_lite/ironic-lite-policy-generator.conf',
        'etc/ironic_lite/policy.yaml.sample',
    ),
    (
        'oslo-config-generator',
        'etc/ironic_lite/ironic-lite-agent-config-generator.conf',
        'etc/ironic_lite/ironic-lite-agent.conf.sample',
    ),
]


@pytest.mark.parametrize(
    'tool,config,sample',
    SAMPLES,
    ids=[s.split('/')[1] + '-' + Path(s).name for _t, _c, s in SAMPLES],
)
def test_sample_is_generated_and_current(tool, config, sample, tmp_path):
    out = tmp_path / 'sample'
    proc = subprocess.run(
        [
            str(BIN / tool),
            '--config-file',
            str(ROOT / config),
            '--output-file',
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    committed = (ROOT / sample).read_text() if (ROOT / sample).exists() else ''
    assert out.read_text() == committed, (
        f'{sample} is out of date: regenerate it with '
        f'"{tool} --config-file {config}" (tox -e genconfig / genpolicy)'
    )
