"""The API side of the metrics: request series and ``/metrics``.

:class:`RequestMetrics` counts and times every request by the route
template the router matched (``/v1/nodes/{node_ident}``, never the raw
path: bounded cardinality), method and status. :class:`Endpoint`
answers ``/metrics`` at either end of authentication, as
``/healthcheck`` is answered: without credentials when
``[metrics]require_admin`` is false, otherwise after authentication,
to admins only (403 for anyone else).
"""

import time
from typing import Any

from oslo_config import cfg
from prometheus_client import Counter
from prometheus_client import Histogram
from prometheus_client import exposition
import webob
import webob.exc

from lite_common import context as lite_context
from lite_common import metrics
from lite_common.wsgi import auth
from lite_common.wsgi import router

PATH = '/metrics'
#: Set by the router to the matched route template.
ROUTE_KEY = router.ROUTE_KEY
#: Requests that matched no route (404s, /healthcheck).
UNMATCHED = 'unmatched'
_FIXED_PATHS = frozenset({PATH, '/healthcheck'})
_METHODS = frozenset(
    {'GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'}
)

REQUESTS = Counter(
    'stacklite_api_requests_total',
    'API requests by API, method, route template and status code.',
    ['api', 'method', 'route', 'status'],
    registry=None,
)
LATENCY = Histogram(
    'stacklite_api_request_duration_seconds',
    'Time to the response headers of API requests, by API, method, '
    'route template and status code.',
    ['api', 'method', 'route', 'status'],
    registry=None,
    buckets=(
        0.005,
        0.01,
        0.025,
        0.05,
        0.1,
        0.25,
        0.5,
        1.0,
        2.5,
        5.0,
        10.0,
        30.0,
    ),
)


def register() -> None:
    metrics.register('stacklite_api_requests', REQUESTS)
    metrics.register('stacklite_api_request_duration', LATENCY)


def route_label(environ: dict[str, Any]) -> str:
    route = environ.get(ROUTE_KEY)
    if route:
        return str(route)
    path = environ.get('PATH_INFO', '')
    return path if path in _FIXED_PATHS else UNMATCHED


class RequestMetrics:
    """Outermost but for the request log: every request is counted."""

    def __init__(self, app: Any, api: str) -> None:
        self.app = app
        self.api = api

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        started = time.monotonic()
        state = {'status': '500'}

        def _start_response(
            status: str, headers: list[Any], exc_info: Any = None
        ) -> Any:
            state['status'] = status.split(' ', 1)[0]
            return start_response(status, headers, exc_info)

        try:
            return self.app(environ, _start_response)
        finally:
            method = environ.get('REQUEST_METHOD', '')
            labels = (
                self.api,
                method if method in _METHODS else 'other',
                route_label(environ),
                state['status'],
            )
            REQUESTS.labels(*labels).inc()
            LATENCY.labels(*labels).observe(time.monotonic() - started)


def _serve(environ: dict[str, Any], start_response: Any) -> Any:
    req = webob.Request(environ)
    encoder, content_type = exposition.choose_encoder(
        req.headers.get('Accept', '')
    )
    resp = webob.Response(body=encoder(metrics.REGISTRY))
    resp.headers['Content-Type'] = content_type
    resp.headers['Cache-Control'] = 'no-store'
    return resp(environ, start_response)


class Endpoint:
    """``/metrics`` of one API, per ``[metrics]``."""

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.enabled: bool = conf.metrics.enabled
        self.require_admin: bool = conf.metrics.require_admin

    def _mine(self, environ: dict[str, Any]) -> bool:
        return self.enabled and environ.get('PATH_INFO') == PATH

    def anonymous(self, app: Any) -> Any:
        """Outside authentication: served when no admin is required."""
        if not self.enabled or self.require_admin:
            return app

        def middleware(environ: dict[str, Any], start_response: Any) -> Any:
            if self._mine(environ):
                return _serve(environ, start_response)
            return app(environ, start_response)

        return middleware

    def authenticated(self, app: Any, is_admin: auth.IsAdmin) -> Any:
        """Inside authentication: admins only."""
        if not self.enabled or not self.require_admin:
            return app

        def middleware(environ: dict[str, Any], start_response: Any) -> Any:
            if not self._mine(environ):
                return app(environ, start_response)
            ctx: lite_context.RequestContext | None = environ.get(auth.ENV_KEY)
            if ctx is None or not is_admin(ctx):
                raise webob.exc.HTTPForbidden(
                    explanation='Metrics are for administrators only.'
                )
            return _serve(environ, start_response)

        return middleware
