"""Processes that outlive the process that started them: found again by
pid file, and told apart from a later process that got the same pid.

The emulated machines of ``stacklite-aio --baremetal-emulate`` (a
Redfish emulator and an agent per machine, :mod:`emulated_machines`)
run in sessions of their own, so that a Ctrl-C of the all-in-one does
not reach them before it stops them itself. A SIGKILL of the all-in-one
leaves them running; the next start must find them and stop them before
it starts new ones on the same disk files and MAC addresses.

A pid file holds the pid and the process's start time (clock ticks
after boot, ``/proc/PID/stat`` field 22): a recorded process still runs
when a process with that pid has that start time; a pid reused by an
unrelated process since has another, and is left alone. A zombie counts
as ended.

:class:`DirectoryLock` keeps two live all-in-ones off one state
directory's machines (an exclusive ``flock``, released by the kernel
when its holder dies, even by SIGKILL).
"""

import fcntl
import os
from pathlib import Path
import signal
import time

from lite_common.process_key import start_time

#: How often :func:`stop_recorded` looks whether the process ended.
_POLL = 0.05


def write(path: Path, pid: int) -> None:
    """Record process ``pid`` (0600)."""
    started = start_time(pid)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, 'w') as handle:
        handle.write(f'{pid} {started}\n')


def running(path: Path) -> int | None:
    """The pid recorded in ``path`` when that process still runs."""
    try:
        pid_text, started = path.read_text().split()
        pid = int(pid_text)
    except (OSError, ValueError):
        return None
    if pid <= 1 or str(start_time(pid)) != started:
        return None
    return pid


def _wait_gone(pid: int, started: int | None, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while start_time(pid) == started:
        if time.monotonic() >= deadline:
            return False
        time.sleep(_POLL)
    return True


def stop_recorded(path: Path, timeout: float = 10) -> int | None:
    """Stop the process recorded in ``path`` if it still runs (SIGTERM,
    SIGKILL after ``timeout`` seconds) and remove the file; its pid, or
    None when none ran."""
    pid = running(path)
    if pid is not None:
        started = start_time(pid)
        try:
            os.kill(pid, signal.SIGTERM)
            if not _wait_gone(pid, started, timeout):
                os.kill(pid, signal.SIGKILL)
                _wait_gone(pid, started, timeout)
        except ProcessLookupError:
            pass
    path.unlink(missing_ok=True)
    return pid


class DirectoryLock:
    """An exclusive lock on a directory, for the life of its holder."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self) -> None:
        """:raises RuntimeError: another live process holds it."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise RuntimeError(
                f'{self.path} is locked: another stacklite-aio runs the '
                f'emulated machines of {self.path.parent}; stop it first'
            ) from None
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
