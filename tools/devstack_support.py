"""Building blocks of tools/devstack.py, also used by the integration tests.

Databases (MariaDB/PostgreSQL), RabbitMQ vhosts, htpasswd and clouds.yaml
files, HTTP probes, the ``openstack`` CLI runner and a polling helper. All
traffic goes to 127.0.0.1 only.
"""

import base64
from collections.abc import Callable
import configparser
import dataclasses
import hashlib
import json
import os
from pathlib import Path
import secrets
import signal
import subprocess
import sys
import time
from typing import Any
import urllib.error
import urllib.request

import openstack_fork
import yaml

from lite_common.tests.ports import (
    free_port as free_port,  # the tools use it too
)

LOCALHOST = '127.0.0.1'
RABBIT_PORT = 5672
BIN_DIR = Path(sys.executable).parent
DB_KINDS = ('mysql', 'postgresql')


def unique_name(prefix: str = 'novalite') -> str:
    """A name that is safe as a database name and as a RabbitMQ vhost."""
    return f'{prefix}_{secrets.token_hex(6)}'


def binary(name: str) -> str:
    """Path of a console script in the running virtualenv."""
    path = BIN_DIR / name
    if not path.exists():
        raise RuntimeError(
            f'{path} does not exist: run tools/setup-venv.sh --test and use '
            f'the .venv python'
        )
    return str(path)


def disk_fingerprint(path: Path) -> tuple[int, str]:
    """(size, digest of the parts that hold data) of a sparse disk file:
    equal for an unchanged file, without reading gigabytes of holes (a
    test that kept whole disks in memory grew to 8 GB)."""
    digest = hashlib.sha256()
    size = path.stat().st_size
    with open(path, 'rb') as disk:
        fd = disk.fileno()
        offset = 0
        while offset < size:
            try:
                start = os.lseek(fd, offset, os.SEEK_DATA)
            except OSError:  # only a hole is left
                break
            end = os.lseek(fd, start, os.SEEK_HOLE)
            disk.seek(start)
            digest.update(start.to_bytes(8, 'big'))
            remaining = end - start
            while remaining:
                chunk = disk.read(min(remaining, 1 << 20))
                digest.update(chunk)
                remaining -= len(chunk)
            offset = end
    return size, digest.hexdigest()


def wait_for(
    predicate: Callable[[], Any],
    timeout: float,
    what: str,
    interval: float = 0.5,
) -> Any:
    """Poll ``predicate`` until it returns something truthy."""
    deadline = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        if time.monotonic() > deadline:
            raise TimeoutError(
                f'timed out after {timeout:.0f}s waiting for {what}'
            )
        time.sleep(interval)


# -- databases ---


def _mysql_connect() -> Any:
    import pymysql

    return pymysql.connect(
        host=LOCALHOST, user='root', password='', autocommit=True
    )


def _pg_connect() -> Any:
    import psycopg2

    conn = psycopg2.connect(host=LOCALHOST, user='postgres', dbname='postgres')
    conn.autocommit = True
    return conn


def _db_execute(kind: str, statement: str) -> None:
    if kind not in DB_KINDS:
        raise ValueError(f'unknown database kind {kind!r}; use {DB_KINDS}')
    conn = _mysql_connect() if kind == 'mysql' else _pg_connect()
    try:
        with conn.cursor() as cursor:
            cursor.execute(statement)
    finally:
        conn.close()


def database_url(kind: str, name: str, port: int | None = None) -> str:
    """The SQLAlchemy URL of database ``name``; ``port``: through that
    port on 127.0.0.1 (a proxy a test runs) instead of the server's."""
    host = LOCALHOST if port is None else f'{LOCALHOST}:{port}'
    if kind == 'mysql':
        return f'mysql+pymysql://root@{host}/{name}'
    return f'postgresql+psycopg2://postgres@{host}/{name}'


