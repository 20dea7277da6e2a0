#!/usr/bin/env python3
"""Devstack-style ironic_lite: ironic-lite-api and N conductors as processes.

Run it with the virtualenv's python::

    .venv/bin/python tools/devstack_ironic.py start --workdir /tmp/bm \\
        --conductors 2
    .venv/bin/python tools/devstack_ironic.py stop --workdir /tmp/bm

``start`` creates a fresh database (MariaDB or PostgreSQL) and a RabbitMQ
vhost, writes WORKDIR/ironic.conf (the API) and one
WORKDIR/conductor-N/ironic-lite.conf per conductor, runs
ironic-lite-dbsync and starts the services. Every conductor records the
runs of the fake clean steps in WORKDIR/fake-runs.jsonl (``[fake]
run_log``), and the fake step ``wait_for_gate`` waits for files in
WORKDIR/gates (``[fake]gate_dir``). It writes WORKDIR/clouds.yaml
(cloud ``baremetal``, user admin, and ``baremetal-demo``) and
WORKDIR/state.json. ``stop`` ends the processes and drops the database
and the vhost. ``tools/devstack.py start --baremetal-conductors N``
starts one beside nova_lite. Integration tests use :func:`start` and
:class:`BaremetalDeployment`.
"""

import argparse
import json
from pathlib import Path
import secrets
import subprocess
import sys
import time
from typing import Any

import devstack_support as support
import yaml

STATE_FILE = 'state.json'
#: Conductor heartbeats: short, so that a killed conductor's nodes are
#: taken over within seconds in the tests.
HEARTBEAT_INTERVAL = 1
HEARTBEAT_TIMEOUT = 8


class BaremetalDeployment(support.ServiceProcesses):
    """A running (or partly started) ironic_lite deployment."""

    def __init__(self, workdir: Path, db_kind: str = 'mysql') -> None:
        super().__init__(workdir)
        self.clouds_yaml = self.workdir / 'clouds.yaml'
        self.api_conf = self.workdir / 'ironic.conf'
        self.db_kind = db_kind
        self.db_name: str | None = None
        self.db_url: str | None = None
        self.vhost: str | None = None
        self.transport_url: str | None = None
        self.api_port: int | None = None
        self.passwords: dict[str, str] = {}
        self.conductors: dict[str, Path] = {}
        self.run_log = self.workdir / 'fake-runs.jsonl'
        self.gates = self.workdir / 'gates'

    def open_gate(self, name: str) -> None:
        """Let the fake step ``wait_for_gate`` of gate ``name`` end."""
        (self.gates / name).touch()

    @property
    def api_url(self) -> str:
        return f'http://{support.LOCALHOST}:{self.api_port}'

    def baremetal(
        self, *args: str, cloud: str = 'baremetal', **kwargs: Any
    ) -> Any:
        """``openstack baremetal ARGS`` (``-f json`` unless parse=False)."""
        return support.run_openstack(
            self.clouds_yaml, cloud, 'baremetal', *args, **kwargs
        )

    def api_call(
        self,
        method: str,
        path: str,
        body: Any = None,
        version: str = 'latest',
        user: str | None = 'admin',
    ) -> tuple[int, Any]:
        """(status, body) of a Bare Metal API request at ``version``."""
        password = self.passwords.get(user) if user else None
        return support.http_request(
            self.api_url + path,
            user,
            password,
            method,
            body=body,
            headers={'X-OpenStack-Ironic-API-Version': version},
        )

    def conductor_hosts(self) -> set[str]:
        """Hosts of the alive conductors, as GET /v1/drivers shows them."""
        status, body = self.api_call('GET', '/v1/drivers')
        if status != 200:
            return set()
        return {
            host
            for driver in body.get('drivers', [])
            for host in driver.get('hosts', [])
        }

    def wait_conductors(
        self, names: list[str] | None = None, timeout: float = 120
    ) -> None:
        wanted = set(self.conductors if names is None else names)

        def ready() -> bool:
            self.check_alive()
            return wanted <= self.conductor_hosts()

        support.wait_for(ready, timeout, f'conductors {sorted(wanted)}')

    def start_conductor(self, name: str) -> None:
        if name in self.procs and self.procs[name].alive():
            raise RuntimeError(f'{name} is already running')
        self.spawn(name, 'ironic-lite-conductor', self.conductors[name])

    def start_api(self) -> None:
        """Start ironic-lite-api (again) and wait until it answers."""
        if 'ironic-api' in self.procs and self.procs['ironic-api'].alive():
            raise RuntimeError('ironic-api is already running')
        self.spawn('ironic-api', 'ironic-lite-api', self.api_conf)
        support.wait_for(
            lambda: support.http_answers(self.api_url + '/'),
            60,
            f'the API at {self.api_url}/',
            interval=0.1,
        )

    def stop(self, timeout: float = 30) -> dict:
        """End every process, drop the database and delete the vhost."""
        order = [*self.conductors, 'ironic-api']
        order += [n for n in self.procs if n not in order]
        try:
            return self.terminate(order, timeout)
        finally:
            self._drop_resources()

    def save_state(self) -> None:
        state = {
            'db': {
                'kind': self.db_kind,
                'name': self.db_name,
                'url': self.db_url,
            },
            'vhost': self.vhost,
            'transport_url': self.transport_url,
            'api_port': self.api_port,
            'passwords': self.passwords,
            'clouds_yaml': str(self.clouds_yaml),
            'conductors': {n: str(p) for n, p in self.conductors.items()},
            'processes': {
                p.name: {'pid': p.pid, 'argv': p.argv}
                for p in self.procs.values()
            },
        }
        path = self.workdir / STATE_FILE
        path.write_text(json.dumps(state, indent=2) + '\n')
        path.chmod(0o600)

    @classmethod
    def load(cls, workdir: Path) -> 'BaremetalDeployment':
        state = json.loads((Path(workdir) / STATE_FILE).read_text())
        dep = cls(workdir, state['db']['kind'])
        dep.db_name, dep.db_url = state['db']['name'], state['db']['url']
        dep.vhost, dep.api_port = state['vhost'], state['api_port']
        dep.transport_url = state['transport_url']
        dep.passwords = state['passwords']
        dep.conductors = {n: Path(p) for n, p in state['conductors'].items()}
        for name, info in state['processes'].items():
            dep.procs[name] = support.Proc(name, info['argv'], info['pid'])
        return dep


