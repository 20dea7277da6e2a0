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


def run_daemon(name: str, body: Callable[[], Any]) -> int:
    """Run ``body``; a known failure is one clear log line and exit 1."""
    try:
        return int(body() or 0)
    except (exception.ConfigError, cfg.Error) as exc:
        LOG.error('%s cannot start: %s', name, exc)
    except (db_exc.DBConnectionError, sqlalchemy.exc.OperationalError) as exc:
        LOG.error('%s cannot connect to the database: %s. Check '
                  '[database]connection and that the server is up.',
                  name, _root_cause(exc))
    except db_exc.DBError as exc:
        LOG.error('%s: database error: %s. Has "nova-lite-manage db '
                  'sync" been run?', name, exc.inner_exception or exc)
    except RuntimeError as exc:
        LOG.error('%s cannot start: %s', name, exc)
    return 1
