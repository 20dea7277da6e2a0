"""stacklite-aio: the whole control plane in one process.

nova-lite-api, nova-lite-conductor and N compute agents (each with its
own host name and state directory), ironic-lite-api and an
ironic-lite-conductor (see :mod:`stacklite.baremetal`) run over the
``inproc://`` bus with SQLite files in the state directory. A
``clouds.yaml`` is written so that ``openstack --os-cloud stacklite ...``
works at once.
"""

import argparse
from collections.abc import Callable
import logging as std_logging
from pathlib import Path
import secrets
import sys
from typing import Any
from typing import cast

from lite_common import backend

backend.select_threading()

from oslo_config import cfg  # noqa: E402
from oslo_log import log as logging  # noqa: E402
import yaml  # noqa: E402

from lite_common import private  # noqa: E402
from lite_common import rpc  # noqa: E402
from lite_common import service as lite_service  # noqa: E402
from nova_lite.api import service as api_svc  # noqa: E402
from nova_lite.cmd import common  # noqa: E402
from nova_lite.compute import service as compute_svc  # noqa: E402
from nova_lite.conductor import service as conductor_svc  # noqa: E402
from nova_lite.db import api as db_api  # noqa: E402
from nova_lite.db import migration  # noqa: E402
from stacklite import aio_identity  # noqa: E402
from stacklite import baremetal  # noqa: E402
from stacklite import baremetal_emulate  # noqa: E402
from stacklite import baremetal_pool  # noqa: E402
from stacklite import emulated_machines  # noqa: E402
from stacklite import networking  # noqa: E402

LOG = logging.getLogger(__name__)

#: The all-in-one's log rotation unless told otherwise: at most 300 MB.
LOG_MAX_SIZE_MB = 50
LOG_MAX_FILES = 5


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog='stacklite-aio',
        description='Run the stacklite control plane in one process.',
    )
    parser.add_argument(
        '--state-dir',
        required=True,
        type=Path,
        help='Directory for databases, credentials, '
        'instance disks, logs and clouds.yaml.',
    )
    parser.add_argument(
        '--computes',
        type=int,
        default=2,
        help='Number of compute agents (default 2).',
    )
    parser.add_argument(
        '--noauth',
        action='store_true',
        help='No authentication: every caller is admin.',
    )
    parser.add_argument('--api-host', default='127.0.0.1')
    parser.add_argument('--api-port', type=int, default=8774)
    parser.add_argument(
        '--baremetal-port',
        type=int,
        default=6385,
        help='Port of the Bare Metal API (default 6385).',
    )
    parser.add_argument(
        '--network-port',
        type=int,
        default=networking.DEFAULT_PORT,
        help='Port of the Networking API, neutron-lite-server (default '
        f'{networking.DEFAULT_PORT}).',
    )
    parser.add_argument(
        '--no-networking',
        action='store_true',
        help='No Networking API (neutron-lite-server).',
    )
    parser.add_argument(
        '--no-baremetal',
        action='store_true',
        help='Run nova_lite only: no ironic-lite-api and '
        'no bare metal conductor.',
    )
    parser.add_argument(
        '--baremetal-nodes',
        type=int,
        default=0,
        metavar='N',
        help='Enroll N fake-hardware nodes, serve them with an '
        '"ironic-compute" agent (the ironic virt driver) and create a '
        '"baremetal" flavor, so that servers boot on bare metal.',
    )
    parser.add_argument(
        '--baremetal-emulate',
        type=int,
        default=0,
        metavar='N',
        help='Start a Redfish emulator (sushy-tools) with N machines and '
        'an ironic-lite-agent per machine (disk files in the state '
        'directory), and enroll them as "redfish" nodes with the "agent" '
        'deploy interface: "openstack baremetal node provide" cleans '
        'them with the agent; then "openstack server create --flavor '
        'baremetal" deploys a server\'s image onto a disk (128 MiB '
        'files). They stop with the all-in-one and come back with it, on '
        'the same Redfish address and disks.',
    )
    parser.add_argument(
        '--baremetal-emulator-port',
        type=int,
        metavar='PORT',
        help='Port of the Redfish emulator of --baremetal-emulate '
        '(default: its port of the last run when free, else one the '
        'kernel offers, another if that is taken before it binds).',
    )
    parser.add_argument(
        '--baremetal-agent-ports',
        type=int,
        metavar='PORT',
        help="Port of the first emulated machine's agent, the others "
        'following (default: ports the kernel chooses, reported to the '
        'conductor by the agents).',
    )
    parser.add_argument('--driver', default='local', choices=['local', 'fake'])
    parser.add_argument('--debug', action='store_true')
    aio_identity.add_arguments(parser)
    parser.add_argument(
        '--log-max-size-mb',
        type=int,
        metavar='MB',
        help='Rotate DIR/stacklite.log when it reaches this size (default '
        f"{LOG_MAX_SIZE_MB}, or oslo.log's [DEFAULT]max_logfile_size_mb "
        'from a --config-file).',
    )
    parser.add_argument(
        '--log-max-files',
        type=int,
        metavar='N',
        help='Rotated log files kept (stacklite.log.1 ... .N; default '
        f"{LOG_MAX_FILES}, or oslo.log's [DEFAULT]max_logfile_count from a "
        '--config-file): the logs take at most N + 1 times '
        '--log-max-size-mb.',
    )
    parser.add_argument(
        '--config-file',
        action='append',
        default=[],
        type=Path,
        help='An oslo.config file of extra options (e.g. [virt_resources] '
        'capacity, allocation ratios); may be repeated. The options this '
        'command sets itself (bus, database, state paths, auth) win.',
    )
    parser.add_argument(
        '--config-dir',
        action='append',
        default=[],
        type=Path,
        help='A directory of *.conf files, read like --config-file.',
    )
    args = parser.parse_args(argv)
    if args.computes < 0:
        parser.error('--computes must be >= 0')
    for option in ('log_max_size_mb', 'log_max_files'):
        if getattr(args, option) is not None and getattr(args, option) < 1:
            parser.error(f'--{option.replace("_", "-")} must be >= 1')
    if args.baremetal_nodes < 0:
        parser.error('--baremetal-nodes must be >= 0')
    if args.baremetal_emulate < 0:
        parser.error('--baremetal-emulate must be >= 0')
    for option in ('baremetal_emulator_port', 'baremetal_agent_ports'):
        port = getattr(args, option)
        if port is not None and not 0 < port < 65536:
            parser.error(
                f'--{option.replace("_", "-")} must be a port (1-65535)'
            )
    aio_identity.check_arguments(parser, args)
    for option in ('baremetal_nodes', 'baremetal_emulate'):
        if getattr(args, option) and args.no_baremetal:
            parser.error(
                f'--{option.replace("_", "-")} needs the bare '
                'metal service (drop --no-baremetal)'
            )
    return args


