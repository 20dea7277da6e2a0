"""Start-up shared by the nova_lite daemons: config, logging, errors."""

from collections.abc import Callable
import sys
from typing import Any

from oslo_config import cfg
from oslo_db import exception as db_exc
from oslo_log import log as logging
import sqlalchemy.exc

from nova_lite import conf as nova_conf
from nova_lite import exception

LOG = logging.getLogger(__name__)
PROJECT = 'nova-lite'


def load_config(argv: list[str], name: str,
                conf: cfg.ConfigOpts | None = None) -> cfg.ConfigOpts:
    """Register options, parse the command line and files, set up logs."""
    conf = conf or cfg.CONF
    nova_conf.register_all(conf)
    try:
        conf(argv, project=PROJECT, prog=name)
    except cfg.Error as exc:
        sys.exit(f'{name}: invalid configuration: {exc}')
    logging.setup(conf, PROJECT)
    return conf


def _root_cause(exc: Exception) -> object:
    """The driver's own error inside oslo.db and SQLAlchemy wrappers."""
    inner = getattr(exc, 'inner_exception', None) or exc
    return getattr(inner, 'orig', None) or inner


# Exit status of a refusal that a restart cannot fix (sysexits EX_CONFIG):
# the systemd units do not restart on it (RestartPreventExitStatus=).
EXIT_REFUSED = 78


def _failure(name: str, exc: Exception) -> str | None:
    """The one line an operator reads for a known failure, else None."""
    if isinstance(exc, exception.ComputeIdentityError):
        return f'{name} refuses to start: {exc}'
    if isinstance(exc, (exception.ConfigError, cfg.Error, RuntimeError)):
        return f'{name} cannot start: {exc}'
    if isinstance(exc, (db_exc.DBConnectionError,
                        sqlalchemy.exc.OperationalError)):
        return (f'{name} cannot connect to the database: '
                f'{_root_cause(exc)}. Check [database]connection and that '
                f'the server is up.')
    if isinstance(exc, db_exc.DBError):
        return (f'{name}: database error: {exc.inner_exception or exc}. '
                f'Has "nova-lite-manage db sync" been run?')
    return None


def run_daemon(name: str, body: Callable[[], Any]) -> int:
    """Run ``body``; a known failure is one clear log line and exit 1,
    or EXIT_REFUSED when a compute agent refuses to start."""
    try:
        return int(body() or 0)
    except Exception as exc:
        message = _failure(name, exc)
        if message is None:
            raise
        refused = isinstance(exc, exception.ComputeIdentityError)
    # Logged outside the except block: oslo.log would append the
    # exception, repeating the message.
    LOG.error('%s', message)
    return EXIT_REFUSED if refused else 1
