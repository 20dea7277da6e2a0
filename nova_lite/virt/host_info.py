"""What the fake and local drivers tell of the host they run on: its
uptime, as the ``uptime`` command prints it (upstream's libvirt driver
runs ``env LANG=C uptime``)."""

import os
from pathlib import Path
import shutil
import subprocess
import time

PROC = Path('/proc')


def _from_proc() -> str:
    """``uptime``'s line from /proc, without the count of users
    (NotImplementedError without /proc)."""
    try:
        seconds = float((PROC / 'uptime').read_text().split()[0])
        loads = (PROC / 'loadavg').read_text().split()[:3]
    except (OSError, ValueError, IndexError):
        raise NotImplementedError('the host uptime is unknown') from None
    minutes = int(seconds) // 60
    days, minutes = divmod(minutes, 24 * 60)
    since = f'{minutes // 60:2d}:{minutes % 60:02d}'
    if days:
        since = f'{days} day{"s" if days > 1 else ""}, {since}'
    return (
        f' {time.strftime("%H:%M:%S")} up {since},  load average: '
        f'{", ".join(loads)}\n'
    )


def host_uptime() -> str:
    """The line ``uptime`` prints, e.g. `` 08:15:02 up 3 days,  2:03,  1
    user,  load average: 0.00, 0.01, 0.05``."""
    program = shutil.which('uptime')
    if program:
        try:
            out = subprocess.run(
                [program],
                capture_output=True,
                text=True,
                timeout=5,
                check=True,
                env={**os.environ, 'LANG': 'C', 'LC_ALL': 'C'},
            ).stdout
        except (OSError, subprocess.SubprocessError):
            out = ''
        if out.strip():
            return out
    return _from_proc()
