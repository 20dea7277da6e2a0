"""Proof that a recorded process is dead, on the machine that checks.

A service that holds a name (a conductor its host name, a compute agent
its host's service record) records which process holds it, and a second
process refuses to take the name while that holder's heartbeat is fresh:
it may be alive, frozen, or on another machine. After a crash (kill -9,
the OOM killer) that refusal would last until the heartbeat ages, so a
restart by systemd would be refused for a heartbeat timeout.

A *process key* settles the case where the holder ran here: the kernel
boot (``/proc/sys/kernel/random/boot_id``), the pid namespace (its
inode), the pid and the pid's start time (clock ticks since boot, field
22 of ``/proc/PID/stat``). When the boot and the namespace are this
process's own, the pid is checked directly: no process with that pid,
or one that started at another time (the pid was reused), or a zombie,
proves the holder dead. Anything else, including a holder frozen with
SIGSTOP, another machine, another container on the same kernel or a key
that cannot be read, proves nothing.
"""

import dataclasses
import os
from pathlib import Path

_BOOT_ID = Path('/proc/sys/kernel/random/boot_id')


@dataclasses.dataclass(frozen=True)
class ProcessKey:
    boot: str
    pid_namespace: str
    pid: int
    started: int

    def __str__(self) -> str:
        return f'{self.boot}/{self.pid_namespace}/{self.pid}/{self.started}'

    @classmethod
    def parse(cls, text: str | None) -> 'ProcessKey | None':
        """The key ``str()`` wrote, or None for anything else."""
        parts = (text or '').split('/')
        if len(parts) != 4 or not parts[0] or not parts[1]:
            return None
        try:
            return cls(parts[0], parts[1], int(parts[2]), int(parts[3]))
        except ValueError:
            return None


def start_time(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks since boot); None when
    there is no such process or it is a zombie (it runs no more
    code)."""
    try:
        stat = Path(f'/proc/{pid}/stat').read_text()
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may hold spaces.
    fields = stat[stat.rindex(')') + 2 :].split()
    if fields[0] == 'Z':
        return None
    return int(fields[19])


def _boot() -> str | None:
    try:
        return _BOOT_ID.read_text().strip() or None
    except OSError:
        return None


def _pid_namespace() -> str | None:
    try:
        return os.readlink('/proc/self/ns/pid')
    except OSError:
        return None


def this_process() -> ProcessKey | None:
    """This process's key; None where /proc does not tell (then no other
    process can prove this one dead: it waits for the heartbeat to
    age)."""
    boot, namespace = _boot(), _pid_namespace()
    started = start_time(os.getpid())
    if boot is None or namespace is None or started is None:
        return None
    return ProcessKey(boot, namespace, os.getpid(), started)


def proven_dead(recorded: str | None) -> bool:
    """True only when the process ``recorded`` names (a key's text) ran
    on this kernel boot in this pid namespace and runs no more."""
    key = ProcessKey.parse(recorded)
    if (
        key is None
        or key.boot != _boot()
        or (key.pid_namespace != _pid_namespace())
    ):
        return False
    return start_time(key.pid) != key.started
