"""Query parameters of the volume connector and target requests,
checked as upstream checks them (400 otherwise)."""

import webob
import webob.exc

from ironic_lite.api import listing
from ironic_lite.api import util
from ironic_lite.api.views import volume as views

LIST_PARAMS = frozenset(
    {'node', 'marker', 'limit', 'sort_key', 'sort_dir', 'fields', 'detail'}
)


def requested_fields(
    req: webob.Request, shape: views.Shape, detail_allowed: bool
) -> tuple[str, ...]:
    """``?fields=`` / ``?detail=`` of a list (``detail_allowed``) or a
    show; ``links`` is always rendered."""
    detail = util.query_bool(req, 'detail') if detail_allowed else None
    text = req.GET.get('fields')
    if text is not None and detail:
        raise webob.exc.HTTPBadRequest(
            explanation="Can't fetch a subset of fields with 'detail' set"
        )
    if text is None:
        return (
            shape.list_fields
            if detail_allowed and not detail
            else shape.fields
        )
    return listing.selected_fields(text, shape.fields)
