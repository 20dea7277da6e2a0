"""The base of both services' exceptions.

A message is built from keyword arguments (``msg_fmt % kwargs``), so an
exception survives an RPC round trip: oslo.messaging re-creates it on
the caller's side from its message and keyword arguments.
"""

from typing import Any


class LiteException(Exception):
    msg_fmt = 'An unknown exception occurred.'

    def __init__(self, message: str | None = None, **kwargs: Any) -> None:
        self.kwargs = kwargs
        if message is None:
            try:
                message = self.msg_fmt % kwargs
            except (KeyError, TypeError):
                message = self.msg_fmt
        super().__init__(message)

    def format_message(self) -> str:
        return str(self.args[0])


class DatabaseUnavailable(LiteException):
    """The database could not be reached (or kept failing transiently)
    for as long as the caller may wait: the request is answered 503 with
    ``Retry-After``, a flow fails with this message (see
    :mod:`lite_common.db_retry`). RPC carries it back as itself."""

    msg_fmt = 'The database is unavailable: %(reason)s'


class ConfigError(LiteException):
    """A configuration that cannot work (each service has its own
    class of the same name and message)."""

    msg_fmt = 'Invalid configuration: %(reason)s'