def _credentials(state: Path) -> dict[str, str]:
    """admin and demo passwords, generated once and kept (0600)."""
    path = state / 'credentials.yaml'
    if path.exists():
        return cast('dict[str, str]', yaml.safe_load(path.read_text()))
    users = {
        'admin': secrets.token_urlsafe(16),
        'demo': secrets.token_urlsafe(16),
    }
    private.write_file(path, yaml.safe_dump(users))
    import bcrypt

    lines = [
        f'{user}:{bcrypt.hashpw(pw.encode(), bcrypt.gensalt()).decode()}'
        for user, pw in users.items()
    ]
    private.write_file(state / 'htpasswd', '\n'.join(lines) + '\n')
    return users


def _cloud(
    api_url: str,
    baremetal_url: str | None,
    user: str | None,
    password: str | None,
    network_url: str | None = None,
) -> dict[str, Any]:
    entry: dict[str, Any] = {
        # There is no identity service; these only satisfy the clients'
        # checks (e.g. "openstack flavor create" asserts identity v3).
        'identity_api_version': '3',
        'identity_endpoint_override': f'{api_url}/identity/v3',
        'compute_endpoint_override': f'{api_url}/v2.1',
        'image_endpoint_override': f'{api_url}/image',
    }
    if baremetal_url is not None:
        entry['baremetal_endpoint_override'] = baremetal_url
    if network_url is not None:
        entry['network_endpoint_override'] = network_url
    if user is None:
        entry.update(auth_type='none', auth={'endpoint': f'{api_url}/v2.1'})
    else:
        entry.update(
            auth_type='http_basic',
            auth={
                'username': user,
                'password': password,
                'endpoint': f'{api_url}/v2.1',
            },
        )
    return entry


