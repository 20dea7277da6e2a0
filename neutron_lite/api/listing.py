"""A list request's query string, as the Networking API reads it:
filters (``name=a&name=b``: any of them), ``fields``, ``sort_key`` /
``sort_dir`` pairs, ``limit`` / ``marker`` / ``page_reverse`` with the
``<collection>_links`` of the answer, and the tag filters.
"""

from collections.abc import Mapping
from typing import Any
import urllib.parse

import webob

from neutron_lite import exception
from neutron_lite.api import attributes
from neutron_lite.db import query

_PAGING = {'fields', 'sort_key', 'sort_dir', 'limit', 'marker', 'page_reverse'}
_TAGS = {'tags', 'tags-any', 'not-tags', 'not-tags-any'}


def _bad(message: str) -> exception.HTTPBadRequest:
    return exception.HTTPBadRequest(msg=message)


def _filter_value(column: Any, text: str) -> Any:
    """A filter's text as the column's type (booleans, integers)."""
    python_type = getattr(column.type, 'python_type', str)
    if python_type is bool:
        try:
            return attributes.to_boolean(text)
        except (attributes.Invalid, attributes.Unconvertible) as exc:
            raise _bad(f'Invalid input for filter: {exc}') from None
    if python_type is int:
        try:
            return int(text)
        except ValueError:
            raise _bad(f"'{text}' is not an integer") from None
    return text


def _tags(req: webob.Request, name: str) -> tuple[str, ...]:
    return tuple(
        t for value in req.GET.getall(name) for t in value.split(',') if t
    )


def parse(
    req: webob.Request,
    columns: Mapping[str, Any],
    max_limit: int,
    extra_filters: tuple[str, ...] = (),
) -> query.ListRequest:
    """:raises HTTPBadRequest: an unknown filter or sort key, a bad
    limit or direction."""
    filters: dict[str, list[Any]] = {}
    for name in set(req.GET.keys()) - _PAGING - _TAGS - set(extra_filters):
        if name not in columns:
            raise _bad(f"['{name}'] is invalid attribute for filtering")
        filters[name] = [
            _filter_value(columns[name], v) for v in req.GET.getall(name)
        ]
    keys, dirs = req.GET.getall('sort_key'), req.GET.getall('sort_dir')
    if len(dirs) not in (0, len(keys)):
        raise _bad('The number of sort_keys and sort_dirs must be same')
    for direction in dirs:
        if direction not in ('asc', 'desc'):
            raise _bad(
                f'{direction} is invalid value for sort_dirs, valid value '
                "is 'asc' and 'desc'"
            )
    sorts = tuple(
        (key, (dirs[i] if dirs else 'asc') == 'asc')
        for i, key in enumerate(keys)
    )
    limit = _limit(req.GET.get('limit'), max_limit)
    return query.ListRequest(
        filters=filters,
        sorts=sorts,
        limit=limit,
        marker=req.GET.get('marker') or None,
        page_reverse=_true(req.GET.get('page_reverse')),
        tags=_tags(req, 'tags'),
        tags_any=_tags(req, 'tags-any'),
        not_tags=_tags(req, 'not-tags'),
        not_tags_any=_tags(req, 'not-tags-any'),
    )


def _true(value: str | None) -> bool:
    return str(value).lower() in ('true', '1', 'yes')


def _limit(value: str | None, max_limit: int) -> int | None:
    if value is None:
        return None
    try:
        limit = int(value)
    except ValueError:
        raise _bad(
            f"Limit must be an integer 0 or greater and not '{value}'"
        ) from None
    if limit < 0:
        raise _bad(f"Limit must be an integer 0 or greater and not '{value}'")
    # (0: no limit, as upstream; a page is never above max_limit)
    return min(limit, max_limit) if limit else None


def fields(req: webob.Request) -> list[str]:
    return [f for f in req.GET.getall('fields') if f]


def only(item: dict[str, Any], wanted: list[str]) -> dict[str, Any]:
    """``item`` with the ``fields`` asked for only (all without)."""
    if not wanted:
        return item
    return {k: v for k, v in item.items() if k in wanted}


def links(
    req: webob.Request,
    base: str,
    collection: str,
    request: query.ListRequest,
    items: list[dict[str, Any]],
) -> list[dict[str, str]]:
    """The ``next`` / ``previous`` links of a page (Neutron's)."""
    if request.limit is None or not items:
        return []
    assert request.limit is not None
    params = [
        (k, v)
        for k, v in req.GET.items()
        if k not in ('marker', 'page_reverse', 'limit')
    ]
    url = f'{base}/v2.0/{collection}'

    def href(marker: str, reverse: bool) -> str:
        query_params = [
            *params,
            ('limit', str(request.limit)),
            ('marker', marker),
        ]
        if reverse:
            query_params.append(('page_reverse', 'True'))
        return url + '?' + urllib.parse.urlencode(query_params)

    first, last = items[0]['id'], items[-1]['id']
    # Upstream's links: ``next`` after a full page (even when nothing
    # follows), ``previous`` always (the first page's too).
    found: list[dict[str, str]] = []
    if request.page_reverse:
        if request.marker:
            found.append({'href': href(last, False), 'rel': 'next'})
        if len(items) >= request.limit:
            found.append({'href': href(first, True), 'rel': 'previous'})
        return found
    if len(items) >= request.limit:
        found.append({'href': href(last, False), 'rel': 'next'})
    found.append({'href': href(first, True), 'rel': 'previous'})
    return found
