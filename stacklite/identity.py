"""Upstream Keystone for the all-in-one: clients get a token, a project
and a service catalog, and both APIs validate tokens with
keystonemiddleware (``auth_strategy = keystone``).

:class:`Keystone` prepares ``<state>/keystone/`` (0700): ``keystone.conf``
(SQLite ``keystone.sqlite`` beside it, fernet tokens, credential keys,
an in-process cache), ``passwords.yaml`` (0600, random passwords made
once) and ``keystone.log``; it binds the port at once (so that the URL is known
and a port in use is said before anything starts), and its
:meth:`Keystone.start` runs Keystone in a process of its own
(:mod:`stacklite.identity_server`: why a process, there), which syncs
the database, sets up the keys and bootstraps:

- projects ``admin``, ``demo`` and ``service``;
- ``admin`` with the ``admin`` role on project ``admin`` and on the
  system (``system all``: the Bare Metal API's administrators are
  system-scoped); ``demo`` with ``member`` and ``reader`` on ``demo``;
- one service user per API that validates tokens (``nova``,
  ``ironic``) with the ``service`` role on project ``service``: the
  least Keystone's policy asks of a token validator
  (``identity:validate_token`` allows ``role:service``), and what the
  upstream install guides create, rather than the admin's password in
  every service's configuration;
- the catalog (region ``RegionOne``): identity, and the endpoints given
  (:func:`catalog`), each on the public, internal and admin interfaces.
"""

from collections.abc import Callable
import dataclasses
import json
from pathlib import Path
import secrets
import select
import socket
import subprocess
import sys
import threading
import time
from typing import Any

from oslo_config import cfg
from oslo_log import log as logging
import yaml

from lite_common import private

LOG = logging.getLogger(__name__)

DEFAULT_PORT = 5000
REGION = 'RegionOne'
DOMAIN = 'Default'
SERVICE_PROJECT = 'service'
#: The service users, one per API validating tokens.
SERVICE_USERS = ('nova', 'ironic', 'neutron')
#: Their roles in the service project. nova and ironic are also admins,
#: as devstack makes them: ironic's conductor reads the image a server
#: boots from and nova's agents upload snapshots, whichever project
#: owns the image (``[glance]`` of each).
SERVICE_ROLES = {
    'nova': ('service', 'admin'),
    'ironic': ('service', 'admin'),
    'neutron': ('service',),
}
#: Users of people: name -> (project, roles).
PEOPLE = {'demo': ('demo', ('member', 'reader'))}
#: How long Keystone may take to start (a first start takes ~3 s).
START_TIMEOUT = 60.0
#: Keystone is started again when it ends, unless it ended more than
#: MAX_RESTARTS times within RESTART_WINDOW seconds.
MAX_RESTARTS = 5
RESTART_WINDOW = 300


@dataclasses.dataclass(frozen=True)
class Endpoint:
    service_type: str
    name: str
    url: str


def catalog(
    api_url: str, baremetal_url: str | None, network_url: str | None = None
) -> list[Endpoint]:
    """The all-in-one's endpoints: the Compute API, the image API it
    mounts at ``/image``, and the Bare Metal and Networking APIs if
    they run."""
    endpoints = [
        Endpoint('compute', 'nova', f'{api_url}/v2.1'),
        Endpoint('image', 'glance', f'{api_url}/image'),
    ]
    if baremetal_url is not None:
        endpoints.append(Endpoint('baremetal', 'ironic', baremetal_url))
    if network_url is not None:
        endpoints.append(Endpoint('network', 'neutron', network_url))
    return endpoints


def ensure_passwords(
    path: Path, names: list[str]
) -> tuple[dict[str, str], set[str]]:
    """user -> password, made at random once and kept in ``path``
    (0600); a name missing from the file gets one. Also the names that
    got one now (Keystone may know them with another password)."""
    known: dict[str, str] = {}
    if path.exists():
        known = yaml.safe_load(path.read_text()) or {}
    missing = {name for name in names if name not in known}
    if missing:
        known.update({name: secrets.token_urlsafe(24) for name in missing})
        private.write_file(path, yaml.safe_dump(known))
    return known, missing


