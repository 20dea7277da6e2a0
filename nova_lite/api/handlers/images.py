"""Image API v2 subset: the image catalog under ``/image``.

An image is ``queued`` when it is created and ``active`` once its data
is uploaded (``PUT /v2/images/{id}/file``: :mod:`.image_data`, which
also serves it back). Paths, bodies and status codes follow Glance;
there are no microversions. Attributes other than the Glance base ones
are extra string properties, shown at the top level.
"""

from typing import Any
import urllib.parse

from oslo_utils import uuidutils
import webob
import webob.exc

from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.api import util
from nova_lite.api.schemas import images as schema
from nova_lite.api.schemas.responses import image_documents as documents
from nova_lite.compute_api import visibility
from nova_lite.db import images as db

PATCH_TYPES = (
    'application/openstack-images-v2.1-json-patch',
    'application/openstack-images-v2.0-json-patch',
)
DEFAULT_LIMIT = 25
_READ_ONLY = frozenset(
    (
        'id',
        'status',
        'created_at',
        'updated_at',
        'checksum',
        'size',
        'virtual_size',
        'os_hash_algo',
        'os_hash_value',
        'direct_url',
        'self',
        'file',
        'schema',
        'stores',
    )
)
_RESERVED = frozenset(('location', 'locations', 'deleted', 'deleted_at'))


def _view(row: dict[str, Any]) -> dict[str, Any]:
    image_id = row['id']
    body = dict(row['properties'] or {})
    body.update({key: row[key] for key in schema.BASE_PROPERTIES})
    body.update(
        {
            'id': image_id,
            'status': row['status'],
            'tags': list(row['tags'] or []),
            'size': row['size'],
            'virtual_size': None,
            'checksum': row['checksum'],
            'os_hash_algo': row['os_hash_algo'],
            'os_hash_value': row['os_hash_value'],
            'os_hidden': False,
            'created_at': util.isotime(row['created_at']),
            'updated_at': util.isotime(row['updated_at'] or row['created_at']),
            'self': f'/v2/images/{image_id}',
            'file': f'/v2/images/{image_id}/file',
            'schema': '/v2/schemas/image',
        }
    )
    return body


def target(row: dict[str, Any]) -> dict[str, Any]:
    return {'project_id': row['owner']}


def get_visible(req: webob.Request) -> dict[str, Any]:
    """The image in the URL if the caller may see it, else a 404."""
    ctx = util.context(req)
    image_id = req.urlvars['image_id']
    try:
        row = db.image_get(ctx, image_id)
    except exception.ImageNotFound:
        row = None
    if row is None or not visibility.image_visible(ctx, row):
        raise webob.exc.HTTPNotFound(
            explanation=f'No image found with ID {image_id}'
        )
    return row


def _check_writable(keys: Any, creating: bool = False) -> None:
    for key in keys:
        if key in _RESERVED:
            raise webob.exc.HTTPForbidden(
                explanation=f"Attribute '{key}' is reserved."
            )
        if key in _READ_ONLY and not (creating and key == 'id'):
            raise webob.exc.HTTPForbidden(
                explanation=f"Attribute '{key}' is read-only."
            )


def _columns(doc: dict[str, Any]) -> dict[str, Any]:
    """An image document split into columns and extra properties."""
    values = {k: v for k, v in doc.items() if k in schema.BASE_PROPERTIES}
    values['properties'] = {
        k: v
        for k, v in doc.items()
        if k not in schema.BASE_PROPERTIES and k not in ('id', 'os_hidden')
    }
    return values


def image_versions(req: webob.Request) -> webob.Response:
    """GET /image: Glance's version list (300 Multiple Choices)."""
    href = f'{util.base_url(req)}/image/v2/'
    versions = [
        {
            'id': f'v2.{minor}',
            'status': 'CURRENT' if minor == 9 else 'SUPPORTED',
            'links': [{'rel': 'self', 'href': href}],
        }
        for minor in range(9, -1, -1)
    ]
    return util.json_response({'versions': versions}, status=300)


