"""ironic-lite-agent: the agent of one emulated machine.

    ironic-lite-agent [--config-file FILE] [--api_url URL]
        [--mac_addresses MAC,...] [--disk_files PATH,...]
        [--listen_port PORT]

Serves the command API on ``listen_host:listen_port``, looks the
machine up and heartbeats until SIGTERM or SIGINT.
"""

from pathlib import Path
import signal
import sys
import threading

from oslo_config import cfg
from oslo_log import log as logging

from ironic_lite.agent import api
from ironic_lite.agent import commands
from ironic_lite.agent import config
from ironic_lite.agent import heartbeater
from lite_common.wsgi import server

NAME = 'ironic-lite-agent'
LOG = logging.getLogger(__name__)


def load_config(argv: list[str]) -> cfg.ConfigOpts:
    conf = cfg.ConfigOpts()
    config.register_opts(conf)
    logging.register_options(conf)
    conf(argv, project='ironic-lite', prog=NAME, default_config_files=[])
    logging.setup(conf, NAME)
    return conf


def build(
    conf: cfg.ConfigOpts,
) -> tuple[server.APIServer, heartbeater.Heartbeater, commands.CommandRunner]:
    """The command API server (bound) and the heartbeater (not
    started)."""
    holder: dict[str, heartbeater.Heartbeater] = {}
    runner = commands.CommandRunner(
        [Path(p) for p in conf.disk_files],
        conf.shred_random_overwrite_iterations,
        conf.shred_final_overwrite_with_zeros,
        Path(conf.rescue_password_file),
        # The rescue environment takes over: the agent stops
        # heartbeating, and looks the machine up again as after a boot.
        lambda: holder['beat'].forget(),
        conf.efi_system_partition_size,
    )
    app = api.AgentAPI(runner, lambda: holder['beat'].token)
    http = server.APIServer(
        NAME,
        app,
        conf.listen_host,
        conf.listen_port,
        server.Settings(threads=4),
    )
    port = http.bind_addr[1]
    host = conf.advertise_host or conf.listen_host
    beat = heartbeater.Heartbeater(
        conf.api_url,
        list(conf.mac_addresses),
        f'http://{host}:{port}',
        conf.lookup_interval,
        conf.heartbeat_interval,
        runner.status_message,
    )
    holder['beat'] = beat
    return http, beat, runner


def main(argv: list[str] | None = None) -> int:
    conf = load_config(sys.argv[1:] if argv is None else argv)
    if not conf.mac_addresses:
        sys.exit(
            f'{NAME}: --mac_addresses is required (the lookup needs them)'
        )
    http, beat, runner = build(conf)
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_args: stop.set())
    http.start()
    LOG.info(
        '%s serving on %s, disks %s',
        NAME,
        beat.callback_url,
        ', '.join(conf.disk_files) or 'none',
    )
    beat.start()
    while not stop.wait(1.0):
        pass
    runner.stopping.set()
    beat.stop()
    http.stop()
    return 0


if __name__ == '__main__':
    sys.exit(main())
