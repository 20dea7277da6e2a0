"""ironic-lite-agent's rescue password file (rescue.finalize_rescue)."""

import os
from pathlib import Path
import stat

import bcrypt
import pytest

from ironic_lite.agent import rescue


def test_a_hashed_password_is_written_as_given(tmp_path: Path) -> None:
    path = tmp_path / 'ipa-rescue-config' / 'ipa-rescue-password'
    assert rescue.write_password(path, '$2b$12$abc', True) == path
    assert path.read_text() == '$2b$12$abc\n'
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700


def test_a_clear_password_is_hashed_before_it_is_written(
    tmp_path: Path,
) -> None:
    path = tmp_path / 'password'
    rescue.write_password(path, 'open sesame', False)
    written = path.read_text().strip()
    assert 'sesame' not in written
    assert bcrypt.checkpw(b'open sesame', written.encode())


@pytest.mark.parametrize('password', [None, '', 42])
def test_no_password_is_refused(tmp_path: Path, password: object) -> None:
    with pytest.raises(rescue.RescueError, match='rescue_password'):
        rescue.write_password(tmp_path / 'p', password, True)


def test_an_unwritable_path_says_what_to_set(tmp_path: Path) -> None:
    blocker = tmp_path / 'file'
    blocker.write_text('')
    with pytest.raises(rescue.RescueError, match='--rescue_password_file'):
        rescue.write_password(blocker / 'sub' / 'p', 'x', True)
