#!/usr/bin/env python3
"""Devstack-style deployment: every nova_lite service as its own process.

Run it with the virtualenv's python::

    .venv/bin/python tools/devstack.py start --workdir /tmp/ds --computes 2
    .venv/bin/python tools/devstack.py stop --workdir /tmp/ds

``start`` creates a fresh database (MariaDB or PostgreSQL) and a RabbitMQ
vhost, writes the configuration, syncs the schema and starts
nova-lite-api, nova-lite-conductor and N nova-lite-compute processes
(and, with ``--baremetal-conductors N``, ironic_lite: see
tools/devstack_ironic.py). It writes WORKDIR/clouds.yaml (clouds
``stacklite`` and ``stacklite-demo``) and WORKDIR/state.json. ``stop``
ends the processes and drops the database and the vhost. Integration
tests use :func:`start` and :class:`Deployment`.
"""

import argparse
import dataclasses
import json
from pathlib import Path
import re
import secrets
import subprocess
import sys
from typing import Any

import devstack_ironic
import devstack_support as support

STATE_FILE = 'state.json'
BAREMETAL_DIR = 'baremetal'
STARTED = re.compile(rb'nova-lite-compute \([^)]*\) started')
CONDUCTOR_STARTED = re.compile(rb'nova-lite-conductor \([^)]*\) started')
# Generous against heartbeats delayed on a loaded 2-core machine that runs
# two deployments at once; tests that need a host down force it down.
# start() takes other values for a deployment that needs hosts to go
# down quickly (e.g. frozen with SIGSTOP).
SERVICE_DOWN_TIME = 20
REPORT_INTERVAL = 2


@dataclasses.dataclass
class Compute:
    name: str
    config: Path
    state_path: Path