def write_clouds_yaml(
    state: Path,
    api_url: str,
    baremetal_url: str | None,
    users: dict[str, str] | None,
    network_url: str | None = None,
) -> Path:
    if users is None:
        clouds = {
            'stacklite': _cloud(
                api_url, baremetal_url, None, None, network_url
            )
        }
    else:
        clouds = {
            'stacklite': _cloud(
                api_url, baremetal_url, 'admin', users['admin'], network_url
            ),
            'stacklite-demo': _cloud(
                api_url, baremetal_url, 'demo', users['demo'], network_url
            ),
        }
    path = state / 'clouds.yaml'
    private.write_file(
        path, yaml.safe_dump({'clouds': clouds}, sort_keys=False)
    )
    return path


def write_novarc(
    state: Path, api_url: str, users: dict[str, str] | None
) -> Path:
    """The environment python-novaclient's ``nova`` command needs (it
    does not read clouds.yaml's http_basic entries): the compute
    endpoint and credentials, and the project name and auth URL its
    shell insists on although http_basic uses neither."""
    endpoint = f'{api_url}/v2.1'
    if users is None:
        values = {'OS_AUTH_TYPE': 'none', 'OS_ENDPOINT': endpoint}
    else:
        values = {
            'OS_AUTH_TYPE': 'http_basic',
            'OS_ENDPOINT': endpoint,
            'OS_USERNAME': 'admin',
            'OS_PASSWORD': users['admin'],
        }
    values.update(
        OS_PROJECT_NAME='admin',
        OS_AUTH_URL=f'{api_url}/identity/v3',
        OS_COMPUTE_API_VERSION='2.latest',
    )
    path = state / 'novarc'
    private.write_file(
        path,
        ''.join(f'export {key}={value}\n' for key, value in values.items()),
    )
    return path


def configure(
    conf: cfg.ConfigOpts, args: argparse.Namespace, state: Path
) -> dict[str, str] | None:
    conf.set_override('transport_url', rpc.INPROC_URL)
    conf.set_override(
        'connection', f'sqlite:///{state / "nova.sqlite"}', group='database'
    )
    conf.set_override('state_path', str(state))
    conf.set_override('compute_driver', args.driver)
    conf.set_override('host', args.api_host, group='api')
    conf.set_override('port', args.api_port, group='api')
    conf.set_override('log_file', str(state / 'stacklite.log'))
    conf.set_override('debug', args.debug)
    _log_rotation(conf, args)
    if args.noauth:
        conf.set_override('auth_strategy', 'noauth')
        return None
    if args.identity == 'keystone':
        return None  # aio_identity.configure
    users = _credentials(state)
    conf.set_override('auth_strategy', 'http_basic')
    conf.set_override('http_basic_auth_user_file', str(state / 'htpasswd'))
    return users


def _log_rotation(conf: cfg.ConfigOpts, args: argparse.Namespace) -> None:
    """Rotate the log by size (oslo.log's own rotation: one process
    writes it). oslo.log's options in a --config-file may change the
    defaults (even to ``log_rotation_type = none`` for logrotate); the
    command line wins."""
    conf.set_default('log_rotation_type', 'size')
    conf.set_default('max_logfile_size_mb', LOG_MAX_SIZE_MB)
    conf.set_default('max_logfile_count', LOG_MAX_FILES)
    if args.log_max_size_mb is not None:
        conf.set_override('log_rotation_type', 'size')
        conf.set_override('max_logfile_size_mb', args.log_max_size_mb)
    if args.log_max_files is not None:
        conf.set_override('log_rotation_type', 'size')
        conf.set_override('max_logfile_count', args.log_max_files)


def agent_log_rotation(
    conf: cfg.ConfigOpts,
) -> emulated_machines.LogRotation | None:
    """The emulated machines' agents rotate their logs as the
    all-in-one does (when it rotates by size)."""
    if conf.log_rotation_type.lower() != 'size':
        return None
    return emulated_machines.LogRotation(
        conf.max_logfile_size_mb, conf.max_logfile_count
    )


def serves_bare_metal(args: argparse.Namespace) -> bool:
    """Whether nova_lite serves bare metal nodes (the ironic-compute
    agent and the ``baremetal`` flavor): with --baremetal-nodes, and with
    --baremetal-emulate, whose machines take servers once provided."""
    return bool(args.baremetal_nodes or args.baremetal_emulate)