#: Query parameters of the image list that are not property filters
#: (the image's own attributes other than _FILTERS are not filtered on).
_NOT_PROPERTIES = frozenset(
    (
        'id',
        'created_at',
        'updated_at',
        'checksum',
        'os_hash_algo',
        'os_hash_value',
        'virtual_size',
        'limit',
        'marker',
        'sort',
        'sort_key',
        'sort_dir',
        'os_hidden',
        'member_status',
        'tag',
        'size_min',
        'size_max',
    )
)


_FILTERS = ('name', 'status', 'owner', 'visibility')


def _list_filters(req: webob.Request) -> dict[str, Any]:
    filters: dict[str, Any] = {
        key: req.GET[key] for key in _FILTERS if key in req.GET
    }
    # Any other parameter is a property filter, as in Glance
    # (``?instance_uuid=...``): it matches images whose property has
    # that value.
    properties = {
        key: value
        for key, value in req.GET.items()
        if key not in _NOT_PROPERTIES
        and key not in _FILTERS
        and key not in schema.BASE_PROPERTIES
    }
    if properties:
        filters['properties'] = properties
    visibility = filters.get('visibility')
    if visibility == 'all':
        del filters['visibility']
    elif visibility is not None and visibility not in schema.VISIBILITIES:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Invalid visibility value: {visibility}'
        )
    return filters


def _page_links(
    req: webob.Request, rows: list[dict[str, Any]], limit: int
) -> dict[str, str]:
    params = dict(req.GET)
    params.pop('marker', None)
    query = urllib.parse.urlencode(params)
    links = {
        'first': '/v2/images' + (f'?{query}' if query else ''),
        'schema': '/v2/schemas/images',
    }
    if rows and len(rows) == limit:
        params['marker'] = rows[-1]['id']
        links['next'] = '/v2/images?' + urllib.parse.urlencode(params)
    return links


def list_images(req: webob.Request) -> webob.Response:
    util.authorize(req, 'image:get_images')
    ctx = util.context(req)
    limit = min(
        util.query_int(req, 'limit') or DEFAULT_LIMIT,
        util.conf(req).api.max_limit,
    )
    filters = _list_filters(req)
    rows: list[dict[str, Any]] = []
    if not util.query_bool(req, 'os_hidden'):
        marker = req.GET.get('marker')
        try:
            rows = db.image_get_all(
                ctx,
                None if ctx.is_admin else ctx.project_id,
                filters,
                limit=limit,
                marker=marker,
            )
        except exception.ImageNotFound:
            raise webob.exc.HTTPBadRequest(
                explanation=f'Invalid marker. Image {marker} could not be '
                'found.'
            ) from None
    body: dict[str, Any] = {'images': [_view(row) for row in rows]}
    body.update(_page_links(req, rows, limit))
    return util.json_response(body)


def show_image(req: webob.Request) -> webob.Response:
    row = get_visible(req)
    util.authorize(req, 'image:get_image', target(row))
    return util.json_response(_view(row))


def _new_values(req: webob.Request, body: dict[str, Any]) -> dict[str, Any]:
    ctx = util.context(req)
    owner = body.get('owner') or ctx.project_id
    if owner != ctx.project_id and not ctx.is_admin:
        raise webob.exc.HTTPForbidden(
            explanation=f'You are not permitted to create images owned by '
            f"'{owner}'."
        )
    values = _columns(body)
    values.update(
        id=body.get('id') or uuidutils.generate_uuid(),
        status='queued',
        owner=owner,
        visibility=body.get('visibility', 'shared'),
    )
    if values['visibility'] == 'public':
        util.authorize(req, 'image:publicize_image')
    return values


def _check_new_id(ctx: RequestContext, image_id: str) -> None:
    try:
        db.image_get(ctx, image_id)
    except exception.ImageNotFound:
        return
    raise webob.exc.HTTPConflict(
        explanation=f'Image with identifier {image_id} already exists!'
    )


