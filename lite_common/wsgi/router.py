"""One route table per API, turned into a Routes mapper.

``ROUTES = {'/servers/{id}': {'GET': show, 'DELETE': delete}}``.
A handler takes a ``webob.Request`` and returns a ``webob.Response``;
path variables are in ``req.urlvars``, as text (decoded from the UTF-8
of the path; see :mod:`lite_common.wsgi.url_check`). A path that exists
with another method is a 405 with an ``Allow`` header. ``HEAD`` is
answered wherever ``GET`` is, by the ``GET`` handler (webob's response
leaves the body out and keeps the headers).

An operation that exists in some microversions only is
``Versioned(handler, since='1.37')`` in the table: a request whose
version (:func:`lite_common.wsgi.microversion.get_version`) is outside
the range gets the answer of a path that does not exist (404), before
the handler runs. The table is where the range is read from, by the
router and by the OpenAPI document (:mod:`lite_common.wsgi.openapi`).
Where upstream answers another status outside the range (405, 406, or
after the policy check), ``answers_outside=True`` leaves the answer to
the handler: the range is then the document's only.

Every handler of a table runs behind the API's error translation (the
``translate`` the router is given: domain exceptions to HTTP errors),
so that no handler can forget it.
"""

from collections.abc import Callable
from collections.abc import Mapping
import dataclasses
from typing import Any

import routes
import webob
import webob.exc

from lite_common.wsgi import faults
from lite_common.wsgi import microversion

#: Where the matched route template is left for the request metrics
#: (:mod:`lite_common.metrics.api`).
ROUTE_KEY = 'lite.route'
Handler = Callable[[webob.Request], webob.Response]


@dataclasses.dataclass(frozen=True)
class Versioned:
    """A handler served from microversion ``since`` to ``until``
    (both included; None: no bound). ``answers_outside``: the handler
    answers requests outside the range itself (not the router's 404)."""

    handler: Handler
    since: str | None = None
    until: str | None = None
    answers_outside: bool = False

    def serves(self, version: microversion.APIVersion | None) -> bool:
        """Whether a request at ``version`` reaches the handler (an
        application without microversions has none: always)."""
        if version is None:
            return True
        if self.since is not None and version.below(self.since):
            return False
        return self.until is None or version <= microversion.APIVersion.parse(
            self.until
        )


Route = Handler | Versioned
RouteTable = Mapping[str, Mapping[str, Route]]


def versioned(route: Route) -> Versioned:
    """Any route of a table as a :class:`Versioned` (a plain handler
    serves every version)."""
    return route if isinstance(route, Versioned) else Versioned(route)


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


def _not_found(req: webob.Request) -> webob.Response:
    path = faults.url_text(req.environ.get('PATH_INFO', ''))
    raise webob.exc.HTTPNotFound(
        explanation=f'The resource {path} could not be found.'
    )


def _in_range(
    route: Route, translate: Callable[[Handler], Handler]
) -> Handler:
    """The handler of ``route``, translated, behind its version check."""
    if not isinstance(route, Versioned):
        return translate(route)
    served = translate(route.handler)
    if route.answers_outside or (route.since is None and route.until is None):
        return served

    def handler(req: webob.Request) -> webob.Response:
        if route.serves(req.environ.get(microversion.ENV_KEY)):
            return served(req)
        return _not_found(req)

    return handler


def _with_head(methods: Mapping[str, Route]) -> dict[str, Route]:
    if 'GET' in methods and 'HEAD' not in methods:
        return {**methods, 'HEAD': methods['GET']}
    return dict(methods)


def _untranslated(handler: Handler) -> Handler:
    return handler


class Router:
    """Dispatches requests according to a route table; ``translate``
    wraps every handler (the API's domain-to-HTTP error translation)."""

    def __init__(
        self,
        table: RouteTable,
        translate: Callable[[Handler], Handler] = _untranslated,
    ) -> None:
        self.mapper = routes.Mapper()
        for path, methods in table.items():
            methods = _with_head(methods)
            allowed = sorted(methods)
            for method, route in methods.items():
                self.mapper.connect(
                    path,
                    action=_in_range(route, translate),
                    conditions={'method': [method]},
                )
            self.mapper.connect(path, action=_method_not_allowed(allowed))

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        req = webob.Request(environ)
        found = self.mapper.routematch(environ=environ)
        if found is None:
            return _not_found(req)
        match, route = found
        # The route template labels the request's metrics.
        environ[ROUTE_KEY] = route.routepath
        handler = match.pop('action')
        req.urlvars = {name: _text(value) for name, value in match.items()}
        return handler(req)(environ, start_response)