def create_database(kind: str, name: str) -> str:
    """Create an empty database; return its SQLAlchemy URL."""
    if kind == 'mysql':
        _db_execute(kind, f'CREATE DATABASE `{name}` CHARACTER SET utf8mb4')
    else:
        _db_execute(kind, f'CREATE DATABASE "{name}"')
    return database_url(kind, name)


def drop_database(kind: str, name: str) -> None:
    if kind == 'mysql':
        _db_execute(kind, f'DROP DATABASE IF EXISTS `{name}`')
    else:
        _db_execute(kind, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def database_exists(kind: str, name: str) -> bool:
    if kind == 'mysql':
        conn = _mysql_connect()
        query = (
            'SELECT 1 FROM information_schema.schemata WHERE schema_name = %s'
        )
    else:
        conn = _pg_connect()
        query = 'SELECT 1 FROM pg_database WHERE datname = %s'
    try:
        with conn.cursor() as cursor:
            cursor.execute(query, (name,))
            return cursor.fetchone() is not None
    finally:
        conn.close()


# -- RabbitMQ --------------------------------------------------------------


def _rabbitmqctl(*args: str) -> str:
    proc = subprocess.run(
        ['rabbitmqctl', *args], capture_output=True, text=True, timeout=60
    )
    if proc.returncode:
        raise RuntimeError(
            f'rabbitmqctl {" ".join(args)} failed '
            f'({proc.returncode}): {proc.stderr.strip()}'
        )
    return proc.stdout


def create_vhost(vhost: str, user: str = 'guest') -> str:
    """Create a vhost for ``user``; return the oslo.messaging URL."""
    _rabbitmqctl('add_vhost', vhost)
    _rabbitmqctl('set_permissions', '-p', vhost, user, '.*', '.*', '.*')
    return f'rabbit://guest:guest@{LOCALHOST}:{RABBIT_PORT}/{vhost}'


def delete_vhost(vhost: str) -> None:
    if vhost_exists(vhost):
        _rabbitmqctl('delete_vhost', vhost)


def vhost_exists(vhost: str) -> bool:
    out = _rabbitmqctl('list_vhosts', '--quiet', '--no-table-headers')
    return vhost in out.split()


# -- credentials and client configuration ---


def write_htpasswd(path: Path, users: dict[str, str]) -> None:
    """An Apache htpasswd file with bcrypt hashes (htpasswd -B)."""
    import bcrypt

    lines = []
    for user, password in users.items():
        hashed = bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=4))
        lines.append(f'{user}:{hashed.decode()}')
    path.write_text('\n'.join(lines) + '\n')
    path.chmod(0o600)


def cloud_entry(api_url: str, user: str, password: str) -> dict[str, Any]:
    """A clouds.yaml entry for keystoneauth's ``http_basic`` plugin."""
    base = api_url.rstrip('/')
    return {
        'auth_type': 'http_basic',
        'auth': {
            'username': user,
            'password': password,
            'endpoint': f'{base}/v2.1',
        },
        'compute_endpoint_override': f'{base}/v2.1',
        'image_endpoint_override': f'{base}/image',
        # There is no identity service, but python-openstackclient builds
        # an identity v3 proxy anyway (e.g. "server list", for --project):
        # nova-lite-api answers discovery at /identity/v3 for that, as
        # for the all-in-one's clouds.yaml.
        'identity_api_version': '3',
        'identity_endpoint_override': f'{base}/identity/v3',
    }


def write_clouds_yaml(path: Path, api_url: str, users: dict[str, str]) -> None:
    """Clouds ``stacklite`` (user admin) and ``stacklite-demo`` (demo)."""
    clouds = {
        'stacklite': cloud_entry(api_url, 'admin', users['admin']),
        'stacklite-demo': cloud_entry(api_url, 'demo', users['demo']),
    }
    path.write_text(yaml.safe_dump({'clouds': clouds}, sort_keys=False))
    path.chmod(0o600)


# -- HTTP and CLI ------------------------------------------------------------


def _encoded(body: Any) -> tuple[bytes | None, str]:
    if isinstance(body, bytes):
        return body, 'application/octet-stream'
    data = None if body is None else json.dumps(body).encode()
    return data, 'application/json'


