"""The networking part of the all-in-one: neutron-lite-server.

neutron_lite runs on a configuration object of its own, reading the same
extra configuration files, with its own SQLite database in the state
directory; the same authentication as the other two APIs. It records
networks, subnets and ports and hands out addresses: nothing forwards
packets.
"""

import argparse
from pathlib import Path

from oslo_config import cfg

from lite_common import service as lite_service
from neutron_lite import conf as neutron_conf
from neutron_lite.db import api as neutron_db
from neutron_lite.db import migration as neutron_migration

DEFAULT_PORT = 9696


def configure(
    args: argparse.Namespace,
    state: Path,
    nova: cfg.ConfigOpts,
    argv: list[str],
) -> cfg.ConfigOpts:
    """neutron_lite's configuration, with what the all-in-one decides."""
    conf = cfg.ConfigOpts()
    neutron_conf.register_all(conf)
    conf(
        argv,
        project='neutron-lite',
        prog='stacklite-aio',
        default_config_files=[],
    )
    conf.set_override(
        'connection',
        f'sqlite:///{state / "neutron.sqlite"}',
        group='database',
    )
    conf.set_override('host_ip', args.api_host, group='api')
    conf.set_override('port', args.network_port, group='api')
    # One authentication for every API: the same users and passwords.
    for name in ('auth_strategy', 'http_basic_auth_user_file'):
        conf.set_override(name, getattr(nova, name))
    return conf


def build(conf: cfg.ConfigOpts) -> list[lite_service.Runnable]:
    """The API server (schema created or upgraded)."""
    from neutron_lite.cmd import server

    neutron_db.configure(conf)
    neutron_migration.db_sync(neutron_db.get_engine())
    return [server.api_server(conf)]
