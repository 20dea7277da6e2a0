"""Start-up and failure reporting shared by every daemon.

A daemon's body runs under :func:`run`: a failure the operator can fix
(bad configuration, no database) becomes one log line that says what to
fix and exit status 1, or :data:`EXIT_REFUSED` for a refusal that a
restart cannot fix; anything else propagates with its traceback.
"""

from collections.abc import Callable
from typing import Any

from oslo_config import cfg
from oslo_db import exception as db_exc
from oslo_log import log as logging
import sqlalchemy.exc

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


def common_failure(
    name: str,
    exc: Exception,
    config_errors: tuple[type, ...],
    sync_command: str,
) -> str | None:
    """The line for configuration and database failures, else None."""
    if isinstance(exc, (*config_errors, cfg.Error, RuntimeError)):
        return f'{name} cannot start: {exc}'
    if isinstance(
        exc,
        (
            db_exc.DBConnectionError,
            DatabaseUnavailable,
            sqlalchemy.exc.OperationalError,
        ),
    ):
        return (
            f'{name} cannot connect to the database: '
            f'{root_cause(exc)}. Check [database]connection and that '
            f'the server is up.'
        )
    if isinstance(exc, db_exc.DBError):
        return (
            f'{name}: database error: {exc.inner_exception or exc}. '
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
