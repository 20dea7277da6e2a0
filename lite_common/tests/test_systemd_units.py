"""The systemd units in etc/systemd/ verify and agree with setup.cfg and
the install guide (users, console scripts, ExecStart paths)."""

import configparser
from pathlib import Path
import re
import shutil
import subprocess
import sys

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNITS = sorted((ROOT / 'etc' / 'systemd').glob('*.service'))
GUIDE = '\n'.join(
    (ROOT / 'doc' / 'source' / 'install' / name).read_text()
    for name in ('index.rst', 'deployment.rst')
)
BIN = Path(sys.executable).parent


def _console_scripts():
    setup = configparser.ConfigParser()
    setup.read(ROOT / 'setup.cfg')
    lines = setup['entry_points']['console_scripts'].strip().splitlines()
    return {line.split('=')[0].strip() for line in lines}


def _exec_start(unit):
    return re.search(r'^ExecStart=(\S+)', unit.read_text(), re.M).group(1)


@pytest.mark.parametrize('unit', UNITS, ids=[u.name for u in UNITS])
def test_unit_runs_an_installed_console_script_as_its_user(unit):
    command = _exec_start(unit)
    assert command.startswith('/usr/bin/')
    assert Path(command).name in _console_scripts()
    user = re.search(r'^User=(\S+)', unit.read_text(), re.M).group(1)
    # The guide's accounts block creates the users its settings name.
    assert 'useradd --system --user-group' in GUIDE
    assert f'_USER:={user}}}' in GUIDE, user


def test_guide_names_every_console_script():
    missing = sorted(
        name for name in _console_scripts() if f'``{name}``' not in GUIDE
    )
    assert missing == []


@pytest.mark.skipif(
    shutil.which('systemd-analyze') is None,
    reason='systemd-analyze is not installed here',
)
@pytest.mark.parametrize('unit', UNITS, ids=[u.name for u in UNITS])
def test_systemd_analyze_verify(unit, tmp_path):
    """ExecStart points at this environment's script (systemd checks
    that it is executable): the rest of the unit is verified as is."""
    command = _exec_start(unit)
    copy = tmp_path / unit.name
    copy.write_text(
        unit.read_text().replace(command, str(BIN / Path(command).name))
    )
    proc = subprocess.run(
        ['systemd-analyze', 'verify', '--man=no', str(copy)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert unit.name not in proc.stderr, proc.stderr
