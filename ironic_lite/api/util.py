"""Helpers every Bare Metal API handler uses.

Handlers are plain functions ``handler(req) -> webob.Response``: they
check policy, validate the body, read the database or ask a conductor
over RPC, and build the response. Exceptions of :mod:`ironic_lite`
(also those re-raised from a conductor) carry ``code``, the HTTP status
they become, in :func:`translate_errors`.
"""

from collections.abc import Callable
import datetime
import functools
from typing import TYPE_CHECKING
from typing import Any
from typing import cast
import urllib.parse
import uuid

from oslo_log import log as logging
import oslo_messaging as messaging
import webob
import webob.exc

from ironic_lite import exception
from lite_common import policy as lite_policy
from lite_common.wsgi import faults
from lite_common.wsgi import handling

LOG = logging.getLogger(__name__)
if TYPE_CHECKING:
    from ironic_lite.api.app import Deps

DEPS_KEY = 'ironic_lite.deps'

json_response = faults.json_response
context = handling.context
version = handling.version
validate = handling.validate
read_body = handling.read_body
query_bool = handling.query_bool


def deps(req: webob.Request) -> 'Deps':
    """The :class:`ironic_lite.api.app.Deps` of this application."""
    return cast('Deps', req.environ[DEPS_KEY])


def authorize(
    req: webob.Request, action: str, target: dict[str, Any] | None = None
) -> None:
    try:
        lite_policy.authorize(deps(req).enforcer, context(req), action, target)
    except lite_policy.PolicyNotAuthorized as exc:
        raise webob.exc.HTTPForbidden(explanation=str(exc))


def canonical_uuid(value: str) -> str:
    """``value`` (uuid-like: any case, dashes or not) as stored:
    lower case with dashes."""
    return str(uuid.UUID(value))


def http_error(exc: exception.IronicLiteException) -> webob.exc.HTTPError:
    """The HTTP error of an ironic_lite exception, by its ``code``."""
    code = getattr(exc, 'code', 500)
    cls = webob.exc.status_map.get(code)
    if cls is None or code < 400:
        cls = webob.exc.HTTPInternalServerError
    return cls(explanation=exc.format_message())


def translate_errors(
    handler: Callable[[webob.Request], webob.Response],
) -> Callable[[webob.Request], webob.Response]:
    """Turn domain and RPC exceptions into the matching HTTP errors."""

    @functools.wraps(handler)
    def wrapper(req: webob.Request) -> webob.Response:
        try:
            return handler(req)
        except exception.IronicLiteException as exc:
            if getattr(exc, 'code', 500) >= 500:
                LOG.warning('%s %s: %s', req.method, req.path_info, exc)
            raise http_error(exc)
        except messaging.MessagingTimeout:
            raise webob.exc.HTTPServiceUnavailable(
                explanation='No conductor answered in time; retry later.'
            )

    return wrapper


def query_int(req: webob.Request, name: str) -> int | None:
    value = req.GET.get(name)
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Invalid {name} {value!r}: it must be an integer.'
        )


def base_url(req: webob.Request) -> str:
    """``[api]public_endpoint``, else the URL the application is
    mounted at (with the WSGI ``SCRIPT_NAME``, e.g. ``/baremetal``)."""
    return (deps(req).public_endpoint or req.application_url).rstrip('/')


def links_at(
    base: str, collection: str, item_id: str, suffix: str = ''
) -> list[dict[str, str]]:
    """``links`` of an item, for a base URL already worked out."""
    return [
        {'href': f'{base}/v1/{collection}/{item_id}{suffix}', 'rel': 'self'},
        {'href': f'{base}/{collection}/{item_id}{suffix}', 'rel': 'bookmark'},
    ]


def next_url(
    req: webob.Request, collection: str, marker: str, limit: int
) -> str:
    """The ``next`` URL of a full page: same collection (``nodes`` or
    ``nodes/detail``), same query, a new marker."""
    params = [
        (k, v) for k, v in req.GET.items() if k not in ('marker', 'limit')
    ]
    params += [('limit', str(limit)), ('marker', marker)]
    query = urllib.parse.urlencode(params)
    return f'{base_url(req)}/v1/{collection}?{query}'


def isotime(value: datetime.datetime | str | None) -> str | None:
    """Bare Metal API timestamps: ``2024-01-02T03:04:05+00:00``.

    A string is a timestamp that came over RPC: as the conductor
    formatted it (a node), or a naive UTC time (the RPC serializer's, of
    a row such as a new allocation), given its offset here.
    """
    if value is None:
        return value
    if isinstance(value, str):
        try:
            parsed = datetime.datetime.fromisoformat(value)
        except ValueError:
            return value
        if parsed.tzinfo is not None:
            return value
        value = parsed
    if value.tzinfo is None:
        value = value.replace(tzinfo=datetime.UTC)
    return value.isoformat()


def require_version(req: webob.Request, since: str) -> None:
    """A resource that exists from API ``since``: a 404 below it, as
    upstream."""
    if version(req).below(since):
        raise webob.exc.HTTPNotFound(
            explanation='The resource could not be found.'
        )