# -- configuration ---


def _sections(
    dep: BaremetalDeployment,
    host: str,
    step_delay: float,
    options: dict[str, dict[str, Any]] | None = None,
) -> dict[str, dict[str, Any]]:
    sections: dict[str, dict[str, Any]] = {
        'DEFAULT': {
            'host': host,
            'debug': True,
            'transport_url': dep.transport_url,
            'auth_strategy': 'http_basic',
            'http_basic_auth_user_file': dep.workdir / 'htpasswd',
            'http_basic_admin_users': 'admin',
        },
        'api': {'host_ip': support.LOCALHOST, 'port': dep.api_port},
        'database': {'connection': dep.db_url},
        'conductor': {
            'heartbeat_interval': HEARTBEAT_INTERVAL,
            'heartbeat_timeout': HEARTBEAT_TIMEOUT,
            'clean_step_poll_interval': 1,
        },
        'fake': {
            'step_delay': step_delay,
            'run_log': dep.run_log,
            'gate_dir': dep.gates,
        },
    }
    for section, values in (options or {}).items():
        sections.setdefault(section, {}).update(values)
    return sections


def write_configs(
    dep: BaremetalDeployment,
    conductors: int,
    step_delay: float,
    options: dict[str, dict[str, Any]] | None = None,
) -> None:
    """``options``: ``{section: {option: value}}`` for every service."""
    support.write_htpasswd(dep.workdir / 'htpasswd', dep.passwords)
    support.write_conf(
        dep.api_conf, _sections(dep, 'ironic-api', step_delay, options)
    )
    dep.gates.mkdir(mode=0o700, exist_ok=True)
    for index in range(1, conductors + 1):
        name = f'conductor-{index}'
        etc = dep.workdir / name
        etc.mkdir(exist_ok=True)
        dep.conductors[name] = etc / 'ironic-lite.conf'
        sections = _sections(dep, name, step_delay, options)
        # Each conductor its own image cache, as on its own machine.
        sections.setdefault('deploy', {}).setdefault(
            'image_cache_dir', etc / 'image-cache'
        )
        support.write_conf(dep.conductors[name], sections)


def cloud_entry(api_url: str, user: str, password: str) -> dict[str, Any]:
    """A clouds.yaml entry for the Bare Metal API with HTTP basic auth."""
    return {
        'auth_type': 'http_basic',
        'auth': {'username': user, 'password': password, 'endpoint': api_url},
        'baremetal_endpoint_override': api_url,
    }


def write_clouds_yaml(dep: BaremetalDeployment) -> None:
    clouds = {
        'baremetal': cloud_entry(dep.api_url, 'admin', dep.passwords['admin']),
        'baremetal-demo': cloud_entry(
            dep.api_url, 'demo', dep.passwords['demo']
        ),
    }
    dep.clouds_yaml.write_text(
        yaml.safe_dump({'clouds': clouds}, sort_keys=False)
    )
    dep.clouds_yaml.chmod(0o600)


