"""Run the ``openstack`` CLI without paying for its start-up every time.

Starting ``openstack`` costs about 1.5 s of CPU, nearly all of it
imports (python-openstackclient and the plugins of every client); the
command itself costs about 0.3 s. The integration tests run hundreds of
commands on a 2-core machine, so ``devstack_support.run_openstack``
hands each command to a *fork server*: one process per test process,
which imported the CLI once and forks a child per command. The child is
the CLI as its console script runs it: ``openstackclient.shell.main``
with the command's argv, environment and working directory, stdin from
/dev/null, stdout and stderr into files; its exit status is the
command's. Nothing runs in the server itself but imports.

``STACKLITE_CLI_FORK=0`` in the environment runs the console script
(a new interpreter per command) instead. The documentation tests always
run the real ``openstack`` executable through the shell.

Run as a script, this module is the server: ``openstack_fork.py SOCKET``.
"""

import atexit
import importlib
import json
import locale
import os
from pathlib import Path
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any

#: Commands run once at the server's start (against a closed port) to
#: learn which modules a command imports: the server imports them too.
WARM_UP = (
    ['server', 'list'],
    ['image', 'list'],
    ['baremetal', 'node', 'list'],
)
WARM_UP_AUTH = [
    '--os-auth-type',
    'none',
    '--os-endpoint',
    'http://127.0.0.1:9',
    '--os-compute-api-version',
    '2.1',
]
START_TIMEOUT = 120
#: sys.argv[0] of the console script (cliff names the program after it
#: when openstackclient.shell is imported).
EXECUTABLE = str(Path(sys.executable).parent / 'openstack')

_server: dict[int, tuple[subprocess.Popen, str]] = {}


def enabled() -> bool:
    return os.environ.get('STACKLITE_CLI_FORK', '1') != '0'


# -- the client ---


def _start_server() -> str:
    """The socket of this process's server (started on first use)."""
    known = _server.get(os.getpid())
    if known is not None and known[0].poll() is None:
        return known[1]
    folder = tempfile.mkdtemp(prefix='openstack-fork-')
    path = os.path.join(folder, 'socket')
    env = {k: v for k, v in os.environ.items() if not k.startswith('OS_')}
    proc = subprocess.Popen(
        [sys.executable, __file__, path],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=open(os.path.join(folder, 'server.log'), 'wb'),
        env=env,
        start_new_session=True,
    )
    deadline = time.monotonic() + START_TIMEOUT
    while not os.path.exists(path):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError(
                f'the openstack fork server did not start; '
                f'see {folder}/server.log'
            )
        time.sleep(0.05)
    _server[os.getpid()] = (proc, path)
    atexit.register(_stop_server, proc, folder)
    return path


def _stop_server(proc: subprocess.Popen, folder: str) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
    shutil.rmtree(folder, ignore_errors=True)


def _decode(raw: bytes) -> str:
    """As ``subprocess.run(text=True)`` decodes."""
    text = raw.decode(locale.getpreferredencoding(False))
    return text.replace('\r\n', '\n').replace('\r', '\n')


def run(
    argv: list[str], env: dict[str, str], timeout: float
) -> subprocess.CompletedProcess:
    """``subprocess.run(argv, capture_output=True, text=True, env=env,
    timeout=timeout)`` for ``argv == [openstack, *args]``, by a fork of
    the server."""
    path = _start_server()
    with (
        tempfile.TemporaryDirectory(prefix='openstack-run-') as folder,
        socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn,
    ):
        out, err = Path(folder, 'out'), Path(folder, 'err')
        conn.connect(path)
        request = {
            'args': argv[1:],
            'env': env,
            'cwd': os.getcwd(),
            'out': str(out),
            'err': str(err),
        }
        conn.sendall(json.dumps(request).encode() + b'\n')
        conn.settimeout(timeout)
        reader = conn.makefile('rb')
        pid = None
        try:
            pid = int(reader.readline())
            line = reader.readline()
        except TimeoutError:
            _kill(pid)
            raise subprocess.TimeoutExpired(argv, timeout) from None
        if not line:
            raise RuntimeError(
                f'the openstack fork child {pid} ended '
                f'without an exit status: {" ".join(argv)}'
            )
        return subprocess.CompletedProcess(
            argv,
            int(line),
            _decode(out.read_bytes()),
            _decode(err.read_bytes()),
        )


def _kill(pid: int | None) -> None:
    if pid is not None:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


# -- the server ---


def _exit_code(code: Any) -> int:
    """The process exit status of ``sys.exit(code)``."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _run_cli(args: list[str]) -> int:
    """What the ``openstack`` console script does, as an exit status."""
    from openstackclient import shell

    sys.argv = [EXECUTABLE, *args]
    try:
        return _exit_code(shell.main(args))
    except SystemExit as exc:
        return _exit_code(exc.code)


def _redirect(request: dict[str, Any]) -> None:
    os.chdir(request['cwd'])
    os.environ.clear()
    os.environ.update(request['env'])
    for fd, name, flags in (
        (0, os.devnull, os.O_RDONLY),
        (1, request['out'], os.O_WRONLY | os.O_CREAT),
        (2, request['err'], os.O_WRONLY | os.O_CREAT),
    ):
        opened = os.open(name, flags, 0o600)
        os.dup2(opened, fd)
        os.close(opened)


def _child(conn: socket.socket) -> None:
    """Serve one command in this fork, then exit."""
    code = 1
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        reader = conn.makefile('rb')
        request = json.loads(reader.readline())
        conn.sendall(f'{os.getpid()}\n'.encode())
        _redirect(request)
        code = _run_cli(request['args'])
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
            conn.sendall(f'{code}\n'.encode())
        finally:
            os._exit(code)


def _warm_up() -> None:
    """Import what the warm-up commands import (in forks: nothing runs
    here but imports)."""
    import openstackclient.shell  # noqa: F401

    known = set(sys.modules)
    names: set[str] = set()
    for args in WARM_UP:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            try:
                _run_cli([*WARM_UP_AUTH, *args])
            finally:
                os.write(write, json.dumps(sorted(sys.modules)).encode())
                os._exit(0)
        os.close(write)
        with os.fdopen(read, 'rb') as pipe:
            data = pipe.read()
        os.waitpid(pid, 0)
        names.update(json.loads(data or b'[]'))
    for name in sorted(names - known):
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 (e.g. private C extension names)
            pass


def _reap() -> None:
    """Wait for the ended children (so that their CPU time counts in
    this process's, and in the test run's)."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass


def _end(signum: int, frame: Any) -> None:
    _reap()
    sys.exit(0)


def serve(path: str) -> None:
    sys.argv = [EXECUTABLE]
    _warm_up()
    parent = os.getppid()
    signal.signal(signal.SIGTERM, _end)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + '.new')
    listener.listen(64)
    os.rename(path + '.new', path)  # ready
    listener.settimeout(1)
    while os.getppid() == parent:
        _reap()
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            continue
        conn.settimeout(None)
        if os.fork() == 0:
            listener.close()
            _child(conn)
        conn.close()


if __name__ == '__main__':
    serve(sys.argv[1])
