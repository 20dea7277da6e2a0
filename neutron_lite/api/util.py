"""Helpers every Networking API handler uses.

Handlers are plain functions ``handler(req) -> webob.Response``: they
parse the body against the resource's attributes
(:mod:`neutron_lite.api.attributes`), check policy, call the database
module and render the view. Exceptions of :mod:`neutron_lite.exception`
carry their status and error ``type`` (:func:`translate_errors`).
"""

from collections.abc import Callable
import functools
from typing import TYPE_CHECKING
from typing import Any
from typing import cast

from oslo_log import log as logging
import webob
import webob.exc

from lite_common.context import RequestContext
from lite_common.wsgi import faults
from lite_common.wsgi import handling
from lite_common.wsgi import json_body
from neutron_lite import exception
from neutron_lite import policy
from neutron_lite.api import errors

LOG = logging.getLogger(__name__)
if TYPE_CHECKING:
    from neutron_lite.api.app import Deps

DEPS_KEY = 'neutron_lite.deps'

json_response = faults.json_response


def deps(req: webob.Request) -> 'Deps':
    return cast('Deps', req.environ[DEPS_KEY])


def context(req: webob.Request) -> RequestContext:
    return handling.context(req)


def body(req: webob.Request) -> Any:
    """The JSON body (400 in Neutron's words when it is not JSON)."""
    try:
        return json_body.read(req)
    except webob.exc.HTTPRequestEntityTooLarge:
        raise
    except webob.exc.HTTPException:
        raise exception.HTTPBadRequest(
            msg='Body contains invalid data'
        ) from None


def authorize(req: webob.Request, action: str, target: dict[str, Any]) -> None:
    policy.authorize(deps(req).enforcer, context(req), action, target)


def allowed(req: webob.Request, action: str, target: dict[str, Any]) -> bool:
    return policy.allowed(deps(req).enforcer, context(req), action, target)


def expected_revision(req: webob.Request) -> int | None:
    """``If-Match: revision_number=N`` (revision-if-match), else None."""
    header = req.headers.get('If-Match')
    if not header:
        return None
    for item in header.split(','):
        key, _, value = item.strip().partition('=')
        if key == 'revision_number':
            try:
                return int(value)
            except ValueError:
                break
    raise exception.HTTPBadRequest(
        msg=f'If-Match header {header!r} is not revision_number=<integer>'
    )


def http_error(
    req: webob.Request, exc: exception.NeutronLiteException
) -> webob.exc.HTTPError:
    req.environ[errors.TYPE_KEY] = exc.type_name
    cls = webob.exc.status_map.get(exc.code)
    if cls is None or exc.code < 400:
        cls = webob.exc.HTTPInternalServerError
    return cast('webob.exc.HTTPError', cls(explanation=str(exc)))


def translate_errors(
    handler: Callable[[webob.Request], webob.Response],
) -> Callable[[webob.Request], webob.Response]:
    """Domain exceptions become their HTTP errors, with their type."""

    @functools.wraps(handler)
    def wrapper(req: webob.Request) -> webob.Response:
        try:
            return handler(req)
        except exception.NeutronLiteException as exc:
            if exc.code >= 500:
                LOG.warning('%s %s: %s', req.method, req.path_info, exc)
            raise http_error(req, exc) from None

    return wrapper


def base_url(req: webob.Request) -> str:
    return (deps(req).public_endpoint or req.application_url).rstrip('/')
