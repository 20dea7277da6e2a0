"""Start-up shared by the nova_lite daemons: config, logging, errors."""

from collections.abc import Callable
from pathlib import Path
import sys
from typing import Any

from oslo_config import cfg
from oslo_log import log as logging

from lite_common import daemon
from lite_common import private
from nova_lite import conf as nova_conf
from nova_lite import exception

LOG = logging.getLogger(__name__)
PROJECT = 'nova-lite'


def load_config(
    argv: list[str],
    name: str,
    conf: cfg.ConfigOpts | None = None,
    database: bool = True,
) -> cfg.ConfigOpts:
    """Register options, parse the command line and files, set up logs
    (``database``: see :func:`nova_lite.conf.register_all`)."""
    private.restrict_umask()
    conf = conf or cfg.CONF
    nova_conf.register_all(conf, database)
    try:
        conf(argv, project=PROJECT, prog=name)
    except cfg.Error as exc:
        sys.exit(f'{name}: invalid configuration: {exc}')
    logging.setup(conf, PROJECT)
    private.tighten(private.service_paths(conf, [Path(conf.state_path)]))
    return conf


EXIT_REFUSED = daemon.EXIT_REFUSED


def _classify(name: str, exc: Exception) -> tuple[str, bool] | None:
    """(the line an operator reads, refused) for a known failure."""
    if isinstance(exc, exception.ComputeIdentityError):
        return f'{name} refuses to start: {exc}', True
    if isinstance(exc, exception.ComputeHostInUse):
        # Exit 1: a restart once the other process stopped may succeed.
        return f'{name} refuses to start: {exc}', False
    message = daemon.common_failure(
        name, exc, (exception.ConfigError,), 'nova-lite-manage db sync'
    )
    return None if message is None else (message, False)


def run_daemon(name: str, body: Callable[[], Any]) -> int:
    """Run ``body``; a known failure is one clear log line and exit 1,
    or EXIT_REFUSED when a compute agent refuses to start."""
    return daemon.run(body, lambda exc: _classify(name, exc))
