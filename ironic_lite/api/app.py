"""The ironic-lite-api WSGI application and its middleware pipeline.

From the outside in, and why each layer sits where it does:

1. RequestLog - first, so every request gets an id
   (``X-OpenStack-Request-Id``) and a log line, including those that
   fail in auth. Then the request metrics (every request is counted
   by route template, :mod:`lite_common.metrics.api`), and
   ``/healthcheck`` without credentials is answered (short form); with
   credentials it is answered right after auth (in detail for an
   admin). ``/metrics`` likewise: before auth when
   ``[metrics]require_admin`` is false, otherwise right after auth, to
   admins only.
2. Version range headers - every response, errors included, carries
   ``X-OpenStack-Ironic-API-Minimum-Version`` / ``-Maximum-Version``,
   so that a client can negotiate even after a 406 or a 401.
3. URL check - a path or query string that is not UTF-8 is a 400
   here: every later layer would fail to decode it.
4. Trailing-slash normalisation - ``/v1/`` and ``/v1`` are one
   resource for clients that discover versions. Then the ``.json``
   suffix is taken off paths below 1.91 (:mod:`json_suffix`), before
   anything reads the path.
5. FaultWrapper - renders auth and version errors in the Bare Metal
   format and turns anything unexpected into a logged 500.
6. Microversions - before auth, as upstream Ironic checks the version
   first; the version documents accept any header.
7. Auth - builds the request context (version documents are public;
   a ramdisk agent's lookup and heartbeat get a context without
   identity).
8. An inner FaultWrapper - handler errors, rendered inside the
   microversion layer so that they carry the version headers too.
9. The router.

Everything comes from the ``conf`` given to :func:`load_app`: never
from the global configuration.
"""

from typing import Any

from oslo_config import cfg

from ironic_lite import metrics as ironic_metrics
from ironic_lite import policy
from ironic_lite.api import errors
from ironic_lite.api import json_suffix
from ironic_lite.api import log_limit
from ironic_lite.api import microversion
from ironic_lite.api import routes
from ironic_lite.api import util
from ironic_lite.conductor import rpcapi
from lite_common.context import RequestContext
from lite_common.metrics import api as api_metrics
from lite_common.wsgi import auth
from lite_common.wsgi import faults
from lite_common.wsgi import health
from lite_common.wsgi import microversion as mv
from lite_common.wsgi import middleware
from lite_common.wsgi import request_log
from lite_common.wsgi import router
from lite_common.wsgi import url_check


class Deps:
    """What handlers reach besides the database: RPC, policy, options."""

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.conductor = rpcapi.ConductorAPI(conf)
        self.enforcer = policy.make_enforcer(conf)
        self.max_limit: int = conf.api.max_limit
        self.public_endpoint: str | None = conf.api.public_endpoint
        self.heartbeat_timeout: int = conf.conductor.heartbeat_timeout
        self.default_portgroup_mode: str = conf.default_portgroup_mode
        #: The versions advertised and accepted.
        self.versions = microversion.versions_for(
            conf.api.advertise_incomplete_versions
        )
        self.conf = conf
        #: Refused agent look-ups, logged once per node in an interval.
        self.lookup_log = log_limit.LimitedLog()

    def is_admin(self, context: RequestContext) -> bool:
        return policy.is_admin(self.enforcer, context)


#: Upstream's IronicRequestId returns this header beside
#: X-OpenStack-Request-Id.
COMPAT_REQUEST_ID_HEADER = 'Openstack-Request-Id'


def _is_version_document(path: str) -> bool:
    return path in ('', '/', '/v1', '/openapi.json')


def _is_ramdisk_path(path: str) -> bool:
    """Paths a ramdisk agent calls without credentials (as upstream's
    public routes)."""
    return path in ('/v1/lookup', '/v1/continue_inspection') or (
        path.startswith('/v1/heartbeat/') and path.count('/') == 3
    )


def _range_headers(app: Any, versions: Any) -> Any:
    range_headers = [
        (microversion.MIN_HEADER, str(versions.minimum)),
        (microversion.MAX_HEADER, str(versions.maximum)),
    ]

    def middleware(environ: dict[str, Any], start_response: Any) -> Any:
        def _start_response(
            status: str, headers: list[Any], exc_info: Any = None
        ) -> Any:
            names = {name.lower() for name, _ in headers}
            headers.extend(
                (k, v) for k, v in range_headers if k.lower() not in names
            )
            return start_response(status, headers, exc_info)

        return app(environ, _start_response)

    return middleware


#: First path segments that are not resources of the API.
_NOT_V1 = frozenset({'', 'v1', 'openapi.json', 'healthcheck', 'metrics'})


def _default_version(app: Any) -> Any:
    """A path without a version is a path of v1 (``/nodes`` is
    ``/v1/nodes``), as upstream's root controller routes it; so the
    bookmark links resolve."""

    def middleware(environ: dict[str, Any], start_response: Any) -> Any:
        path = environ.get('PATH_INFO', '')
        if path.split('/')[1:2] and path.split('/')[1] not in _NOT_V1:
            environ['PATH_INFO'] = '/v1' + path
        return app(environ, start_response)

    return middleware


def load_app(conf: cfg.ConfigOpts) -> Any:
    """Build the whole application (config must already be loaded)."""
    if conf.metrics.enabled:
        ironic_metrics.register_api()
    deps = Deps(conf)
    formatter = errors.baremetal_error
    checks = health.Health(conf)
    endpoint = api_metrics.Endpoint(conf)
    app: Any = faults.FaultWrapper(
        router.Router(routes.ROUTES, util.translate_errors), formatter
    )
    app = checks.authenticated(app, deps.is_admin)
    app = endpoint.authenticated(app, deps.is_admin)
    # The Bare Metal API's administrators are system-scoped (1.71).
    app = auth.wrap(
        app,
        conf,
        deps.is_admin,
        _is_version_document,
        _is_ramdisk_path,
        system_scope=True,
        formatter=formatter,
    )
    # The version documents echo a valid requested version, as upstream.
    app = mv.MicroversionMiddleware(
        app, deps.versions, _is_version_document, echo_unversioned=True
    )
    app = faults.FaultWrapper(app, formatter)
    app = url_check.check_url(
        middleware.with_environ(
            json_suffix.strip_json_suffix(
                middleware.strip_slash(_default_version(app))
            ),
            util.DEPS_KEY,
            deps,
        ),
        formatter,
    )
    app = _range_headers(app, deps.versions)
    # Upstream also returns the request id as Openstack-Request-Id (its
    # historic header), at every version.
    app = endpoint.anonymous(checks.anonymous(app))
    return request_log.RequestLog(
        api_metrics.RequestMetrics(app, 'baremetal'),
        extra_id_header=COMPAT_REQUEST_ID_HEADER,
    )
