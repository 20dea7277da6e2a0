"""Query parameters every Bare Metal list shares: the page size and
the fields to show (400 for bad values, as upstream)."""

import webob
import webob.exc

from ironic_lite.api import util


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
            'not valid')
    return tuple(dict.fromkeys([*wanted, 'links']))