class Deployment(support.ServiceProcesses):
    """A running (or partly started) devstack-style deployment."""

    cloud_name = 'stacklite'

    def __init__(self, workdir: Path, db_kind: str = 'mysql') -> None:
        super().__init__(workdir)
        self.clouds_yaml = self.workdir / 'clouds.yaml'
        self.api_conf = self.workdir / 'api.conf'
        self.db_kind = db_kind
        self.db_name: str | None = None
        self.vhost: str | None = None
        self.db_url: str | None = None
        self.transport_url: str | None = None
        self.api_port: int | None = None
        self.passwords: dict[str, str] = {}
        self.computes: dict[str, Compute] = {}
        self.service_down_time = SERVICE_DOWN_TIME
        self.report_interval = REPORT_INTERVAL
        # Extra options of every compute's config: {section: {key: value}}
        self.compute_options: dict[str, dict[str, Any]] = {}
        self.controller_options: dict[str, dict[str, Any]] = {}

    # -- addresses and clients ---

    @property
    def api_url(self) -> str:
        return f'http://{support.LOCALHOST}:{self.api_port}'

    def openstack(
        self, *args: str, cloud: str = 'stacklite', **kwargs: Any
    ) -> Any:
        """Run the openstack CLI against this deployment (``-f json``)."""
        return support.run_openstack(self.clouds_yaml, cloud, *args, **kwargs)

    def api_get(self, path: str, user: str | None = 'admin') -> Any:
        """(status, body) of GET on the API, with basic auth of ``user``."""
        password = self.passwords.get(user) if user else None
        return support.http_request(self.api_url + path, user, password)

    def api_call(
        self,
        method: str,
        path: str,
        body: Any = None,
        version: str = '2.53',
        user: str = 'admin',
    ) -> Any:
        """(status, body) of a Compute API request at ``version``."""
        return support.http_request(
            self.api_url + path,
            user,
            self.passwords.get(user),
            method,
            body=body,
            headers={'OpenStack-API-Version': f'compute {version}'},
        )

    def disk_path(self, host: str, server_id: str) -> Path:
        return (
            self.computes[host].state_path / 'instances' / server_id / 'disk'
        )

    def find_disk(self, host: str, server_id: str) -> Path | None:
        path = self.disk_path(host, server_id)
        return path if path.exists() else None

    def stop_compute(self, name: str, timeout: float = 30) -> int | None:
        return self.terminate([name], timeout)[name]

    def start_compute(
        self,
        name: str,
        wait: bool = True,
        host: str | None = None,
        up: bool = True,
    ) -> None:
        """Start compute ``name``; with ``wait``, until this process has
        started (a service record can still look up from an earlier
        run) and, with ``up``, until its host (default: ``name``) is up
        (a forced-down service stays down until an operator says so)."""
        if name in self.procs and self.procs[name].alive():
            raise RuntimeError(f'{name} is already running')
        offset = self.log_offset(name)
        self.spawn(name, 'nova-lite-compute', self.computes[name].config)
        if not wait:
            return
        self.wait_logged(name, STARTED, offset, 120, f'{name} to start')
        if up:
            self.wait_services_up([host or name])

    def log_offset(self, name: str) -> int:
        """The size of NAME.log now: what a later wait_logged skips."""
        log = self.logs / f'{name}.log'
        return log.stat().st_size if log.exists() else 0

    def logged(self, name: str, pattern: re.Pattern, offset: int) -> bool:
        """Whether NAME.log matches ``pattern`` after byte ``offset``."""
        log = self.logs / f'{name}.log'
        if not log.exists():
            return False
        with open(log, 'rb') as handle:
            handle.seek(offset)
            return pattern.search(handle.read()) is not None

    def wait_logged(
        self,
        name: str,
        pattern: re.Pattern,
        offset: int,
        timeout: float,
        what: str,
    ) -> None:
        """Until NAME.log matches ``pattern`` after ``offset``; fails as
        soon as a service exits unexpectedly."""

        def found() -> bool:
            self.check_alive()
            return self.logged(name, pattern, offset)

        support.wait_for(found, timeout, what)

    def start_conductor(self, wait: bool = True, timeout: float = 120) -> None:
        """Start nova-lite-conductor (again); with ``wait``, until it
        serves."""
        if 'conductor' in self.procs and self.procs['conductor'].alive():
            raise RuntimeError('the conductor is already running')
        offset = self.log_offset('conductor')
        self.spawn('conductor', 'nova-lite-conductor', self.api_conf)
        if wait:
            self.wait_logged(
                'conductor',
                CONDUCTOR_STARTED,
                offset,
                timeout,
                'the conductor to start',
            )

    def start_compute_expecting_exit(
        self, name: str, timeout: float = 90
    ) -> tuple[int, str]:
        """Start compute ``name``, which must exit by itself (a refusal):
        its return code and what it logged meanwhile."""
        log = self.logs / f'{name}.log'
        offset = log.stat().st_size if log.exists() else 0
        proc = self.spawn(
            name, 'nova-lite-compute', self.computes[name].config
        )
        proc.stopped = True  # an expected exit, not a crash
        assert proc.popen is not None
        try:
            code = proc.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            self.terminate([name])
            raise RuntimeError(
                f'{name} did not exit within {timeout} s:\n'
                + support.tail(log)
            )
        with open(log, 'rb') as handle:
            handle.seek(offset)
            return code, handle.read().decode('utf-8', 'replace')

    def manage(
        self, *args: str, config: Path | None = None, timeout: float = 120
    ) -> subprocess.CompletedProcess:
        """Run nova-lite-manage (default: with the controller config)."""
        argv = [
            support.binary('nova-lite-manage'),
            '--config-file',
            str(config or self.api_conf),
            *args,
        ]
        return subprocess.run(
            argv, capture_output=True, text=True, timeout=timeout
        )

    def stop(self, timeout: float = 30) -> dict:
        """End every process, drop the database and delete the vhost."""
        order = [*self.computes, 'conductor', 'api']
        order += [n for n in self.procs if n not in order]
        try:
            return self.terminate(order, timeout)
        finally:
            self._drop_resources()

    # -- readiness ---

    def wait_api(self, timeout: float) -> None:
        def ready() -> bool:
            self.check_alive()
            return support.http_answers(self.api_url + '/')

        support.wait_for(ready, timeout, f'the API at {self.api_url}/')

    def compute_states(self) -> dict[str, str]:
        status, body = self.api_get('/v2.1/os-services')
        if status != 200:
            return {}
        return {
            s['host']: s['state']
            for s in body.get('services', [])
            if s.get('binary') == 'nova-compute'
        }

    def hypervisor_hosts(self) -> set[str]:
        status, body = self.api_get('/v2.1/os-hypervisors')
        if status != 200:
            return set()
        return {h['hypervisor_hostname'] for h in body.get('hypervisors', [])}

    def wait_services_up(
        self, names: list[str] | None = None, timeout: float = 120
    ) -> None:
        names = list(self.computes) if names is None else names

        def ready() -> bool:
            self.check_alive()
            states = self.compute_states()
            return (
                all(states.get(n) == 'up' for n in names)
                and set(names) <= self.hypervisor_hosts()
            )

        support.wait_for(ready, timeout, f'compute services {names} up')

    # -- state file ---

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
            'api_url': self.api_url if self.api_port else None,
            'clouds_yaml': str(self.clouds_yaml),
            'computes': {
                c.name: {
                    'config': str(c.config),
                    'state_path': str(c.state_path),
                }
                for c in self.computes.values()
            },
            'processes': {
                p.name: {'pid': p.pid, 'argv': p.argv}
                for p in self.procs.values()
            },
        }
        path = self.workdir / STATE_FILE
        path.write_text(json.dumps(state, indent=2) + '\n')
        path.chmod(0o600)

    @classmethod
    def load(cls, workdir: Path) -> 'Deployment':
        state = json.loads((Path(workdir) / STATE_FILE).read_text())
        dep = cls(workdir, state['db']['kind'])
        dep.db_name, dep.db_url = state['db']['name'], state['db']['url']
        dep.vhost, dep.api_port = state['vhost'], state['api_port']
        dep.transport_url = state['transport_url']
        dep.passwords = state['passwords']
        for name, info in state['computes'].items():
            dep.computes[name] = Compute(
                name, Path(info['config']), Path(info['state_path'])
            )
        for name, info in state['processes'].items():
            dep.procs[name] = support.Proc(name, info['argv'], info['pid'])
        return dep


