"""Helpers every Compute API handler uses.

Handlers are plain functions ``handler(req) -> webob.Response``; they
check policy, validate the body, call the domain, and build the
response. Domain exceptions are translated here, in one place.
"""

from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Iterator
import contextlib
import datetime
import functools
from typing import TYPE_CHECKING
from typing import Any
from typing import cast
import urllib.parse

from oslo_config import cfg
import oslo_messaging as messaging
from oslo_utils import timeutils
import webob
import webob.exc

from lite_common import policy as lite_policy
from lite_common.wsgi import faults
from lite_common.wsgi import handling
from lite_common.wsgi import json_body
from nova_lite import exception
from nova_lite import policy
from nova_lite.api import microversion as mv

if TYPE_CHECKING:
    from nova_lite.api.app import Deps

DEPS_KEY = 'nova_lite.deps'

json_response = faults.json_response
context = handling.context
version = handling.version
validate = handling.validate
read_body = handling.read_body
query_bool = handling.query_bool


def deps(req: webob.Request) -> 'Deps':
    """The :class:`nova_lite.api.app.Deps` of this application."""
    return cast('Deps', req.environ[DEPS_KEY])


def conf(req: webob.Request) -> cfg.ConfigOpts:
    """The configuration this application was loaded with."""
    return deps(req).conf


def authorize(
    req: webob.Request, action: str, target: dict[str, Any] | None = None
) -> None:
    try:
        policy.authorize(deps(req).enforcer, context(req), action, target)
    except lite_policy.PolicyNotAuthorized as exc:
        # Upstream Nova's words (its PolicyNotAuthorized).
        raise webob.exc.HTTPForbidden(
            explanation=(f"Policy doesn't allow {exc.action} to be performed.")
        ) from None


def caller_project(req: webob.Request, action: str) -> str:
    """The caller's project, which ``action`` charges or owns: 403 for
    a caller without one (a system-scoped token where scope enforcement
    was turned off; with it, :func:`authorize` refused it already)."""
    project_id = context(req).project_id
    if project_id is None:
        raise webob.exc.HTTPForbidden(
            explanation=f"Policy doesn't allow {action} to be performed."
        )
    return str(project_id)


def check(
    req: webob.Request, action: str, target: dict[str, Any] | None = None
) -> bool:
    """Whether the caller may ``action`` (no error when not)."""
    return policy.check(deps(req).enforcer, context(req), action, target)


def read_json(req: webob.Request) -> Any:
    """The JSON body, or a 400 for anything that could not be stored as
    sent (see :mod:`lite_common.wsgi.json_body`)."""
    return json_body.read(req)


_STATUS_OF = (
    (exception.NotFound, webob.exc.HTTPNotFound),
    (exception.Conflict, webob.exc.HTTPConflict),
    (exception.Invalid, webob.exc.HTTPBadRequest),
    (exception.NoValidHost, webob.exc.HTTPBadRequest),
    (exception.QuotaError, webob.exc.HTTPForbidden),
)


def translate_errors(
    handler: Callable[[webob.Request], webob.Response],
) -> Callable[[webob.Request], webob.Response]:
    """Turn domain exceptions into the matching HTTP errors."""

    @functools.wraps(handler)
    def wrapper(req: webob.Request) -> webob.Response:
        try:
            return handler(req)
        except exception.NovaLiteException as exc:
            for exc_class, http in _STATUS_OF:
                if isinstance(exc, exc_class):
                    raise http(explanation=exc.format_message())
            raise

    return wrapper


#: The largest integer a column holds (upstream's ``db.MAX_INT``, a
#: 32-bit INT on MariaDB); every integer from a request is checked
#: against its column's range before it reaches SQL.
MAX_INT = 2**31 - 1
#: Upstream's bound of float columns such as ``rxtx_factor``.
MAX_FLOAT = 3.40282e38


def query_int(
    req: webob.Request, name: str, minimum: int = 0, maximum: int = MAX_INT
) -> int | None:
    value = req.GET.get(name)
    if value is None:
        return None
    try:
        number = int(value)
    except ValueError:
        number = minimum - 1
    if not minimum <= number <= maximum:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Invalid {name} {value[:40]!r}: it must be an '
            f'integer from {minimum} to {maximum}.'
        )
    return number


