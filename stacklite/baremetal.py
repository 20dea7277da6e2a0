"""The bare metal half of the all-in-one: ironic-lite-api and a conductor.

ironic_lite runs on a configuration object of its own (its ``[api]``
group is not nova_lite's), reading the same extra configuration files,
with its own SQLite database in the state directory and the same
in-process bus as nova_lite.
"""

import argparse
from pathlib import Path

from oslo_config import cfg

from ironic_lite import conf as ironic_conf
from ironic_lite.db import api as ironic_db
from ironic_lite.db import migration as ironic_migration
from lite_common import daemon
from lite_common import rpc
from lite_common import service as lite_service

#: The conductor's host name: its RPC server and the holder of its locks.
CONDUCTOR_HOST = 'aio-conductor'


def configure(
    args: argparse.Namespace,
    state: Path,
    nova: cfg.ConfigOpts,
    argv: list[str],
) -> cfg.ConfigOpts:
    """ironic_lite's configuration, with what the all-in-one decides."""
    conf = cfg.ConfigOpts()
    ironic_conf.register_all(conf)
    conf(
        argv,
        project='ironic-lite',
        prog='stacklite-aio',
        default_config_files=[],
    )
    conf.set_override('transport_url', rpc.INPROC_URL)
    conf.set_override(
        'connection', f'sqlite:///{state / "ironic.sqlite"}', group='database'
    )
    conf.set_override('host', CONDUCTOR_HOST)
    conf.set_override('host_ip', args.api_host, group='api')
    conf.set_override('port', args.baremetal_port, group='api')
    # One authentication for both APIs: the same users and passwords.
    for name in ('auth_strategy', 'http_basic_auth_user_file'):
        conf.set_override(name, getattr(nova, name))
    conf.set_override(
        'image_cache_dir', str(state / 'ironic-image-cache'), group='deploy'
    )
    return conf


def build(
    conf: cfg.ConfigOpts, launcher: lite_service.Launcher
) -> list[lite_service.Runnable]:
    """The conductor and the API server (schema created or upgraded);
    should another process take the conductor's host name over, the
    conductor stops ``launcher`` (the all-in-one) with exit status 78."""
    from ironic_lite import service
    from ironic_lite.cmd import api as ironic_api

    ironic_db.configure(conf)
    ironic_migration.db_sync(ironic_db.get_engine())
    return [
        service.conductor_service(
            conf, lambda: launcher.request_stop(daemon.EXIT_REFUSED)
        ),
        ironic_api.api_server(conf),
    ]


def configure_image_service(
    conf: cfg.ConfigOpts, image_url: str, users: dict[str, str] | None
) -> None:
    """``[glance]`` without Keystone (of the conductor or of the compute
    agents): the all-in-one's image API by its
    URL, as its administrator (http_basic) or anonymously (noauth).
    With Keystone (no ``users`` here), :func:`stacklite.aio_identity.
    configure` sets it."""
    if conf.auth_strategy == 'noauth':
        conf.set_override('endpoint_override', image_url, group='glance')
        conf.set_override('auth_type', 'none', group='glance')
    elif users is not None:
        conf.set_override('endpoint_override', image_url, group='glance')
        conf.set_override('auth_type', 'http_basic', group='glance')
        conf.set_override('username', 'admin', group='glance')
        conf.set_override('password', users['admin'], group='glance')