# -- configuration ---


def _common_options(
    dep: Deployment, host: str, state_path: Path
) -> dict[str, Any]:
    return {
        'host': host,
        'state_path': state_path,
        'debug': True,
        'transport_url': dep.transport_url,
        'report_interval': dep.report_interval,
        'service_down_time': dep.service_down_time,
    }


def write_configs(dep: Deployment, computes: int, driver: str) -> None:
    """api.conf (api, conductor, manage) and compute-N.conf files."""
    htpasswd = dep.workdir / 'htpasswd'
    support.write_htpasswd(htpasswd, dep.passwords)
    controller = dep.workdir / 'controller'
    controller.mkdir(exist_ok=True)
    default = _common_options(dep, 'controller', controller)
    default.update(
        auth_strategy='http_basic',
        http_basic_auth_user_file=htpasswd,
        http_basic_admin_users='admin',
    )
    sections: dict[str, dict[str, Any]] = {
        'DEFAULT': default,
        'api': {'host': support.LOCALHOST, 'port': dep.api_port},
        'database': {'connection': dep.db_url},
        'oslo_concurrency': {'lock_path': controller / 'locks'},
    }
    for section, options in dep.controller_options.items():
        sections.setdefault(section, {}).update(options)
    support.write_conf(dep.api_conf, sections)
    for index in range(1, computes + 1):
        write_compute_config(dep, f'compute-{index}', driver)


def write_compute_config(
    dep: Deployment, name: str, driver: str = 'local'
) -> Compute:
    """NAME/etc/nova-lite.conf for compute NAME (host NAME), state in
    NAME/: each agent has a config directory of its own, where a
    compute_id file may be put beside its config."""
    state_path = dep.workdir / name
    etc = state_path / 'etc'
    etc.mkdir(parents=True, exist_ok=True)
    default = _common_options(dep, name, state_path)
    default['compute_driver'] = driver
    compute = Compute(name, etc / 'nova-lite.conf', state_path)
    sections: dict[str, dict[str, Any]] = {
        'DEFAULT': default,
        'oslo_concurrency': {'lock_path': state_path / 'locks'},
        # Snapshots are uploaded to the API's Image API as its admin.
        'glance': {
            'endpoint_override': f'{dep.api_url}/image',
            'auth_type': 'http_basic',
            'username': 'admin',
            'password': dep.passwords['admin'],
        },
    }
    for section, options in dep.compute_options.items():
        sections.setdefault(section, {}).update(options)
    support.write_conf(compute.config, sections)
    dep.computes[name] = compute
    return compute


def _db_sync(dep: Deployment) -> None:
    argv = [
        support.binary('nova-lite-manage'),
        '--config-file',
        str(dep.api_conf),
        'db',
        'sync',
    ]
    with open(dep.logs / 'db-sync.out', 'wb') as out:
        proc = subprocess.run(
            argv, stdout=out, stderr=subprocess.STDOUT, timeout=300
        )
    if proc.returncode:
        raise RuntimeError(
            f'{" ".join(argv)} failed ({proc.returncode}):\n'
            + support.tail(dep.logs / 'db-sync.out')
        )


# -- start ---


