"""State private to the service's user (real files, real SQLite)."""

import os
from pathlib import Path
import stat
import subprocess
import sys
import time

from lite_common import private


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_tighten_takes_off_group_and_other_bits(tmp_path, caplog):
    directory = tmp_path / 'state'
    directory.mkdir(mode=0o755)
    directory.chmod(0o755)
    secret = directory / 'ironic.sqlite'
    secret.write_text('x')
    secret.chmod(0o644)
    fine = directory / 'fine'
    fine.write_text('x')
    fine.chmod(0o600)
    changed = private.tighten(
        [directory, secret, fine, tmp_path / 'missing', None]
    )
    assert changed == [directory, secret]
    assert (_mode(directory), _mode(secret), _mode(fine)) == (
        0o700,
        0o600,
        0o600,
    )
    assert 'was open to other users (mode 644): now 600' in caplog.text


def test_sqlite_files_of_a_url():
    assert private.sqlite_files('sqlite:////var/lib/x/nova.sqlite') == [
        Path('/var/lib/x/nova.sqlite'),
        Path('/var/lib/x/nova.sqlite-wal'),
        Path('/var/lib/x/nova.sqlite-shm'),
        Path('/var/lib/x/nova.sqlite-journal'),
    ]
    assert private.sqlite_files('sqlite://') == []
    assert private.sqlite_files('mysql+pymysql://root@127.0.0.1/x') == []
    assert private.sqlite_files(None) == []


def test_a_database_and_its_wal_are_private_whatever_the_umask(tmp_path):
    """In a process started with umask 022, as a shell would."""
    script = (
        'import sqlite3, sys\n'
        'from lite_common import private\n'
        'private.restrict_umask()\n'
        'db = sqlite3.connect(sys.argv[1])\n'
        'db.execute("PRAGMA journal_mode=WAL")\n'
        'db.execute("CREATE TABLE t (x)")\n'
        'db.execute("INSERT INTO t VALUES (1)")\n'
        'db.commit()\n'
        'import pathlib; pathlib.Path(sys.argv[1] + ".dir").mkdir()\n'
        'input()\n'
    )
    path = tmp_path / 'ironic.sqlite'
    proc = subprocess.Popen(
        [sys.executable, '-c', script, str(path)],
        stdin=subprocess.PIPE,
        preexec_fn=lambda: os.umask(0o022),
    )
    try:
        deadline = time.monotonic() + 20
        while not Path(f'{path}.dir').exists():
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        files = [path, Path(f'{path}-wal'), Path(f'{path}-shm')]
        assert all(f.exists() for f in files)
        assert [_mode(f) for f in files] == [0o600] * 3
        assert _mode(Path(f'{path}.dir')) == 0o700
    finally:
        proc.communicate(b'\n', timeout=10)
