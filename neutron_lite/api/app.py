"""The neutron-lite-server WSGI application and its middleware pipeline.

From the outside in, and why each layer sits where it does:

1. RequestLog - first, so every request gets an id
   (``X-OpenStack-Request-Id``) and a log line, including those that
   fail in auth; then the request metrics, and ``/healthcheck`` and
   ``/metrics`` for anonymous callers (as the other two APIs).
2. URL check - a path or query string that is not UTF-8 is a 400 here:
   every later layer would fail to decode it.
3. Trailing-slash normalisation - ``/v2.0/networks/`` is
   ``/v2.0/networks``.
4. FaultWrapper - renders auth errors in Neutron's format and turns
   anything unexpected into a logged 500.
5. Auth - builds the request context (the versions document ``/`` is
   public, as Neutron's).
6. An inner FaultWrapper - handler errors, with their Neutron type.
7. The router.

Everything comes from the ``conf`` given to :func:`load_app`, never
from the global configuration.
"""

from typing import Any

from oslo_config import cfg

from lite_common.context import RequestContext
from lite_common.metrics import api as api_metrics
from lite_common.wsgi import auth
from lite_common.wsgi import faults
from lite_common.wsgi import health
from lite_common.wsgi import middleware
from lite_common.wsgi import request_log
from lite_common.wsgi import router
from lite_common.wsgi import url_check
from neutron_lite import policy
from neutron_lite.api import errors
from neutron_lite.api import routes
from neutron_lite.api import util


class Deps:
    """What handlers reach besides the database: policy and options."""

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.enforcer = policy.make_enforcer(conf)
        self.max_limit: int = conf.api.max_limit
        self.public_endpoint: str | None = conf.api.public_endpoint
        self.conf = conf

    def is_admin(self, context: RequestContext) -> bool:
        return policy.is_admin(self.enforcer, context)


def _is_version_document(path: str) -> bool:
    return path in ('', '/')


def load_app(conf: cfg.ConfigOpts) -> Any:
    """Build the whole application (config must already be loaded)."""
    deps = Deps(conf)
    formatter = errors.neutron_error
    checks = health.Health(conf)
    endpoint = api_metrics.Endpoint(conf)
    app: Any = faults.FaultWrapper(
        router.Router(routes.ROUTES, util.translate_errors), formatter
    )
    app = checks.authenticated(app, deps.is_admin)
    app = endpoint.authenticated(app, deps.is_admin)
    app = auth.wrap(
        app,
        conf,
        deps.is_admin,
        _is_version_document,
        formatter=formatter,
    )
    app = faults.FaultWrapper(app, formatter)
    app = url_check.check_url(
        middleware.with_environ(
            middleware.strip_slash(app), util.DEPS_KEY, deps
        ),
        formatter,
    )
    app = endpoint.anonymous(checks.anonymous(app))
    return request_log.RequestLog(api_metrics.RequestMetrics(app, 'network'))
