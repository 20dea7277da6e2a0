"""The compute_id file: search, read, check and write (real files)."""

import os
from pathlib import Path
import uuid

from oslo_config import cfg
import pytest

from nova_lite import exception
from nova_lite.compute import identity

UUID_A = '4f5d7c2e-8b1a-4c3d-9e0f-1a2b3c4d5e6f'
UUID_B = '0b8e6f3a-2c4d-4e5f-8a9b-0c1d2e3f4a5b'


def _write(directory: Path, text: str | bytes) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / identity.FILENAME
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def test_search_dirs_config_files_dirs_then_state_path(tmp_path):
    etc, extra, conf_d = tmp_path / 'etc', tmp_path / 'x', tmp_path / 'd'
    for d in (etc, extra, conf_d):
        d.mkdir()
    (etc / 'a.conf').write_text('')
    (etc / 'b.conf').write_text('')
    (extra / 'c.conf').write_text('')
    conf = cfg.ConfigOpts()
    conf(
        [
            '--config-file',
            str(etc / 'a.conf'),
            '--config-file',
            str(etc / 'b.conf'),
            '--config-file',
            str(extra / 'c.conf'),
            '--config-dir',
            str(conf_d),
        ],
        project='nova-lite-test',
        default_config_files=[],
        default_config_dirs=[],
    )
    state = str(tmp_path / 'state')
    assert identity.search_dirs(conf, state) == [
        etc,
        extra,
        conf_d,
        tmp_path / 'state',
    ]
    assert identity.search_dirs(conf, state, with_config=False) == [
        tmp_path / 'state'
    ]


def test_no_file_anywhere_is_none(tmp_path):
    assert identity.read_local_node_uuid([tmp_path / 'a', tmp_path]) is None


@pytest.mark.parametrize(
    'text', [UUID_A, UUID_A + '\n', f'  {UUID_A}\n\n', UUID_A.upper()]
)
def test_whitespace_and_case_are_tolerated(tmp_path, text):
    _write(tmp_path, text)
    assert identity.read_local_node_uuid([tmp_path]) == UUID_A


def test_files_that_agree_are_fine(tmp_path):
    _write(tmp_path / 'etc', UUID_A)
    _write(tmp_path / 'state', UUID_A + '\n')
    files = identity.read_identity_files(
        [tmp_path / 'etc', tmp_path / 'state']
    )
    assert [f.path.parent.name for f in files] == ['etc', 'state']
    assert {f.uuid for f in files} == {UUID_A}


def test_files_that_disagree_name_each_file_and_uuid(tmp_path):
    one = _write(tmp_path / 'etc', UUID_A)
    two = _write(tmp_path / 'state', UUID_B)
    with pytest.raises(exception.ComputeIdentityError) as err:
        identity.read_local_node_uuid([tmp_path / 'etc', tmp_path / 'state'])
    message = str(err.value)
    assert f'{one} holds {UUID_A}' in message
    assert f'{two} holds {UUID_B}' in message


@pytest.mark.parametrize(
    'text',
    [
        'not-a-uuid',
        '',
        UUID_A.replace('-', ''),
        '{' + UUID_A + '}',
        UUID_A + ' ' + UUID_B,
        b'\xff\xfe' + UUID_A.encode(),
        'x' * 10000,
    ],
)
def test_a_file_without_a_uuid_is_refused_by_name(tmp_path, text):
    path = _write(tmp_path, text)
    with pytest.raises(exception.ComputeIdentityError) as err:
        identity.read_local_node_uuid([tmp_path])
    assert f'{path} does not hold a UUID' in str(err.value)


def test_an_unreadable_file_is_refused_with_the_reason(tmp_path):
    (tmp_path / identity.FILENAME).mkdir()  # root can read anything else
    with pytest.raises(exception.ComputeIdentityError) as err:
        identity.read_local_node_uuid([tmp_path])
    assert f'cannot read {tmp_path / identity.FILENAME}' in str(err.value)
    assert 'Is a directory' in str(err.value)


def test_every_location_is_examined_and_every_problem_reported(tmp_path):
    good = _write(tmp_path / 'a', UUID_A)
    bad = _write(tmp_path / 'b', 'garbage')
    other = _write(tmp_path / 'c', UUID_B)
    with pytest.raises(exception.ComputeIdentityError) as err:
        identity.read_local_node_uuid(
            [tmp_path / 'a', tmp_path / 'b', tmp_path / 'c']
        )
    message = str(err.value)
    assert str(bad) in message and str(good) in message
    assert str(other) in message


def test_write_creates_the_file_once_without_newline(tmp_path):
    state = tmp_path / 'new' / 'state'
    new = str(uuid.uuid4())
    written = identity.write_local_node_uuid(str(state), new)
    assert written == identity.IdentityFile(state / identity.FILENAME, new)
    assert (state / identity.FILENAME).read_bytes() == new.encode()
    assert os.stat(state / identity.FILENAME).st_mode & 0o777 == 0o600
    assert [p.name for p in state.iterdir()] == [identity.FILENAME]
    assert identity.read_local_node_uuid([state]) == new


def test_write_never_replaces_a_file_that_appeared(tmp_path):
    _write(tmp_path, UUID_A)
    written = identity.write_local_node_uuid(str(tmp_path), UUID_B)
    assert written.uuid == UUID_A
    assert (tmp_path / identity.FILENAME).read_text() == UUID_A
    assert [p.name for p in tmp_path.iterdir()] == [identity.FILENAME]


def test_unwritable_state_path_is_a_clear_error(tmp_path):
    blocker = tmp_path / 'file'
    blocker.write_text('')
    with pytest.raises(exception.ComputeIdentityError) as err:
        identity.write_local_node_uuid(str(blocker / 'state'), UUID_A)
    assert f'cannot create {blocker / "state" / identity.FILENAME}' in str(
        err.value
    )
    assert 'writable' in str(err.value)