def build(
    conf: cfg.ConfigOpts,
    args: argparse.Namespace,
    state: Path,
    bm_conf: cfg.ConfigOpts | None,
    net_conf: cfg.ConfigOpts | None = None,
) -> lite_service.Launcher:
    db_api.configure(conf)
    migration.db_sync(db_api.get_engine())
    launcher = lite_service.Launcher()
    launcher.add(conductor_svc.conductor_service(conf))
    for index in range(1, args.computes + 1):
        host = f'compute-{index}'
        path = state / host
        path.mkdir(exist_ok=True)
        launcher.add(
            compute_svc.compute_service(
                conf, host, str(path), search_config_dirs=False
            )
        )
    launcher.add(api_svc.api_server(conf))
    if net_conf is not None:
        for runnable in networking.build(net_conf):
            launcher.add(runnable)
    if bm_conf is not None:
        for runnable in baremetal.build(bm_conf, launcher):
            launcher.add(runnable)
    if serves_bare_metal(args):
        # After the Bare Metal API: the agent starts by listing nodes.
        path = state / baremetal_pool.AGENT_HOST
        path.mkdir(exist_ok=True)
        launcher.add(
            compute_svc.compute_service(
                conf,
                baremetal_pool.AGENT_HOST,
                str(path),
                search_config_dirs=False,
                driver='ironic',
            )
        )
    return launcher


def _usage(
    clouds: Path,
    api_url: str,
    baremetal_url: str | None,
    identity_kind: str,
    emulated: int = 0,
    identity_url: str | None = None,
    network_url: str | None = None,
) -> str:
    bm = f', Bare Metal API {baremetal_url}' if baremetal_url else ''
    if network_url:
        bm += f', Networking API {network_url}'
    who = {
        'noauth': ' (no authentication)',
        'http_basic': ' (http_basic authentication)',
    }.get(identity_kind, f', Identity (Keystone) {identity_url}')
    keystone = identity_kind == 'keystone'
    # Nodes the all-in-one enrolls belong to no project: the Bare Metal
    # API shows them to its system-scoped administrators.
    system = '--os-cloud stacklite-system ' if keystone else ''
    rc = 'openrc' if keystone else 'novarc'
    return (
        f'stacklite is running: Compute API {api_url}/v2.1, '
        f'image catalog {api_url}/image{bm}{who}.\n'
        f'  export OS_CLIENT_CONFIG_FILE={clouds} OS_CLOUD=stacklite\n'
        '  openstack flavor create --vcpus 1 --ram 512 --disk 1 m1.small\n'
        '  head -c 1048576 /dev/urandom > cirros.img\n'
        '  openstack image create --disk-format raw --container-format '
        'bare --file cirros.img cirros\n'
        '  openstack server create --flavor m1.small --image cirros '
        '--no-network vm1\n'
        '  openstack server list\n'
        + (
            '  openstack network create net1 && openstack subnet create '
            '--network net1 --subnet-range 10.0.0.0/24 sub1\n'
            if network_url
            else ''
        )
        + (
            '  openstack quota show && openstack availability zone list\n'
            if keystone
            else ''
        )
        + (
            '  openstack baremetal node create --driver fake-hardware '
            '--name bm-1\n'
            if baremetal_url
            else ''
        )
        + (
            f'  openstack {system}baremetal node manage emulated-1 --wait && '
            f'openstack {system}baremetal node provide emulated-1   # agent '
            'cleaning\n'
            if emulated
            else ''
        )
        + (
            'Clouds: stacklite (admin of project admin), stacklite-demo '
            '(demo of project demo), stacklite-system (admin of the system:'
            ' the nodes the all-in-one enrolled).\n'
            if keystone
            else ''
        )
        + 'Progress of long operations (nodes by state and clean step, '
        'servers by task_state): stacklite-top (--once for one screen)\n'
        + f'python-novaclient (in a shell of its own): '
        f'(. {clouds.parent / rc} && nova list)\n'
        + f'Logs: {clouds.parent / "stacklite.log"}'
        + (
            f', {clouds.parent / "keystone" / "keystone.log"}'
            if keystone
            else ''
        )
        + '. Stop with Ctrl-C.'
    )


class _Announcement:
    """The all-in-one's last runnable: makes what was asked for usable
    (``prepare``), then prints the ready line."""

    def __init__(self, prepare: Callable[[], None], message: str) -> None:
        self.prepare = prepare
        self.message = message

    def start(self) -> None:
        self.prepare()
        print(self.message, flush=True)

    def stop(self) -> None:
        pass