def write_config(
    directory: Path, log_options: dict[str, Any] | None = None
) -> Path:
    """keystone.conf: everything under ``directory``; an in-process
    cache; no notifications; ``log_options`` in ``[DEFAULT]`` (e.g.
    oslo.log's rotation)."""
    extra = ''.join(
        f'{name} = {value}\n' for name, value in (log_options or {}).items()
    )
    text = f"""\
[DEFAULT]
log_file = {directory / 'keystone.log'}
use_stderr = false
{extra}
[database]
connection = sqlite:///{directory / 'keystone.sqlite'}

[token]
provider = fernet

[fernet_tokens]
key_repository = {directory / 'fernet-keys'}

[fernet_receipts]
key_repository = {directory / 'fernet-keys'}

[credential]
key_repository = {directory / 'credential-keys'}

[identity]
# bcrypt reads 72 bytes: a longer password is refused rather than
# truncated (and Keystone does not warn at every check).
max_password_length = 72

[cache]
# In-process and bounded in time (a validation without the cache makes
# ~500 SQL queries on ~150 SQLite connections: 0.3 s).
enabled = true
backend = oslo_cache.dict
expiration_time = 600

[oslo_messaging_notifications]
driver = noop
"""
    path = directory / 'keystone.conf'
    private.write_file(path, text)
    return path


def _bind(host: str, port: int) -> socket.socket:
    try:
        return socket.create_server((host, port), backlog=128)
    except OSError as exc:
        raise RuntimeError(
            f'keystone cannot listen on {host}:{port}: {exc.strerror or exc}'
        ) from exc