def _db_sync(dep: BaremetalDeployment) -> None:
    argv = [
        support.binary('ironic-lite-dbsync'),
        '--config-file',
        str(dep.api_conf),
    ]
    with open(dep.logs / 'dbsync.out', 'wb') as out:
        proc = subprocess.run(
            argv, stdout=out, stderr=subprocess.STDOUT, timeout=300
        )
    if proc.returncode:
        raise RuntimeError(
            f'{" ".join(argv)} failed ({proc.returncode}):\n'
            + support.tail(dep.logs / 'dbsync.out')
        )


# -- start ---


def _prepare(
    dep: BaremetalDeployment,
    conductors: int,
    step_delay: float,
    options: dict[str, dict[str, Any]] | None,
    db_port: int | None = None,
) -> None:
    dep.logs.mkdir(parents=True, exist_ok=True)
    dep.passwords = {
        'admin': secrets.token_urlsafe(12),
        'demo': secrets.token_urlsafe(12),
    }
    dep.api_port = support.free_port()
    name = support.unique_name('ironiclite')
    dep.db_url = support.create_database(dep.db_kind, name)
    if db_port is not None:
        dep.db_url = support.database_url(dep.db_kind, name, db_port)
    dep.db_name = name
    dep.save_state()
    dep.transport_url = support.create_vhost(name)
    dep.vhost = name
    dep.save_state()
    write_configs(dep, conductors, step_delay, options)
    write_clouds_yaml(dep)


def start(
    workdir: Path | str,
    db: str = 'mysql',
    conductors: int = 2,
    step_delay: float = 0.0,
    timeout: float = 180,
    options: dict[str, dict[str, Any]] | None = None,
    db_port: int | None = None,
) -> BaremetalDeployment:
    """Start a deployment in ``workdir``; clean up everything on failure.

    ``step_delay``: seconds each synchronous fake clean step takes;
    ``options``: more configuration, ``{section: {option: value}}``;
    ``db_port``: the services reach the database through this port on
    127.0.0.1 (a proxy the caller runs, see
    lite_common/tests/db_proxy.py).
    """
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    if (workdir / STATE_FILE).exists():
        old = BaremetalDeployment.load(workdir)
        if any(p.alive() for p in old.procs.values()) or old.db_name:
            raise RuntimeError(f'{workdir} holds a deployment; stop it first')
    dep = BaremetalDeployment(workdir, db)
    started = time.monotonic()
    try:
        _prepare(dep, conductors, step_delay, options, db_port)
        _db_sync(dep)
        dep.spawn('ironic-api', 'ironic-lite-api', dep.api_conf)
        for name in dep.conductors:
            dep.start_conductor(name)
        support.wait_for(
            lambda: (
                dep.check_alive(),
                support.http_answers(dep.api_url + '/'),
            )[1],
            timeout,
            f'the API at {dep.api_url}/',
        )
        dep.wait_conductors(
            timeout=max(1.0, timeout - (time.monotonic() - started))
        )
    except BaseException:
        print(dep.log_tails(), file=sys.stderr)
        dep.stop(timeout=10)
        raise
    return dep


# -- command line ---


def _cmd_start(args: argparse.Namespace) -> int:
    dep = start(
        args.workdir, args.db, args.conductors, args.step_delay, args.timeout
    )
    print(
        f'devstack-ironic: {len(dep.conductors)} conductors up; API at '
        f'{dep.api_url}\n'
        f'  export OS_CLIENT_CONFIG_FILE={dep.clouds_yaml}\n'
        f'  export OS_CLOUD=baremetal\n'
        f'  {support.BIN_DIR}/openstack baremetal driver list\n'
        f'logs: {dep.logs}\n'
        f'stop: {sys.executable} {__file__} stop --workdir {dep.workdir}'
    )
    return 0


def _cmd_stop(args: argparse.Namespace) -> int:
    codes = BaremetalDeployment.load(args.workdir).stop(args.timeout)
    print(f'devstack-ironic: stopped {codes}; database and vhost removed')
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = parser.add_subparsers(dest='command', required=True)
    start_p = sub.add_parser('start', help='start a deployment')
    start_p.add_argument('--workdir', type=Path, required=True)
    start_p.add_argument('--db', choices=support.DB_KINDS, default='mysql')
    start_p.add_argument('--conductors', type=int, default=2)
    start_p.add_argument('--step-delay', type=float, default=0.0)
    start_p.add_argument('--timeout', type=float, default=180)
    start_p.set_defaults(func=_cmd_start)
    stop_p = sub.add_parser('stop', help='stop it and drop its resources')
    stop_p.add_argument('--workdir', type=Path, required=True)
    stop_p.add_argument('--timeout', type=float, default=30)
    stop_p.set_defaults(func=_cmd_stop)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == '__main__':
    sys.exit(main())
