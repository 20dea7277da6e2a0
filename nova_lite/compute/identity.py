"""The compute agent's identity file: ``compute_id``.

The file holds the UUID of the agent's compute node, in canonical text
form (what ``uuidgen > compute_id`` writes). It is looked for beside every
configuration file, in every configuration directory and in
``state_path``; every location is read every time, and files that
disagree, do not hold a UUID or cannot be read stop the agent.

When there is none, the agent writes one, once: to ``state_path``,
exclusively (a file that appeared meanwhile is never replaced) and
durably (the file and its directory are fsynced).
"""

import dataclasses
import os
from pathlib import Path
import re
import tempfile

from oslo_config import cfg

from nova_lite import exception

FILENAME = 'compute_id'
_CANONICAL = re.compile(
    r'^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
    re.IGNORECASE,
)
# More than this in a compute_id file is not a UUID; do not read a
# mistakenly named large file into memory.
_MAX_BYTES = 4096


@dataclasses.dataclass(frozen=True)
class IdentityFile:
    path: Path
    uuid: str


def search_dirs(
    conf: cfg.ConfigOpts, state_path: str, with_config: bool = True
) -> list[Path]:
    """Where ``compute_id`` may be, in search order, without duplicates.

    The directory of every configuration file, every configuration
    directory, then ``state_path``. ``with_config=False`` (the all-in-one,
    whose agents share configuration files) searches ``state_path`` only.
    """
    dirs: list[Path] = []
    if with_config:
        dirs += [Path(f).parent for f in conf.config_file or []]
        dirs += [Path(d) for d in conf.config_dirs or []]
    dirs.append(Path(state_path))
    unique: dict[Path, None] = {}
    for directory in dirs:
        unique.setdefault(Path(os.path.abspath(directory)), None)
    return list(unique)


def _parse(path: Path, data: bytes) -> str:
    try:
        text = data.decode('ascii').strip()
    except UnicodeDecodeError:
        text = None
    if text is None or not _CANONICAL.match(text):
        shown = data[:60].decode('ascii', 'replace').strip()
        raise exception.ComputeIdentityError(
            reason=f'{path} does not hold a UUID in canonical form (it '
            f'holds {shown!r}). Fix or remove it; see "nova-lite-manage '
            f'compute identity show".'
        )
    return text.lower()


def _read_one(path: Path) -> IdentityFile | None:
    try:
        with open(path, 'rb') as handle:
            data = handle.read(_MAX_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise exception.ComputeIdentityError(
            reason=f'cannot read {path}: {exc.strerror}. Make it readable '
            f'by the agent.'
        )
    return IdentityFile(path, _parse(path, data))


def read_identity_files(dirs: list[Path]) -> list[IdentityFile]:
    """Every ``compute_id`` file in ``dirs``; all problems at once.

    Raises ComputeIdentityError when a file cannot be read, does not hold
    a UUID, or when the files disagree (naming each file and its UUID).
    """
    found: list[IdentityFile] = []
    problems: list[str] = []
    for directory in dirs:
        try:
            item = _read_one(directory / FILENAME)
        except exception.ComputeIdentityError as exc:
            problems.append(exc.kwargs['reason'])
            continue
        if item is not None:
            found.append(item)
    if len({item.uuid for item in found}) > 1:
        listing = '; '.join(f'{item.path} holds {item.uuid}' for item in found)
        problems.append(
            f'compute_id files disagree: {listing}. Keep the '
            f'one that is right for this host and remove the '
            f'others.'
        )
    if problems:
        raise exception.ComputeIdentityError(reason=' '.join(problems))
    return found


def read_local_node_uuid(dirs: list[Path]) -> str | None:
    """The UUID all ``compute_id`` files in ``dirs`` agree on, or None."""
    found = read_identity_files(dirs)
    return found[0].uuid if found else None


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY | getattr(os, 'O_DIRECTORY', 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_local_node_uuid(state_path: str, uuid: str) -> IdentityFile:
    """Create ``state_path/compute_id`` holding ``uuid``, exactly once.

    The UUID goes to a temporary file that is fsynced and then hard-linked
    to its name, which fails when the name exists: a file that appeared
    meanwhile is kept, never overwritten, and returned instead (after
    being read and checked). No reader ever sees a partial file.
    """
    directory = Path(os.path.abspath(state_path))
    path = directory / FILENAME
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix='.compute_id.', dir=directory)
        try:
            os.write(fd, uuid.encode('ascii'))
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)
        except FileExistsError:
            existing = _read_one(path)
            if existing is None:  # removed again already: give up loudly
                raise
            return existing
        finally:
            os.unlink(tmp)
        _fsync_dir(directory)
    except OSError as exc:
        raise exception.ComputeIdentityError(
            reason=f'cannot create {path}: {exc.strerror}. Make state_path '
            f'({directory}) writable by the agent, or pre-generate the '
            f'file (uuidgen > {path}).'
        )
    return IdentityFile(path, uuid)
