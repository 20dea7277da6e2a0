"""Start-up and failure reporting shared by every daemon.

A daemon's body runs under :func:`run`: a failure the operator can fix
(bad configuration, no database) becomes one log line that says what to
fix and exit status 1, or :data:`EXIT_REFUSED` for a refusal that a
restart cannot fix; anything else propagates with its traceback.
"""

from collections.abc import Callable
import sys
from typing import Any

from oslo_config import cfg
from oslo_log import log as logging

from lite_common.exception import DatabaseUnavailable

LOG = logging.getLogger(__name__)

# Exit status of a refusal that a restart cannot fix (sysexits EX_CONFIG):
# the systemd units do not restart on it (RestartPreventExitStatus=).
EXIT_REFUSED = 78


def root_cause(exc: Exception) -> object:
    """The driver's own error inside oslo.db and SQLAlchemy wrappers
    (and inside DatabaseUnavailable, once it was waited out)."""
    if isinstance(exc, DatabaseUnavailable) and isinstance(
        exc.__cause__, Exception
    ):
        exc = exc.__cause__
    inner = getattr(exc, 'inner_exception', None) or exc
    return getattr(inner, 'orig', None) or inner


def _database_errors() -> tuple[
    tuple[type[Exception], ...], tuple[type[Exception], ...]
]:
    """(could not connect, any other database error): the classes of
    oslo.db and SQLAlchemy once this process has imported them. A
    daemon without a database (a compute agent) does not import them:
    none of their errors can reach it."""
    connect: list[type[Exception]] = [DatabaseUnavailable]
    other: list[type[Exception]] = []
    if 'oslo_db.exception' in sys.modules:
        from oslo_db import exception as db_exc

        connect.append(db_exc.DBConnectionError)
        other.append(db_exc.DBError)
    if 'sqlalchemy.exc' in sys.modules:
        from sqlalchemy import exc as sa_exc

        connect.append(sa_exc.OperationalError)
    return tuple(connect), tuple(other)


def common_failure(
    name: str,
    exc: Exception,
    config_errors: tuple[type, ...],
    sync_command: str,
) -> str | None:
    """The line for configuration and database failures, else None."""
    if isinstance(exc, (*config_errors, cfg.Error, RuntimeError)):
        return f'{name} cannot start: {exc}'
    connect, other = _database_errors()
    if isinstance(exc, connect):
        return (
            f'{name} cannot connect to the database: '
            f'{root_cause(exc)}. Check [database]connection and that '
            f'the server is up.'
        )
    if isinstance(exc, other):
        inner = getattr(exc, 'inner_exception', None)
        return (
            f'{name}: database error: {inner or exc}. '
            f'Has "{sync_command}" been run?'
        )
    return None


# exception -> (message, refused) or None for an unexpected one.
Classifier = Callable[[Exception], tuple[str, bool] | None]


def run(body: Callable[[], Any], classify: Classifier) -> int:
    """Run ``body``; a known failure is one clear log line."""
    try:
        return int(body() or 0)
    except Exception as exc:
        known = classify(exc)
        if known is None:
            raise
    message, refused = known
    # Logged outside the except block: oslo.log would append the
    # exception, repeating the message.
    LOG.error('%s', message)
    return EXIT_REFUSED if refused else 1
