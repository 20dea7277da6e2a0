"""``/healthcheck`` with oslo.middleware's health check.

Load balancers and systemd probe it without credentials and get the
short answer (200 ``OK``, or 503 when a backend such as
``disable_by_file`` says so). A request that carries credentials goes
through authentication first; an admin then gets the detailed answer
(threads, backends' details), anyone else the short one.

The ``[healthcheck]`` options are oslo.middleware's (``backends``,
``disable_by_file_path``, ``allowed_source_ranges``,
``ignore_proxied_requests``); ``detailed`` is decided per request as
above.
"""

from collections.abc import Callable
from typing import Any

from oslo_config import cfg
from oslo_middleware import healthcheck

from lite_common import context as lite_context
from lite_common.wsgi import auth

PATH = '/healthcheck'
_CREDENTIAL_HEADERS = ('HTTP_AUTHORIZATION', 'HTTP_X_AUTH_TOKEN')


class Health:
    """The health check of one API, at both ends of authentication.

    A request the health check leaves alone (a source outside
    ``[healthcheck]allowed_source_ranges``, a proxied request with
    ``ignore_proxied_requests``) goes on to the API, as upstream.
    """

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.conf = conf

    def _checker(self, app: Any, detailed: bool) -> Any:
        checker = healthcheck.Healthcheck(app, self.conf)
        # Decided here per request, whatever [healthcheck]detailed says.
        checker._show_details = detailed
        return checker

    def anonymous(self, app: Any) -> Any:
        """Outside authentication: a probe without credentials."""
        short = self._checker(app, detailed=False)

        def middleware(environ: dict[str, Any], start_response: Any) -> Any:
            if environ.get('PATH_INFO') == PATH and not any(
                environ.get(h) for h in _CREDENTIAL_HEADERS
            ):
                return short(environ, start_response)
            return app(environ, start_response)

        return middleware

    def authenticated(
        self, app: Any, is_admin: Callable[[lite_context.RequestContext], bool]
    ) -> Any:
        """Inside authentication: detail for admins."""
        short = self._checker(app, detailed=False)
        detailed = self._checker(app, detailed=True)

        def middleware(environ: dict[str, Any], start_response: Any) -> Any:
            if environ.get('PATH_INFO') != PATH:
                return app(environ, start_response)
            ctx = environ.get(auth.ENV_KEY)
            checker = detailed if ctx is not None and is_admin(ctx) else short
            return checker(environ, start_response)

        return middleware
