"""Query parameters and JSON patches of the volume connector and target
requests, checked as upstream checks them (400 otherwise)."""

import copy
import re
from typing import Any

import jsonpatch
import jsonpointer
from oslo_utils import uuidutils
import webob
import webob.exc

from ironic_lite.api import listing
from ironic_lite.api import microversion as mv
from ironic_lite.api import util
from ironic_lite.api.views import volume as views

#: The end of jsonpointer's "member 'x' not found in {...}": the
#: document, which may hold secrets (target properties).
_DOCUMENT = re.compile(r' in [\[{].*$', re.S)

LIST_PARAMS = frozenset({'node', 'marker', 'limit', 'sort_key',
                         'sort_dir', 'fields', 'detail'})


def require_volume(req: webob.Request) -> None:
    """Volume resources exist from 1.32 (a 404 below, as upstream)."""
    if util.version(req).below(mv.VOLUME):
        raise webob.exc.HTTPNotFound(
            explanation='The resource could not be found.')


def check_params(req: webob.Request, allowed: frozenset[str]) -> None:
    unknown = sorted(set(req.GET) - allowed)
    if unknown:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Unknown query parameter(s): {", ".join(unknown)}')


def uuid_arg(name: str, value: str) -> str:
    """``value`` as stored, or upstream's 400 for a non-UUID."""
    if not uuidutils.is_uuid_like(value):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Expected UUID for {name}: {value}')
    return util.canonical_uuid(value)


def requested_fields(req: webob.Request, shape: views.Shape,
                     detail_allowed: bool) -> tuple[str, ...]:
    """``?fields=`` / ``?detail=`` of a list (``detail_allowed``) or a
    show; ``links`` is always rendered."""
    detail = util.query_bool(req, 'detail') if detail_allowed else None
    text = req.GET.get('fields')
    if text is not None and detail:
        raise webob.exc.HTTPBadRequest(
            explanation="Can't fetch a subset of fields with 'detail' set")
    if text is None:
        return shape.list_fields if detail_allowed and not detail \
            else shape.fields
    return listing.selected_fields(text, shape.fields)


def marker(req: webob.Request) -> str | None:
    value = req.GET.get('marker')
    return None if value is None else uuid_arg('marker', value)


def check_allowed(patch: list[dict[str, Any]],
                  allowed: tuple[str, ...]) -> None:
    # The schema's path pattern admits no "~": upstream's decoding of
    # RFC 6901 escapes from 1.98 cannot apply to these resources.
    for operation in patch:
        if operation['path'].split('/')[1] not in allowed:
            raise webob.exc.HTTPBadRequest(
                explanation=f'Cannot patch {operation["path"]}. Only the '
                f'following can be updated: {", ".join(allowed)}')


def apply_patch(document: dict[str, Any],
                patch: list[dict[str, Any]]) -> dict[str, Any]:
    """``patch`` applied one operation at a time (an error names the
    operation), never adding a new top-level field."""
    for operation in patch:
        if (operation['op'] == 'add' and operation['path'].count('/') == 1
                and operation['path'].lstrip('/') not in document):
            raise webob.exc.HTTPBadRequest(
                explanation=f'Adding a new attribute ({operation["path"]}) '
                'to the root of the resource is not allowed')
    document = copy.deepcopy(document)
    for operation in patch:
        try:
            document = jsonpatch.apply_patch(document, [operation])
        except (jsonpatch.JsonPatchException,
                jsonpointer.JsonPointerException, KeyError, IndexError,
                TypeError) as exc:
            raise webob.exc.HTTPBadRequest(
                explanation=f"Couldn't apply patch '{operation}'. Reason: "
                f'{_DOCUMENT.sub("", str(exc))}')
    return document

