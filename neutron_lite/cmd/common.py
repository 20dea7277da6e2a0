"""Start-up shared by the neutron_lite commands: config, logging,
errors."""

from collections.abc import Callable
import sys
from typing import Any

from oslo_config import cfg
from oslo_log import log as logging

from lite_common import daemon
from lite_common import private
from lite_common import service as lite_service
from neutron_lite import conf as neutron_conf
from neutron_lite import exception
from neutron_lite.db import api as db_api

PROJECT = 'neutron-lite'


def load_config(
    argv: list[str], name: str, conf: cfg.ConfigOpts | None = None
) -> cfg.ConfigOpts:
    """Register options, parse the command line and files, set up logs."""
    private.restrict_umask()
    conf = conf if conf is not None else cfg.CONF
    neutron_conf.register_all(conf)
    try:
        conf(argv, project=PROJECT, prog=name)
    except cfg.Error as exc:
        sys.exit(f'{name}: invalid configuration: {exc}')
    logging.setup(conf, PROJECT)
    private.tighten(private.service_paths(conf))
    return conf


def _classify(name: str, exc: Exception) -> tuple[str, bool] | None:
    message = daemon.common_failure(
        name, exc, (exception.ConfigError,), 'neutron-lite-db-manage'
    )
    return None if message is None else (message, False)


def serve(
    name: str,
    make_service: Callable[
        [cfg.ConfigOpts, lite_service.Launcher], lite_service.Runnable
    ],
) -> int:
    """The daemon ``name``: load the configuration, check that the
    database is reachable, then run the service until SIGTERM or
    SIGINT."""
    conf = load_config(sys.argv[1:], name)

    def body() -> Any:
        db_api.configure(conf)
        db_api.get_engine().connect().close()
        launcher = lite_service.Launcher()
        launcher.add(make_service(conf, launcher))
        return launcher.run()

    return daemon.run(body, lambda exc: _classify(name, exc))