def bounded_int(
    value: Any, name: str, minimum: int = 0, maximum: int = MAX_INT
) -> int:
    """A body value the schema let through as an integer or a string of
    digits, as an int within [minimum, maximum] (else 400, as upstream's
    ``validate_integer``)."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Invalid input received: {name} must be an integer'
        )
    if number < minimum:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Invalid input received: {name} must be >= {minimum}'
        )
    if number > maximum:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Invalid input received: {name} must be <= {maximum}'
        )
    return number


def page_limit(req: webob.Request) -> int:
    limit = query_int(req, 'limit')
    max_limit = int(conf(req).api.max_limit)
    return min(max_limit if limit is None else limit, max_limit)


def base_url(req: webob.Request) -> str:
    return str(conf(req).api.public_endpoint or req.host_url).rstrip('/')


def links(
    req: webob.Request, collection: str, item_id: Any
) -> list[dict[str, str]]:
    return links_at(base_url(req), collection, item_id)


def links_at(base: str, collection: str, item_id: Any) -> list[dict[str, str]]:
    """``links`` for a base URL already worked out (for long lists)."""
    return [
        {'rel': 'self', 'href': f'{base}/v2.1/{collection}/{item_id}'},
        {'rel': 'bookmark', 'href': f'{base}/{collection}/{item_id}'},
    ]


def next_link(
    req: webob.Request,
    collection: str,
    items: list[Any],
    limit: int,
    marker: str,
) -> list[dict[str, str]]:
    """``*_links`` with a ``next`` link when the page is full."""
    if not items or len(items) < limit:
        return []
    params = dict(req.GET)
    params['marker'] = marker
    params['limit'] = str(limit)
    query = urllib.parse.urlencode(params)
    return [
        {'rel': 'next', 'href': f'{base_url(req)}/v2.1/{collection}?{query}'}
    ]


def _naive_utc(value: Any) -> Any:
    if value.tzinfo is not None:
        value = value.astimezone(datetime.UTC).replace(tzinfo=None)
    return value


def microsecond_time(value: Any) -> str | None:
    """Timestamps as upstream writes them for services, migrations and
    OS-SRV-USG: ``2024-01-02T03:04:05.000000``, no zone."""
    if value is None:
        return None
    return cast(
        'str | None', _naive_utc(value).isoformat(timespec='microseconds')
    )


def isotime(value: Any) -> str | None:
    """Compute API timestamps: ``2024-01-02T03:04:05Z``."""
    if value is None:
        return None
    return cast(
        'str | None', _naive_utc(value).isoformat(timespec='seconds') + 'Z'
    )


def query_time(req: webob.Request, name: str) -> datetime.datetime | None:
    """``?<name>=`` (changes-since, changes-before) as a naive UTC time
    (400 when it is no ISO 8601 time, upstream's message), None without
    it."""
    text = req.GET.get(name)
    if text is None:
        return None
    try:
        value = timeutils.parse_isotime(text)
    except ValueError:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Invalid input for query parameters {name}. '
            f"Value: {text}. '{text}' is not a 'date-time'"
        ) from None
    return timeutils.normalize_time(value)


def changes_since(req: webob.Request) -> datetime.datetime | None:
    return query_time(req, 'changes-since')


def changes_window(
    req: webob.Request,
) -> tuple[datetime.datetime | None, datetime.datetime | None]:
    """(changes-since, changes-before) of a list from 2.66; before must
    not be earlier than since (400, upstream's message)."""
    since = changes_since(req)
    before = query_time(req, 'changes-before')
    if since is not None and before is not None and before < since:
        raise webob.exc.HTTPBadRequest(
            explanation='The value of changes-since must be less than or '
            'equal to changes-before.'
        )
    return since, before


#: From 2.75 a query parameter a call does not know is a 400 (upstream's
#: query schemas with ``additionalProperties: False``).
STRICT_QUERY = mv.STRICT_QUERY


def reject_unknown_query(
    req: webob.Request, known: Iterable[str], since: str = STRICT_QUERY
) -> None:
    """400 for a query parameter not in ``known`` from ``since`` on,
    with jsonschema's message as upstream words it."""
    if not version(req).at_least(since):
        return
    unknown = sorted(set(req.GET) - set(known))
    if not unknown:
        return
    names = ', '.join(repr(name) for name in unknown)
    verb = 'was' if len(unknown) == 1 else 'were'
    raise webob.exc.HTTPBadRequest(
        explanation=f'Additional properties are not allowed ({names} '
        f'{verb} unexpected)'
    )


@contextlib.contextmanager
def agent_call(host: str) -> Iterator[None]:
    """An RPC call to the compute agent of ``host`` answered as upstream
    answers it: 501 for a driver without the feature
    (NotImplementedError), 409 when the agent does not answer, and 409
    when it is of a release without the call (during a rolling upgrade:
    compute agents are upgraded before the API)."""
    try:
        yield
    except NotImplementedError:
        raise webob.exc.HTTPNotImplemented(
            explanation='The requested functionality is not supported.'
        ) from None
    except messaging.MessagingTimeout:
        raise webob.exc.HTTPConflict(
            explanation=f'Compute service of {host} is unavailable at this '
            f'time.'
        ) from None
    except messaging.RemoteError as exc:
        if exc.exc_type != 'UnsupportedVersion':
            raise
        raise webob.exc.HTTPConflict(
            explanation=f'The compute service of {host} is too old for '
            f'this request; upgrade it.'
        ) from None
