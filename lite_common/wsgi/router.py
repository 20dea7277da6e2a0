"""One route table per API, turned into a Routes mapper.

``ROUTES = {'/servers/{id}': {'GET': show, 'DELETE': delete}}``.
A handler takes a ``webob.Request`` and returns a ``webob.Response``;
path variables are in ``req.urlvars``, as text (decoded from the UTF-8
of the path; see :mod:`lite_common.wsgi.url_check`). A path that exists
with another method is a 405 with an ``Allow`` header. ``HEAD`` is
answered wherever ``GET`` is, by the ``GET`` handler (webob's response
leaves the body out and keeps the headers).
"""

from collections.abc import Callable
from collections.abc import Mapping
from typing import Any

import routes
import webob
import webob.exc

from lite_common.wsgi import faults

#: Where the matched route template is left for the request metrics
#: (:mod:`lite_common.metrics.api`).
ROUTE_KEY = 'lite.route'
Handler = Callable[[webob.Request], webob.Response]
RouteTable = Mapping[str, Mapping[str, Handler]]


def _text(value: Any) -> Any:
    """A path variable as text: Routes matches the WSGI ``PATH_INFO``,
    whose bytes are latin-1 decoded (PEP 3333)."""
    if not isinstance(value, str):
        return value
    try:
        return value.encode('latin-1').decode('utf-8')
    except (UnicodeEncodeError, UnicodeDecodeError):
        return value


def _method_not_allowed(allowed: list[str]) -> Handler:
    def handler(req: webob.Request) -> webob.Response:
        raise webob.exc.HTTPMethodNotAllowed(
            explanation=f'The method {req.method} is not allowed for '
            f'this resource; allowed: {", ".join(allowed)}.',
            headers=[('Allow', ', '.join(allowed))],
        )

    return handler


def _with_head(methods: Mapping[str, Handler]) -> dict[str, Handler]:
    if 'GET' in methods and 'HEAD' not in methods:
        return {**methods, 'HEAD': methods['GET']}
    return dict(methods)


class Router:
    """Dispatches requests according to a route table."""

    def __init__(self, table: RouteTable) -> None:
        self.mapper = routes.Mapper()
        for path, methods in table.items():
            methods = _with_head(methods)
            allowed = sorted(methods)
            for method, handler in methods.items():
                self.mapper.connect(
                    path, action=handler, conditions={'method': [method]}
                )
            self.mapper.connect(path, action=_method_not_allowed(allowed))

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        req = webob.Request(environ)
        found = self.mapper.routematch(environ=environ)
        if found is None:
            path = faults.url_text(environ.get('PATH_INFO', ''))
            raise webob.exc.HTTPNotFound(
                explanation=f'The resource {path} could not be found.'
            )
        match, route = found
        # The route template labels the request's metrics.
        environ[ROUTE_KEY] = route.routepath
        handler = match.pop('action')
        req.urlvars = {name: _text(value) for name, value in match.items()}
        return handler(req)(environ, start_response)