def http_request(
    url: str,
    user: str | None = None,
    password: str | None = None,
    method: str = 'GET',
    timeout: float = 10,
    body: Any = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, Any]:
    """(status, decoded JSON body or text); never raises on HTTP errors.
    ``body`` is sent as JSON, or as it is when it is bytes (an image's
    data: ``application/octet-stream``)."""
    data, kind = _encoded(body)
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header('Accept', 'application/json')
    if data is not None:
        request.add_header('Content-Type', kind)
    for key, value in (headers or {}).items():
        request.add_header(key, value)
    if user is not None:
        token = base64.b64encode(f'{user}:{password}'.encode()).decode()
        request.add_header('Authorization', f'Basic {token}')
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as exc:
        status, raw = exc.code, exc.read()
    text = raw.decode('utf-8', 'replace')
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def http_answers(url: str) -> bool:
    try:
        http_request(url, timeout=2)
    except (OSError, urllib.error.URLError):
        return False
    return True


class OpenStackCLIError(RuntimeError):
    def __init__(self, argv: list[str], proc: Any) -> None:
        super().__init__(
            f'{" ".join(argv)} exited {proc.returncode}\n'
            f'--- stdout ---\n{proc.stdout}\n--- stderr ---\n{proc.stderr}'
        )
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr


def run_openstack(
    clouds_yaml: Path | str,
    cloud: str,
    *args: str,
    parse: bool = True,
    check: bool = True,
    timeout: float = 600,
) -> Any:
    """Run the real ``openstack`` CLI; parse its ``-f json`` output.

    With ``check=False`` the CompletedProcess is returned, whether the
    command failed or not (one type: the caller looks at returncode).
    Otherwise a failure raises OpenStackCLIError and success returns the
    parsed output, or with ``parse=False`` (for commands without
    output, such as delete and set) the raw stdout.

    The command runs in a fork of a process that imported the CLI once
    (openstack_fork.py: the same code and exit status, without 1.5 s of
    imports each time); ``STACKLITE_CLI_FORK=0`` runs the executable.
    """
    argv = [binary('openstack'), '--os-cloud', cloud, *args]
    if parse:
        argv += ['-f', 'json']
    env = dict(
        os.environ, OS_CLIENT_CONFIG_FILE=str(clouds_yaml), OS_CLOUD=cloud
    )
    if openstack_fork.enabled():
        proc = openstack_fork.run(argv, env, timeout)
    else:
        proc = subprocess.run(
            argv, capture_output=True, text=True, env=env, timeout=timeout
        )
    if not check:
        return proc
    if proc.returncode:
        raise OpenStackCLIError(argv, proc)
    if not parse:
        return proc.stdout
    return json.loads(proc.stdout) if proc.stdout.strip() else None


# -- processes ---


def pid_runs(pid: int, exe: str) -> bool:
    """Whether ``pid`` still runs ``exe`` (not a zombie, not reused)."""
    try:
        stat = Path(f'/proc/{pid}/stat').read_text()
        cmdline = Path(f'/proc/{pid}/cmdline').read_bytes()
    except OSError:
        return False
    state = stat.rsplit(')', 1)[1].split()[0]
    return state != 'Z' and os.path.basename(exe).encode() in cmdline


