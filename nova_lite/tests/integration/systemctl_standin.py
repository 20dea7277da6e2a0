"""A stand-in for ``systemctl`` where a test cannot use systemd: it
starts a unit's ``ExecStart=`` line as a detached process, under a
supervisor that records its pid (``UNIT.pid``) and, when it ends, its
exit status (``UNIT.status``).

Run as ``python systemctl_standin.py ARGS``; the environment says where
the units are (``UNIT_DIR``, as the install guide names it) and where
the processes' pid files and logs go (``STANDIN_RUN_DIR``). It knows
``daemon-reload`` (nothing to do), ``enable --now UNIT...`` and ``start
UNIT...`` (run the unit unless it runs), ``stop UNIT...`` (SIGTERM) and
``is-active UNIT``; anything else exits 2 so that a guide using more of
systemctl fails here rather than doing nothing.

From the unit it reads ``[Service]``'s ``ExecStart=`` (the last one;
an empty one resets, as in a drop-in), ``Environment=`` and
``WorkingDirectory=``, from the unit file and its ``NAME.service.d/*.conf``
drop-ins. ``User=``, the sandboxing options and ``StateDirectory=`` are
systemd's to apply and ignored here: the test runs as one user and its
guide creates the directories itself.
"""

import os
from pathlib import Path
import shlex
import signal
import subprocess
import sys
import time


def _service_lines(path: Path) -> list[tuple[str, str]]:
    """The ``key=value`` lines of the ``[Service]`` section."""
    lines: list[tuple[str, str]] = []
    section = None
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(('#', ';')):
            continue
        if line.startswith('['):
            section = line
            continue
        if section == '[Service]' and '=' in line:
            key, value = line.split('=', 1)
            lines.append((key.strip(), value.strip()))
    return lines


class Unit:
    def __init__(self, unit_dir: Path, name: str) -> None:
        self.name = name if name.endswith('.service') else name + '.service'
        path = unit_dir / self.name
        if not path.is_file():
            raise SystemExit(f'Unit {self.name} not found in {unit_dir}.')
        files = [path, *sorted((unit_dir / f'{self.name}.d').glob('*.conf'))]
        self.argv: list[str] = []
        self.environment: dict[str, str] = {}
        self.cwd: str | None = None
        for file in files:
            for key, value in _service_lines(file):
                if key == 'ExecStart':
                    self.argv = (
                        shlex.split(value.lstrip('-@+!')) if value else []
                    )
                elif key == 'Environment':
                    for item in shlex.split(value):
                        name_, _, setting = item.partition('=')
                        self.environment[name_] = setting
                elif key == 'WorkingDirectory':
                    self.cwd = value
        if not self.argv:
            raise SystemExit(f'Unit {self.name} has no ExecStart=.')


def _pid(run_dir: Path, unit: str) -> int | None:
    """The unit's process, while it runs."""
    if (run_dir / f'{unit}.status').exists():
        return None
    try:
        return int((run_dir / f'{unit}.pid').read_text())
    except (FileNotFoundError, ValueError):
        return None


def _start(unit_dir: Path, run_dir: Path, name: str) -> None:
    """Start the unit under a supervisor of its own (detached), which
    writes the process's pid to ``UNIT.pid`` and, when it ends, its
    exit status to ``UNIT.status``: systemd's view of a unit."""
    unit = Unit(unit_dir, name)
    if _pid(run_dir, unit.name):
        return
    for stale in ('pid', 'status'):
        (run_dir / f'{unit.name}.{stale}').unlink(missing_ok=True)
    subprocess.Popen(
        [sys.executable, __file__, '--supervise', unit.name],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 30
    while not (run_dir / f'{unit.name}.pid').exists():
        if time.monotonic() > deadline:
            raise SystemExit(f'{unit.name} did not start within 30 s.')
        time.sleep(0.05)


def _supervise(unit_dir: Path, run_dir: Path, name: str) -> int:
    unit = Unit(unit_dir, name)
    with open(run_dir / f'{unit.name}.log', 'ab') as log:
        proc = subprocess.Popen(
            unit.argv,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=unit.cwd or '/',
            env={**os.environ, **unit.environment},
        )
    pid_file = run_dir / f'{unit.name}.pid'
    pid_file.with_suffix('.tmp').write_text(str(proc.pid))
    pid_file.with_suffix('.tmp').rename(pid_file)
    code = proc.wait()
    (run_dir / f'{unit.name}.status').write_text(str(code))
    return 0


def main(argv: list[str]) -> int:
    unit_dir = Path(os.environ['UNIT_DIR'])
    run_dir = Path(os.environ['STANDIN_RUN_DIR'])
    run_dir.mkdir(parents=True, exist_ok=True)
    if argv[:1] == ['--supervise']:
        return _supervise(unit_dir, run_dir, argv[1])
    if argv == ['daemon-reload']:
        return 0
    if argv[:2] == ['enable', '--now'] or argv[:1] == ['start']:
        names = argv[2:] if argv[0] == 'enable' else argv[1:]
        for name in names:
            _start(unit_dir, run_dir, name)
        return 0
    if argv[:1] == ['stop']:
        for name in argv[1:]:
            unit = name if name.endswith('.service') else name + '.service'
            pid = _pid(run_dir, unit)
            if pid:
                os.kill(pid, signal.SIGTERM)
        return 0
    if argv[:1] == ['is-active'] and len(argv) == 2:
        unit = (
            argv[1] if argv[1].endswith('.service') else argv[1] + '.service'
        )
        return 0 if _pid(run_dir, unit) else 3
    print(
        f'systemctl stand-in: {shlex.join(argv)} is not supported',
        file=sys.stderr,
    )
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