def _oslo_argv(args: argparse.Namespace) -> list[str]:
    argv: list[str] = []
    for path in args.config_file:
        argv += ['--config-file', str(path.resolve())]
    for path in args.config_dir:
        argv += ['--config-dir', str(path.resolve())]
    return argv


def _errors_to_terminal() -> None:
    """Errors also go to stderr: the log file is in the state directory,
    and whoever started the all-in-one is looking at the terminal (a
    port in use, a bad option ...)."""
    handler = std_logging.StreamHandler(sys.stderr)
    handler.setLevel(std_logging.ERROR)
    handler.setFormatter(std_logging.Formatter('%(message)s'))
    std_logging.getLogger().addHandler(handler)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    state = args.state_dir.resolve()
    private.restrict_umask()
    state.mkdir(parents=True, exist_ok=True)
    conf = common.load_config(_oslo_argv(args), 'stacklite-aio')
    users = configure(conf, args, state)
    logging.setup(conf, common.PROJECT)
    _errors_to_terminal()
    api_url = f'http://{args.api_host}:{args.api_port}'
    # The compute agents' snapshots go to the image API.
    baremetal.configure_image_service(conf, f'{api_url}/image', users)
    bm_url = None
    bm_conf = None
    net_url = None
    net_conf = None
    if not args.no_networking:
        net_url = f'http://{args.api_host}:{args.network_port}'
        net_conf = networking.configure(args, state, conf, _oslo_argv(args))
    if not args.no_baremetal:
        bm_url = f'http://{args.api_host}:{args.baremetal_port}'
        bm_conf = baremetal.configure(args, state, conf, _oslo_argv(args))
        baremetal.configure_image_service(bm_conf, f'{api_url}/image', users)
        if serves_bare_metal(args):
            baremetal_pool.configure(conf, bm_url, users)
        if args.baremetal_emulate:
            baremetal_emulate.configure(bm_conf)
    # State from an earlier run (or a release that did not restrict it).
    private.tighten(
        [
            state,
            *private.service_paths(conf),
            *(
                private.sqlite_files(bm_conf.database.connection)
                if bm_conf
                else []
            ),
            *(
                private.sqlite_files(net_conf.database.connection)
                if net_conf
                else []
            ),
        ]
    )

    def body() -> int:
        keystone = None
        if args.identity == 'keystone':
            keystone = aio_identity.configure(
                conf, bm_conf, args, state, api_url, bm_url, net_conf, net_url
            )
        launcher = build(conf, args, state, bm_conf, net_conf)
        if keystone is not None:
            launcher.runnables.insert(0, keystone)  # the APIs need it
            keystone.on_give_up = lambda: launcher.request_stop(1)
            clouds = aio_identity.write_client_files(state, keystone)
            connect = aio_identity.connector(clouds)
        else:
            clouds = write_clouds_yaml(state, api_url, bm_url, users, net_url)
            write_novarc(state, api_url, users)
            connect = baremetal_pool.basic_connector(
                api_url, bm_url or '', users
            )
        machines = None
        if args.baremetal_emulate and bm_url:
            machines = baremetal_emulate.start(
                state,
                args.baremetal_emulate,
                bm_url,
                agent_log_rotation(conf),
                args.baremetal_emulator_port,
                args.baremetal_agent_ports,
            )

        def prepare() -> None:
            # Ready means usable: the nodes asked for are enrolled (and,
            # with --baremetal-nodes, offered to the scheduler).
            if serves_bare_metal(args) and bm_url:
                baremetal_pool.provide_and_offer(
                    connect, conf, args.baremetal_nodes
                )
            if machines is not None and bm_url:
                baremetal_emulate.enroll_machines(connect, machines)

        # Last of the start: the launcher's signal handling covers it
        # (a SIGTERM meanwhile stops what started, as during start-up).
        launcher.add(
            _Announcement(
                prepare,
                _usage(
                    clouds,
                    api_url,
                    bm_url,
                    args.identity,
                    args.baremetal_emulate,
                    keystone.auth_url if keystone else None,
                    net_url,
                ),
            )
        )
        try:
            return launcher.run()
        finally:
            if machines is not None:
                machines.stop()

    return common.run_daemon('stacklite-aio', body)