def signal_pid(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass


def tail(path: Path, lines: int = 40) -> str:
    try:
        content = path.read_text(errors='replace').splitlines()
    except OSError as exc:
        return f'({path}: {exc.strerror})'
    return '\n'.join(content[-lines:])


@dataclasses.dataclass
class Proc:
    name: str
    argv: list[str]
    pid: int
    popen: subprocess.Popen | None = None
    stopped: bool = False  # on purpose: not a crash

    def alive(self) -> bool:
        if self.popen is not None:
            return self.popen.poll() is None
        return pid_runs(self.pid, self.argv[0])

    def dead(self) -> bool:
        return not self.alive()

    def returncode(self) -> int | None:
        return self.popen.poll() if self.popen is not None else None


class ServiceProcesses:
    """Service processes of a deployment, their logs and their ends.

    Each service NAME logs to WORKDIR/logs/NAME.log (oslo.log) and
    NAME.out (anything written to stdout/stderr).
    """

    def __init__(self, workdir: Path) -> None:
        self.workdir = Path(workdir).resolve()
        self.logs = self.workdir / 'logs'
        self.procs: dict[str, Proc] = {}
        self.db_kind = 'mysql'
        self.db_name: str | None = None
        self.vhost: str | None = None

    def save_state(self) -> None:
        """Subclasses record their processes and resources."""

    def _drop_resources(self) -> None:
        """Drop the database and delete the vhost this deployment made."""
        try:
            if self.db_name:
                drop_database(self.db_kind, self.db_name)
                self.db_name = None
        finally:
            if self.vhost:
                delete_vhost(self.vhost)
                self.vhost = None
            self.save_state()

    def log_files(self) -> list[Path]:
        return sorted(self.logs.glob('*')) if self.logs.is_dir() else []

    def log_tails(self, lines: int = 40) -> str:
        return '\n'.join(
            f'===== {path} =====\n{tail(path, lines)}'
            for path in self.log_files()
        )

    def spawn(self, name: str, command: str, config: Path) -> Proc:
        argv = [
            binary(command),
            '--config-file',
            str(config),
            '--log-file',
            str(self.logs / f'{name}.log'),
        ]
        with open(self.logs / f'{name}.out', 'ab') as out:
            popen = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env=dict(os.environ, PYTHONUNBUFFERED='1'),
            )
        proc = self.procs[name] = Proc(name, argv, popen.pid, popen)
        self.save_state()
        return proc

    def check_alive(self) -> None:
        dead = [
            p.name
            for p in self.procs.values()
            if not p.stopped and not p.alive()
        ]
        if dead:
            raise RuntimeError(
                f'service(s) exited: {", ".join(dead)}\n' + self.log_tails()
            )

    def pause(self, name: str) -> None:
        """SIGSTOP ``name``: the process freezes (a hung host)."""
        signal_pid(self.procs[name].pid, signal.SIGSTOP)

    def resume(self, name: str) -> None:
        """SIGCONT ``name``: a frozen process goes on where it was."""
        signal_pid(self.procs[name].pid, signal.SIGCONT)

    def kill(self, name: str) -> None:
        """SIGKILL ``name`` (a crash on purpose) and wait for its end."""
        proc = self.procs[name]
        proc.stopped = True
        signal_pid(proc.pid, signal.SIGKILL)
        wait_for(lambda: not proc.alive(), 10, f'{name} to die')

    def terminate(self, names: list[str], timeout: float = 30) -> dict:
        """SIGTERM, then SIGKILL after ``timeout``; name -> return code."""
        procs = [self.procs[n] for n in names if n in self.procs]
        for proc in procs:
            proc.stopped = True
            if proc.alive():
                signal_pid(proc.pid, signal.SIGTERM)
                # A frozen (SIGSTOP) process handles SIGTERM once resumed.
                signal_pid(proc.pid, signal.SIGCONT)
        deadline = time.monotonic() + timeout
        while any(p.alive() for p in procs) and time.monotonic() < deadline:
            time.sleep(0.2)
        for proc in procs:
            if proc.alive():
                print(
                    f'devstack: {proc.name} ignored SIGTERM; killing',
                    file=sys.stderr,
                )
                signal_pid(proc.pid, signal.SIGKILL)
                wait_for(proc.dead, 10, f'{proc.name} to die')
        return {p.name: p.returncode() for p in procs}


def write_conf(path: Path, sections: dict[str, dict[str, Any]]) -> None:
    """An oslo.config file: {section: {option: value}}."""
    parser = configparser.ConfigParser(interpolation=None)
    for section, options in sections.items():
        if section != 'DEFAULT':
            parser.add_section(section)
        for key, value in options.items():
            parser.set(section, key, str(value))
    with open(path, 'w') as conf:
        parser.write(conf)