def _prepare(
    dep: Deployment, computes: int, driver: str, db_port: int | None = None
) -> None:
    dep.logs.mkdir(parents=True, exist_ok=True)
    dep.passwords = {
        'admin': secrets.token_urlsafe(12),
        'demo': secrets.token_urlsafe(12),
    }
    dep.api_port = support.free_port()
    name = support.unique_name()
    dep.db_url = support.create_database(dep.db_kind, name)
    if db_port is not None:
        dep.db_url = support.database_url(dep.db_kind, name, db_port)
    dep.db_name = name
    dep.save_state()
    dep.transport_url = support.create_vhost(name)
    dep.vhost = name
    dep.save_state()
    write_configs(dep, computes, driver)
    support.write_clouds_yaml(dep.clouds_yaml, dep.api_url, dep.passwords)


def start(
    workdir: Path | str,
    db: str = 'mysql',
    computes: int = 2,
    driver: str = 'local',
    timeout: float = 180,
    service_down_time: int = SERVICE_DOWN_TIME,
    report_interval: int = REPORT_INTERVAL,
    compute_options: dict[str, dict[str, Any]] | None = None,
    controller_options: dict[str, dict[str, Any]] | None = None,
    db_port: int | None = None,
) -> Deployment:
    """Start a deployment in ``workdir``; clean up everything on failure.
    ``compute_options`` ({section: {key: value}}) go into every compute's
    configuration, ``controller_options`` into the API's and the
    conductor's; ``db_port``: the API and the conductor reach the
    database through this port on 127.0.0.1 (a proxy the caller runs,
    see lite_common/tests/db_proxy.py)."""
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    if (workdir / STATE_FILE).exists():
        old = Deployment.load(workdir)
        if any(p.alive() for p in old.procs.values()) or old.db_name:
            raise RuntimeError(f'{workdir} holds a deployment; stop it first')
    dep = Deployment(workdir, db)
    dep.service_down_time = service_down_time
    dep.report_interval = report_interval
    dep.compute_options = compute_options or {}
    dep.controller_options = controller_options or {}
    try:
        _prepare(dep, computes, driver, db_port)
        _db_sync(dep)
        dep.spawn('api', 'nova-lite-api', dep.api_conf)
        dep.spawn('conductor', 'nova-lite-conductor', dep.api_conf)
        # No wait for the conductor: computes that start first wait for
        # it themselves (and this exercises that on every run).
        for compute in dep.computes.values():
            dep.spawn(compute.name, 'nova-lite-compute', compute.config)
        dep.wait_api(timeout)
        dep.wait_services_up(timeout=timeout)
    except BaseException:
        print(dep.log_tails(), file=sys.stderr)
        dep.stop(timeout=10)
        raise
    return dep


# -- command line ---


def _cmd_start(args: argparse.Namespace) -> int:
    dep = start(
        args.workdir, args.db, args.computes, args.driver, args.timeout
    )
    if args.baremetal_conductors:
        try:
            devstack_ironic._cmd_start(
                argparse.Namespace(
                    workdir=dep.workdir / BAREMETAL_DIR,
                    db=args.db,
                    conductors=args.baremetal_conductors,
                    step_delay=0.0,
                    timeout=args.timeout,
                )
            )
        except BaseException:
            dep.stop(timeout=10)
            raise
    print(
        f'devstack: {len(dep.computes)} computes up; API at '
        f'{dep.api_url}\n'
        f'  export OS_CLIENT_CONFIG_FILE={dep.clouds_yaml}\n'
        f'  export OS_CLOUD=stacklite   # or stacklite-demo\n'
        f'  {support.BIN_DIR}/openstack compute service list\n'
        f'logs: {dep.logs}\n'
        f'stop: {sys.executable} {__file__} stop --workdir {dep.workdir}'
    )
    return 0


def _cmd_stop(args: argparse.Namespace) -> int:
    baremetal = Path(args.workdir) / BAREMETAL_DIR
    if (baremetal / devstack_ironic.STATE_FILE).exists():
        devstack_ironic._cmd_stop(
            argparse.Namespace(workdir=baremetal, timeout=args.timeout)
        )
    codes = Deployment.load(args.workdir).stop(args.timeout)
    print(f'devstack: stopped {codes}; database and vhost removed')
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = parser.add_subparsers(dest='command', required=True)
    start_p = sub.add_parser('start', help='start a deployment')
    start_p.add_argument('--workdir', type=Path, required=True)
    start_p.add_argument('--db', choices=support.DB_KINDS, default='mysql')
    start_p.add_argument('--computes', type=int, default=2)
    start_p.add_argument('--driver', default='local')
    start_p.add_argument(
        '--baremetal-conductors',
        type=int,
        default=0,
        help='also start ironic-lite-api and this many conductors '
        '(tools/devstack_ironic.py, in WORKDIR/baremetal)',
    )
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