class Keystone:
    """Keystone in a process of its own, started and stopped by a
    Launcher. ``endpoints`` may be changed until :meth:`start`."""

    def __init__(
        self,
        state: Path,
        host: str = '127.0.0.1',
        port: int = DEFAULT_PORT,
        endpoints: list[Endpoint] | None = None,
        log_options: dict[str, Any] | None = None,
    ) -> None:
        self.directory = state / 'keystone'
        self.directory.mkdir(mode=0o700, exist_ok=True)
        self.passwords, self._new_passwords = ensure_passwords(
            self.directory / 'passwords.yaml',
            ['admin', *PEOPLE, *SERVICE_USERS],
        )
        self.config = write_config(self.directory, log_options)
        self.endpoints = list(endpoints or [])
        self._sock: socket.socket | None = _bind(host, port)
        bound_host, bound_port = self._sock.getsockname()[:2]
        self.url = f'http://{bound_host}:{bound_port}'
        self._process: subprocess.Popen[bytes] | None = None
        self._spawned_at = 0.0
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._watcher: threading.Thread | None = None
        #: Called when Keystone ends too often to be started again.
        self.on_give_up: Callable[[], None] | None = None

    @property
    def auth_url(self) -> str:
        return f'{self.url}/v3'

    @property
    def log_file(self) -> Path:
        return self.directory / 'keystone.log'

    def bootstrap_plan(self) -> dict[str, Any]:
        people = [
            (name, project, list(roles))
            for name, (project, roles) in PEOPLE.items()
        ]
        services = [
            (name, SERVICE_PROJECT, list(SERVICE_ROLES[name]))
            for name in SERVICE_USERS
        ]
        users = [
            {
                'name': name,
                'password': self.passwords[name],
                'new_password': name in self._new_passwords,
                'project': project,
                'roles': roles,
            }
            for name, project, roles in people + services
        ]
        return {
            'region': REGION,
            'identity_url': self.auth_url,
            'admin_password': self.passwords['admin'],
            'users': users,
            'endpoints': {
                e.service_type: {'name': e.name, 'url': e.url}
                for e in self.endpoints
            },
        }

    def spawn(self) -> None:
        """Start the Keystone process and return at once (its set-up
        then runs beside the caller's); :meth:`start` waits for it.
        ``endpoints`` are final from here. The socket stays open here
        too: a Keystone started again serves on it."""
        if self._process is not None and self._process.poll() is None:
            return
        assert self._sock is not None, 'Keystone was stopped'
        self._spawned_at = time.monotonic()
        fd = self._sock.fileno()
        self._process = subprocess.Popen(
            [
                sys.executable,
                '-m',
                'stacklite.identity_server',
                '--config-file',
                str(self.config),
                '--fd',
                str(fd),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            pass_fds=[fd],
            start_new_session=True,
        )
        assert self._process.stdin is not None
        self._process.stdin.write(
            json.dumps(self.bootstrap_plan()).encode() + b'\n'
        )
        self._process.stdin.flush()

    def start(self) -> None:
        """Spawn Keystone if not yet done, and return once it answers;
        RuntimeError if it does not within :data:`START_TIMEOUT`. From
        then on a Keystone that ends is started again (see
        :meth:`_watch`)."""
        self.spawn()
        assert self._process is not None
        if not self._wait_ready():
            code = self._process.returncode
            self.stop()
            raise RuntimeError(
                f'keystone did not start (exit status '
                f'{code}); see {self.log_file}'
            )
        LOG.info(
            'keystone listening on %s (pid %d, started in %.1f s)',
            self.url,
            self._process.pid,
            time.monotonic() - self._spawned_at,
        )
        self._watcher = threading.Thread(
            target=self._watch, name='keystone-watch', daemon=True
        )
        self._watcher.start()

    def _wait_ready(self) -> bool:
        """The process said it is ready; False if it ended or did not
        within :data:`START_TIMEOUT` (it is killed then)."""
        assert self._process is not None and self._process.stdout
        stdout = self._process.stdout
        ready, _, _ = select.select([stdout], [], [], START_TIMEOUT)
        line = stdout.readline() if ready else b''
        if line.strip() == b'{"ready": true}':
            return True
        if self._process.poll() is None:
            self._process.kill()
            self._process.wait()
        return False

    def _watch(self) -> None:
        """Start Keystone again when it ends by itself (killed, out of
        memory ...), on the same socket (clients wait in its backlog
        meanwhile); more than :data:`MAX_RESTARTS` ends within
        :data:`RESTART_WINDOW` seconds give up: ``on_give_up`` is
        called (the all-in-one stops, exit status 1)."""
        ends: list[float] = []
        while True:
            process = self._process
            assert process is not None
            code = process.wait()
            if self._stopping.is_set():
                return
            now = time.monotonic()
            ends = [t for t in ends if now - t < RESTART_WINDOW] + [now]
            if len(ends) > MAX_RESTARTS:
                LOG.critical(
                    'keystone ended %d times within %d s (last exit '
                    'status %s); not starting it again: see %s',
                    len(ends),
                    RESTART_WINDOW,
                    code,
                    self.log_file,
                )
                if self.on_give_up is not None:
                    self.on_give_up()
                return
            LOG.error(
                'keystone (pid %d) ended with exit status %s; '
                'starting it again (see %s)',
                process.pid,
                code,
                self.log_file,
            )
            for pipe in (process.stdin, process.stdout):
                if pipe is not None:
                    pipe.close()
            with self._lock:
                if self._stopping.is_set():
                    return
                self.spawn()
                restarted = self._process
                assert restarted is not None
            if self._wait_ready():
                LOG.info(
                    'keystone serves again on %s (pid %d)',
                    self.url,
                    restarted.pid,
                )

    def stop(self) -> None:
        """End of stdin stops it; SIGTERM, then SIGKILL, if it lingers."""
        with self._lock:
            self._stopping.set()
        process = self._process
        try:
            if process is not None and process.poll() is None:
                self._end(process)
        finally:
            if self._sock is not None:
                self._sock.close()
                self._sock = None

    @staticmethod
    def _end(process: subprocess.Popen[bytes]) -> None:
        assert process.stdin is not None
        try:
            process.stdin.close()
        except BrokenPipeError:
            pass
        for action in (None, process.terminate, process.kill):
            if action is not None:
                action()
            try:
                process.wait(timeout=10)
                return
            except subprocess.TimeoutExpired:
                continue

    def authtoken(self, user: str) -> dict[str, str]:
        """``[keystone_authtoken]`` of an API validating tokens as the
        service user ``user``."""
        return {
            'www_authenticate_uri': self.auth_url,
            'auth_type': 'password',
            'auth_url': self.auth_url,
            'username': user,
            'password': self.passwords[user],
            'user_domain_name': DOMAIN,
            'project_name': SERVICE_PROJECT,
            'project_domain_name': DOMAIN,
            'region_name': REGION,
            'interface': 'internal',
        }


def configure_authtoken(
    conf: cfg.ConfigOpts, keystone: Keystone, user: str
) -> None:
    """Set ``conf`` (an API's configuration, parsed already) to validate
    tokens against ``keystone`` as ``user`` (registering the options
    keystonemiddleware would register)."""
    from keystoneauth1 import loading
    from keystonemiddleware import auth_token

    for group, opts in auth_token.list_opts():
        conf.register_opts(opts, group=group)
    conf.register_opts(
        loading.get_auth_plugin_conf_options('password'),
        group='keystone_authtoken',
    )
    conf.set_override('auth_strategy', 'keystone')
    for name, value in keystone.authtoken(user).items():
        conf.set_override(name, value, group='keystone_authtoken')
