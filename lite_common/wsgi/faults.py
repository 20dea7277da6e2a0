"""Error rendering and the fault wrapper.

Handlers raise ``webob.exc`` exceptions with an ``explanation``; the
fault wrapper renders them with the API's own :class:`ErrorFormatter`,
and turns any other exception into a logged 500 in the same format,
except database trouble: within the wrapper, a transient database error
is waited out for ``[database]request_retry_timeout`` seconds
(:mod:`lite_common.db_retry`), and one that outlasts it (or
:class:`~lite_common.exception.DatabaseUnavailable`, also from a
conductor over RPC) is a 503 with ``Retry-After``: the client may try
again, nothing is wrong with its request.
"""

from collections.abc import Callable
from typing import Any

import orjson
from oslo_log import log as logging
import webob
import webob.exc

from lite_common import db_retry
from lite_common import exception
from lite_common.wsgi.text import printable
from lite_common.wsgi.text import url_text

LOG = logging.getLogger(__name__)

__all__ = ['url_text']

# status, message, request -> (content type, body)
ErrorFormatter = Callable[[int, str, webob.Request], tuple[str, bytes]]


def plain_error(
    status: int, message: str, req: webob.Request
) -> tuple[str, bytes]:
    """A JSON error body for a server without an API format."""
    return 'application/json', orjson.dumps({'message': message})


#: The longest error message sent; anything a handler echoed beyond it
#: (a huge name in "Flavor ... could not be found.") is cut.
MESSAGE_LIMIT = 1024


def _cut(message: str) -> str:
    if len(message) > MESSAGE_LIMIT:
        return message[:MESSAGE_LIMIT] + '...'
    return message


def server_error_body(
    status: int, message: str, formatter: ErrorFormatter
) -> tuple[str, bytes]:
    """The content type and body of an answer the server itself writes,
    before or without the application (a connection beyond the limit,
    a request it could not parse): the API's format all the same, since
    clients parse every error body with it."""
    return formatter(
        status, _cut(printable(message)), webob.Request.blank('/')
    )


def json_error(
    status: int,
    message: str,
    req: webob.Request,
    formatter: ErrorFormatter,
    headers: list[tuple[str, str]] | None = None,
) -> webob.Response:
    content_type, body = formatter(status, _cut(message), req)
    response = webob.Response(
        status=status, body=body, content_type=content_type, charset='UTF-8'
    )
    for name, value in headers or []:
        response.headers[name] = value
    return response


def _message(exc: webob.exc.HTTPException) -> str:
    return str(exc.explanation or exc.detail or exc.title)


#: Seconds a client is asked to wait after a 503 (database trouble, no
#: conductor answered, no free worker) that says no other time.
RETRY_AFTER = 5


def _kept_headers(exc: webob.exc.HTTPException) -> list[tuple[str, str]]:
    """The headers of a handler's error that its rendering keeps; a 503
    always says when to come back."""
    headers = [
        (k, v)
        for k, v in exc.headers.items()
        if k.lower()
        in (
            'allow',
            'www-authenticate',
            'retry-after',
            'location',
            'content-range',  # a 416 says how long the data is
        )
    ]
    if exc.code == 503 and not any(
        k.lower() == 'retry-after' for k, _ in headers
    ):
        headers.append(('Retry-After', str(RETRY_AFTER)))
    return headers


def _is_database_trouble(exc: Exception) -> bool:
    return isinstance(exc, exception.DatabaseUnavailable) or (
        db_retry.is_transient(exc)
    )


def _where(environ: dict[str, Any]) -> tuple[str, str]:
    return (
        printable(environ.get('REQUEST_METHOD')),
        printable(
            url_text(
                environ.get('SCRIPT_NAME', '') + environ.get('PATH_INFO', '')
            )
        ),
    )


def database_unavailable(
    environ: dict[str, Any],
    req: webob.Request,
    exc: Exception,
    formatter: ErrorFormatter,
    stored: bool = False,
) -> webob.Response:
    """The 503 of database trouble, logged without a traceback (the
    driver's message stays in the log: it may name the database user);
    ``stored``: the request committed a change before."""
    LOG.warning(
        'Database unavailable while handling %s %s: %s', *_where(environ), exc
    )
    message = (
        'The service cannot reach its database at the moment; retry later.'
    )
    if stored or getattr(exc, 'kwargs', {}).get('outcome_unknown'):
        message += ' The change may or may not have been stored.'
    message += f' Request id {environ.get("openstack.request_id", "")}.'
    return json_error(
        503, message, req, formatter, [('Retry-After', str(RETRY_AFTER))]
    )


def unexpected_error(
    environ: dict[str, Any], req: webob.Request, formatter: ErrorFormatter
) -> webob.Response:
    """The logged 500 of anything else."""
    LOG.exception('Unexpected error handling %s %s', *_where(environ))
    return json_error(
        500,
        'Unexpected API Error. Please report this at your service '
        'provider and attach the request id '
        f'{environ.get("openstack.request_id", "")} if possible.',
        req,
        formatter,
    )


class FaultWrapper:
    """Renders every error in the API's format; logs the unexpected."""

    def __init__(self, app: Any, formatter: ErrorFormatter) -> None:
        self.app = app
        self.formatter = formatter

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        req = webob.Request(environ)
        commits = db_retry.commit_count()
        try:
            with db_retry.serving_request():
                return self.app(environ, start_response)
        except webob.exc.HTTPException as exc:
            response = json_error(
                exc.code,
                _message(exc),
                req,
                self.formatter,
                _kept_headers(exc),
            )
        except Exception as exc:
            if _is_database_trouble(exc):
                response = database_unavailable(
                    environ,
                    req,
                    exc,
                    self.formatter,
                    db_retry.commit_count() != commits,
                )
            else:
                response = unexpected_error(environ, req, self.formatter)
        return response(environ, start_response)


def json_response(
    body: Any, status: int = 200, headers: dict[str, str] | None = None
) -> webob.Response:
    response = webob.Response(
        status=status, content_type='application/json', charset='UTF-8'
    )
    # orjson: a detailed list of 1,000 servers is ~1.5 MB of JSON,
    # which the standard library takes ~10 ms to write.
    response.body = orjson.dumps(body, option=orjson.OPT_NON_STR_KEYS)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response
