"""The nova-lite-api WSGI application and its middleware pipeline.

From the outside in, and why each layer sits where it does:

1. RequestLog - first, so every request gets an id and a log line,
   including those that fail in auth.
   Then the request metrics (:mod:`lite_common.metrics.api`: every
   request is counted, by route template), and ``/healthcheck``
   without credentials is answered (short form) before anything else
   can fail; with credentials it goes on, and is answered right after
   auth (in detail for an admin). ``/metrics`` is answered there too:
   before auth when ``[metrics]require_admin`` is false, otherwise
   right after auth, to admins only.
2. Trailing-slash normalisation - ``/v2.1/`` and ``/v2.1`` are one
   resource for clients that discover versions.
3. Per-API dispatch by path prefix: ``/image`` goes to the Image API
   branch, the rest to the Compute API branch. Each branch has:
   a. URL check - a path or query string that is not UTF-8 is a 400
      in that API's format: every later layer would fail to decode it;
   b. FaultWrapper - renders auth, version and body size errors in
      that API's format and turns anything unexpected into a logged
      500;
   c. (Compute only) a body size limit - 413 above
      ``[oslo_middleware]max_request_body_size`` as upstream (114688
      bytes); not on the Image API, whose uploads are larger;
   d. auth - builds the request context (version documents are
      public);
   e. (Compute only) microversions - after auth, as upstream;
   f. an inner FaultWrapper - so that handler errors also carry the
      microversion headers;
   g. the router.
"""

from collections.abc import Callable
import functools
from typing import Any

from oslo_config import cfg

from lite_common.context import RequestContext
from lite_common.metrics import api as api_metrics
from lite_common.wsgi import auth
from lite_common.wsgi import faults
from lite_common.wsgi import health
from lite_common.wsgi import microversion as mv
from lite_common.wsgi import middleware
from lite_common.wsgi import request_log
from lite_common.wsgi import router
from lite_common.wsgi import size_limit
from lite_common.wsgi import url_check
from nova_lite import objects
from nova_lite import policy
from nova_lite.api import errors
from nova_lite.api import metrics as nova_api_metrics
from nova_lite.api import microversion
from nova_lite.api import routes
from nova_lite.api import util
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.compute_api import image_data
from nova_lite.compute_api import moves as compute_api
from nova_lite.conductor import rpcapi as conductor_rpcapi

#: Upstream nova's ``[oslo_middleware]max_request_body_size`` (bytes).
MAX_REQUEST_BODY_SIZE = size_limit.DEFAULT_MAX_REQUEST_BODY_SIZE


class Deps:
    """What handlers reach besides the database: the RPC clients."""

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.conf = conf
        self.enforcer = policy.make_enforcer(conf)
        self.conductor = conductor_rpcapi.ConductorAPI(conf)
        self.compute = compute_rpcapi.ComputeAPI(conf)
        self.compute_api = compute_api.API(conf, self.conductor, self.compute)
        self.image_store = image_data.ImageStore(conf.image_store.directory)


def _is_version_document(path: str) -> bool:
    return path in (
        '',
        '/',
        '/v2',
        '/v2.1',
        '/image',
        '/identity/v3',
        '/openapi.json',
        '/image/openapi.json',
    )


def _branch(
    conf: cfg.ConfigOpts,
    table: Any,
    formatter: Any,
    versioned: bool,
    checks: health.Health,
    endpoint: api_metrics.Endpoint,
    is_admin: Callable[[RequestContext], bool],
) -> Any:
    app: Any = faults.FaultWrapper(
        router.Router(table, util.translate_errors), formatter
    )
    if versioned:
        app = mv.MicroversionMiddleware(
            app, microversion.VERSIONS, _is_version_document
        )
        app = checks.authenticated(app, is_admin)
        app = endpoint.authenticated(app, is_admin)
    app = auth.wrap(
        app, conf, is_admin, _is_version_document, formatter=formatter
    )
    if versioned:
        app = size_limit.limit_body_size(app, MAX_REQUEST_BODY_SIZE)
    return url_check.check_url(faults.FaultWrapper(app, formatter), formatter)


def load_app(conf: cfg.ConfigOpts) -> Any:
    """Build the whole application (config must already be loaded)."""
    objects.register_all()
    if conf.metrics.enabled:
        nova_api_metrics.register()
    checks = health.Health(conf)
    endpoint = api_metrics.Endpoint(conf)
    deps = Deps(conf)
    is_admin = functools.partial(policy.is_admin, deps.enforcer)
    compute = _branch(
        conf,
        routes.compute_routes(conf.auth_strategy),
        errors.compute_error,
        versioned=True,
        checks=checks,
        endpoint=endpoint,
        is_admin=is_admin,
    )
    image = _branch(
        conf,
        routes.IMAGE_ROUTES,
        errors.image_error,
        versioned=False,
        checks=checks,
        endpoint=endpoint,
        is_admin=is_admin,
    )

    def dispatch(environ: dict[str, Any], start_response: Any) -> Any:
        path = environ.get('PATH_INFO', '')
        if path == '/image' or path.startswith('/image/'):
            return image(environ, start_response)
        return compute(environ, start_response)

    app = middleware.with_environ(
        middleware.strip_slash(dispatch), util.DEPS_KEY, deps
    )
    app = endpoint.anonymous(checks.anonymous(app))
    return request_log.RequestLog(
        api_metrics.RequestMetrics(app, 'compute'),
        request_log.NOVA_REQUEST_ID_HEADER,
    )
