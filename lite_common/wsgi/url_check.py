"""A 400 for a URL that is not UTF-8, before anything decodes it.

WSGI servers hand the path over as latin-1 decoded bytes (PEP 3333);
webob, the router and the handlers read it, and the query string, as
UTF-8 and would fail with a ``UnicodeDecodeError`` (a 500) on anything
else. A NUL character is refused too: PostgreSQL cannot store or
compare it, so a name or id holding one would fail in the database (a
500). This middleware answers such a request with a 400 in the API's
own error format instead.
"""

from typing import Any
import urllib.parse

import webob

from lite_common.wsgi import faults

MESSAGE = (
    'The URL (path or query string) is not valid UTF-8 or holds '
    'a NUL character.'
)


def undecodable(environ: dict[str, Any]) -> bool:
    """Whether the path or the query string is not UTF-8 (webob, and so
    every layer, would fail to decode it) or holds a NUL character."""
    try:
        path = environ.get('PATH_INFO', '').encode('latin-1')
        path.decode('utf-8')
        query = urllib.parse.unquote_to_bytes(
            environ.get('QUERY_STRING', '').encode('latin-1')
        )
        query.decode('utf-8')
    except (UnicodeEncodeError, UnicodeDecodeError):
        return True
    return b'\0' in path or b'\0' in query


def check_url(app: Any, formatter: faults.ErrorFormatter) -> Any:
    """``app`` behind a 400 (rendered by ``formatter``) for a URL that
    is not UTF-8."""

    def middleware(environ: dict[str, Any], start_response: Any) -> Any:
        if undecodable(environ):
            response = faults.json_error(
                400, MESSAGE, webob.Request(environ), formatter
            )
            return response(environ, start_response)
        return app(environ, start_response)

    return middleware