def create_image(req: webob.Request) -> webob.Response:
    ctx = util.context(req)
    util.authorize(req, 'image:add_image', {'project_id': ctx.project_id})
    body = util.read_json(req)
    if isinstance(body, dict):
        _check_writable(body, creating=True)
    util.validate(schema.image, body)
    values = _new_values(req, body)
    _check_new_id(ctx, values['id'])
    row = db.image_create(ctx, values)
    return util.json_response(
        _view(row),
        status=201,
        headers={
            'Location': f'{util.base_url(req)}/image/v2/images/{row["id"]}'
        },
    )


def _pointer_key(path: str) -> str:
    """The top-level attribute a JSON pointer names (nothing nested)."""
    key = path[1:]
    if not key or '/' in key or '~' in key.replace('~0', '').replace('~1', ''):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Invalid JSON pointer for this resource: "{path}"'
        )
    return key.replace('~1', '/').replace('~0', '~')


def _apply(
    doc: dict[str, Any], changes: list[dict[str, Any]]
) -> dict[str, Any]:
    """Apply JSON-patch operations to an image document, as Glance."""
    doc = dict(doc)
    for change in changes:
        key = _pointer_key(change['path'])
        _check_writable([key])
        op = change['op']
        if op == 'remove':
            if key in schema.BASE_PROPERTIES or key == 'os_hidden':
                raise webob.exc.HTTPForbidden(
                    explanation=f'Property {key} may not be removed.'
                )
            if key not in doc:
                raise webob.exc.HTTPConflict(
                    explanation=f'Property {key} does not exist.'
                )
            del doc[key]
            continue
        if 'value' not in change:
            raise webob.exc.HTTPBadRequest(
                explanation=f'Operation "{op}" requires a member named '
                '"value".'
            )
        if op == 'replace' and key not in doc:
            raise webob.exc.HTTPConflict(
                explanation=f'Property {key} does not exist.'
            )
        doc[key] = change['value']
    return doc


def _check_update(
    req: webob.Request, row: dict[str, Any], doc: dict[str, Any]
) -> None:
    util.validate(schema.image, doc)
    if doc['owner'] != row['owner'] and not util.context(req).is_admin:
        raise webob.exc.HTTPForbidden(
            explanation="Owner can't be updated by non admin."
        )
    if doc['visibility'] == 'public' and row['visibility'] != 'public':
        util.authorize(req, 'image:publicize_image')


def update_image(req: webob.Request) -> webob.Response:
    """PATCH with a JSON patch of top-level attributes."""
    if req.content_type not in PATCH_TYPES:
        raise webob.exc.HTTPUnsupportedMediaType(
            explanation=f'Unsupported Content-Type {req.content_type!r}: '
            f'use {PATCH_TYPES[0]}.'
        )
    row = get_visible(req)
    util.authorize(req, 'image:modify_image', target(row))
    changes = util.read_body(req, schema.patch)
    current = {key: row[key] for key in schema.BASE_PROPERTIES}
    doc = _apply(
        {**(row['properties'] or {}), **current, 'os_hidden': False}, changes
    )
    _check_update(req, row, doc)
    row = db.image_update(util.context(req), row['id'], _columns(doc))
    return util.json_response(_view(row))


def delete_image(req: webob.Request) -> webob.Response:
    row = get_visible(req)
    util.authorize(req, 'image:delete_image', target(row))
    if row['protected']:
        raise webob.exc.HTTPForbidden(
            explanation=f'Image {row["id"]} is protected and cannot be '
            'deleted.'
        )
    db.image_destroy(util.context(req), row['id'])
    util.deps(req).image_store.delete(row['id'])
    return webob.Response(status=204)


def show_image_schema(req: webob.Request) -> webob.Response:
    """GET /v2/schemas/image: the image document's JSON schema."""
    util.authorize(req, 'image:get_images')
    return util.json_response(documents.IMAGE)


def show_images_schema(req: webob.Request) -> webob.Response:
    """GET /v2/schemas/images: the image list's JSON schema."""
    util.authorize(req, 'image:get_images')
    return util.json_response(documents.IMAGES)


def show_openapi(req: webob.Request) -> webob.Response:
    """``GET /image/openapi.json``: the Image API's OpenAPI 3.1 document
    (public, like the version documents)."""
    from nova_lite.api import image_openapi

    return util.json_response(image_openapi.document())
