"""What a service writes stays readable by its own user only.

SQLite databases hold BMC passwords and the log holds request details,
so every daemon creates files 0600 and directories 0700 whatever umask
it was started with (:func:`restrict_umask`, first thing at start-up),
and tightens the state it finds from an earlier run or another tool
(:func:`tighten`), saying so in the log.
"""

from collections.abc import Iterable
import os
from pathlib import Path
import stat

from oslo_config import cfg
from oslo_log import log as logging

LOG = logging.getLogger(__name__)

UMASK = 0o077
#: Files SQLite keeps beside a database.
SQLITE_SUFFIXES = ('', '-wal', '-shm', '-journal')


def restrict_umask() -> None:
    os.umask(UMASK)


def write_file(path: Path, text: str) -> None:
    """Write ``text`` to ``path``, 0600 whatever the umask (credentials,
    clouds.yaml)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, 'w') as handle:
        handle.write(text)
    path.chmod(0o600)


def sqlite_files(url: str | None) -> list[Path]:
    """The files of a ``sqlite:///`` database URL (none for others)."""
    if not url or not url.startswith('sqlite:///'):
        return []
    path = url[len('sqlite:///') :].split('?', 1)[0]
    if not path or path == ':memory:':
        return []
    return [Path(path + suffix) for suffix in SQLITE_SUFFIXES]


def log_file(conf: cfg.ConfigOpts) -> Path | None:
    """The file oslo.log writes, if any."""
    name = getattr(conf, 'log_file', None)
    if not name:
        return None
    directory = getattr(conf, 'log_dir', None)
    return Path(directory, name) if directory else Path(name)


def tighten(paths: Iterable[Path | None]) -> list[Path]:
    """Take group and other permissions off each existing path; return
    those changed."""
    changed = []
    for path in paths:
        if path is None:
            continue
        try:
            mode = stat.S_IMODE(path.lstat().st_mode)
        except FileNotFoundError:
            continue
        if path.is_symlink() or not mode & 0o077:
            continue
        try:
            path.chmod(mode & 0o700)
        except PermissionError:
            LOG.warning(
                '%s is open to other users (mode %o) and this '
                'service cannot change it: run chmod go= on it',
                path,
                mode,
            )
            continue
        LOG.warning(
            '%s was open to other users (mode %o): now %o',
            path,
            mode,
            mode & 0o700,
        )
        changed.append(path)
    return changed


def service_paths(
    conf: cfg.ConfigOpts, extra: Iterable[Path] = ()
) -> list[Path]:
    """The state a daemon started with ``conf`` keeps: its SQLite
    database, its log file, and ``extra`` (e.g. a state directory)."""
    database = getattr(conf, 'database', None)
    url = getattr(database, 'connection', None) if database else None
    log = log_file(conf)
    paths = [*sqlite_files(url), *extra]
    if log is not None:
        paths.append(log)
    return paths
