"""Query parameters every Bare Metal list shares: the page size, the
fields to show, the marker (400 for bad values, as upstream)."""

from collections.abc import Callable
from typing import Any
from typing import cast

from oslo_utils import uuidutils
import webob
import webob.exc

from ironic_lite.api import util
from lite_common.wsgi import handling


def page_limit(req: webob.Request) -> int:
    """``?limit=``, at most ``[api]max_limit`` (the default)."""
    max_limit: int = util.deps(req).max_limit
    limit = util.query_int(req, 'limit')
    if limit is None:
        return max_limit
    if limit <= 0:
        raise webob.exc.HTTPBadRequest(explanation='Limit must be positive')
    return min(limit, max_limit)


def selected_fields(text: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    """The fields of ``?fields=text`` (each one of ``allowed``), with
    ``links``, which is always shown."""
    wanted = [f.strip() for f in text.split(',') if f.strip()]
    invalid = [f for f in wanted if f not in allowed]
    if invalid or not wanted:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Field(s) "{", ".join(invalid or [text])}" are '
            'not valid'
        )
    return tuple(dict.fromkeys([*wanted, 'links']))


def shown_fields(
    req: webob.Request, allowed: tuple[str, ...]
) -> tuple[str, ...]:
    """The fields one resource shows: ``allowed``, or those of
    ``?fields=`` (each one of them)."""
    text = req.GET.get('fields')
    return allowed if text is None else selected_fields(text, allowed)


def list_fields(
    req: webob.Request, allowed: tuple[str, ...], short: tuple[str, ...]
) -> tuple[str, ...]:
    """The fields a list shows, as upstream: ``short`` by default,
    ``allowed`` with ``?detail=true``, those of ``?fields=`` (each one of
    ``allowed``; with ``detail`` a 400)."""
    detail = handling.query_bool(req, 'detail')
    if 'fields' not in req.GET:
        return allowed if detail else short
    if detail:
        raise webob.exc.HTTPBadRequest(
            explanation='Can not specify ?detail=True and fields in the '
            'same request.'
        )
    return shown_fields(req, allowed)


def sort_key(req: webob.Request, unsortable: tuple[str, ...]) -> str:
    """``?sort_key=`` (``id`` by default); upstream's 400 for a column a
    list may not be sorted by."""
    key = req.GET.get('sort_key', 'id')
    if key in unsortable:
        raise webob.exc.HTTPBadRequest(
            explanation=f'The sort_key value {key} is an invalid field '
            'for sorting'
        )
    return cast(str, key)


def schema_fields(
    req: webob.Request, allowed: tuple[str, ...], detail: bool
) -> list[str]:
    """``?fields=`` checked as upstream's schema checks it (drivers,
    BIOS settings): not with ``detail``, each one of ``allowed``."""
    if detail:
        raise webob.exc.HTTPBadRequest(
            explanation='Can not specify ?detail=True and fields in the '
            'same request.'
        )
    fields = [f.strip() for f in req.GET['fields'].split(',') if f.strip()]
    for field in fields:
        if field not in allowed:
            raise webob.exc.HTTPBadRequest(
                explanation=f'Schema error: {field!r} is not one of '
                f'{list(allowed)}'
            )
    return fields


def check_params(req: webob.Request, allowed: frozenset[str]) -> None:
    """A 400 for a query parameter not in ``allowed``."""
    unknown = sorted(set(req.GET) - allowed)
    if unknown:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Unknown query parameter(s): {", ".join(unknown)}'
        )


def uuid_arg(name: str, value: str) -> str:
    """``value`` as stored, or upstream's 400 for a non-UUID."""
    if not uuidutils.is_uuid_like(value):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Expected UUID for {name}: {value}'
        )
    return util.canonical_uuid(value)


def marker(req: webob.Request) -> str | None:
    """``?marker=``: the uuid of the last item of the previous page."""
    value = req.GET.get('marker')
    return None if value is None else uuid_arg('marker', value)


def page_body(
    req: webob.Request,
    item_name: str,
    rows: list[dict[str, Any]],
    render: Callable[[dict[str, Any]], dict[str, Any]],
    limit: int,
) -> dict[str, Any]:
    """``{item_name: [...]}`` of a page, with the ``next`` URL (same
    path and query, a new marker) when the page is full."""
    body: dict[str, Any] = {item_name: [render(row) for row in rows]}
    if rows and len(rows) == limit:
        collection = req.path_info.strip('/').removeprefix('v1/')
        body['next'] = util.next_url(req, collection, rows[-1]['uuid'], limit)
    return body
