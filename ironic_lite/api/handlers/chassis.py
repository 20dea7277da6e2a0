"""Chassis (API 1.1): ``/v1/chassis``, ``/v1/chassis/detail``,
``/v1/chassis/{chassis_uuid}`` and the nodes of a chassis
(``/v1/chassis/{chassis_uuid}/nodes``, ``.../nodes/detail``: the node
list handlers, which filter by the chassis of the path).

A chassis is written by the API (no conductor owns it, as upstream);
one that still has nodes is not deleted (400).
"""

from typing import Any

from oslo_utils import uuidutils
import webob
import webob.exc

from ironic_lite.api import listing
from ironic_lite.api import microversion as mv
from ironic_lite.api import resource_patch
from ironic_lite.api import util
from ironic_lite.api.schemas import nodes as node_schemas
from ironic_lite.db import chassis as db_chassis

FIELDS = (
    'uuid',
    'description',
    'extra',
    'created_at',
    'updated_at',
    'links',
    'nodes',
)
LIST_FIELDS = ('uuid', 'description', 'links')
PATCHABLE = ('description', 'extra')

_DESCRIPTION = {'type': ['string', 'null'], 'maxLength': 255}
CREATE_SCHEMA: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'uuid': {
            'type': ['string', 'null'],
            'pattern': node_schemas.UUID_PATTERN,
        },
        'description': _DESCRIPTION,
        'extra': {'type': ['object', 'null']},
    },
    'additionalProperties': False,
}
UPDATED_SCHEMA: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'description': _DESCRIPTION,
        'extra': {'type': ['object', 'null']},
    },
}


def _links(base: str, uuid: str, suffix: str = '') -> list[dict[str, str]]:
    return util.links_at(base, 'chassis', uuid, suffix)


def render(
    req: webob.Request, row: dict[str, Any], fields: tuple[str, ...]
) -> dict[str, Any]:
    base = util.base_url(req)
    values = {
        'uuid': row['uuid'],
        'description': row['description'],
        'extra': row['extra'] or {},
        'created_at': util.isotime(row['created_at']),
        'updated_at': util.isotime(row['updated_at']),
        'links': _links(base, row['uuid']),
        'nodes': _links(base, row['uuid'], '/nodes'),
    }
    return {name: values[name] for name in fields}


def _fields(req: webob.Request, default: tuple[str, ...]) -> tuple[str, ...]:
    text = req.GET.get('fields')
    if text is None:
        return default
    if util.version(req).below(mv.FIELDS):
        raise webob.exc.HTTPNotAcceptable(
            explanation='The fields query parameter needs API version '
            f'{mv.FIELDS} or later.'
        )
    return listing.selected_fields(text, FIELDS)


def _uuid(req: webob.Request) -> str:
    uuid = req.urlvars['chassis_uuid']
    if not uuidutils.is_uuid_like(uuid):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Expected a UUID for chassis: {uuid[:100]}'
        )
    return util.canonical_uuid(uuid)


def _list(
    req: webob.Request, fields: tuple[str, ...], collection: str
) -> webob.Response:
    util.authorize(req, 'baremetal:chassis:get')
    limit = listing.page_limit(req)
    rows = db_chassis.chassis_list(
        util.context(req),
        limit=limit,
        marker=listing.marker(req),
        sort_key=req.GET.get('sort_key', 'id'),
        sort_dir=req.GET.get('sort_dir', 'asc'),
    )
    body: dict[str, Any] = {
        'chassis': [render(req, row, fields) for row in rows]
    }
    if rows and len(rows) == limit:
        body['next'] = util.next_url(req, collection, rows[-1]['uuid'], limit)
    return util.json_response(body)


def list_chassis(req: webob.Request) -> webob.Response:
    detail = False
    if 'detail' in req.GET:
        if util.version(req).below(mv.DETAIL_PARAM):
            raise webob.exc.HTTPBadRequest(
                explanation='Invalid query parameter ?detail=True received.'
            )
        detail = bool(util.query_bool(req, 'detail'))
        if detail and 'fields' in req.GET:
            raise webob.exc.HTTPBadRequest(
                explanation="Can't fetch a subset of fields with 'detail' set"
            )
    fields = FIELDS if detail else _fields(req, LIST_FIELDS)
    return _list(req, fields, 'chassis')


def list_chassis_detail(req: webob.Request) -> webob.Response:
    if 'fields' in req.GET:
        raise webob.exc.HTTPBadRequest(
            explanation="Can't fetch a subset of fields with 'detail' set"
        )
    return _list(req, FIELDS, 'chassis/detail')


def show_chassis(req: webob.Request) -> webob.Response:
    util.authorize(req, 'baremetal:chassis:get')
    row = db_chassis.chassis_get(util.context(req), _uuid(req))
    return util.json_response(render(req, row, _fields(req, FIELDS)))


def create_chassis(req: webob.Request) -> webob.Response:
    util.authorize(req, 'baremetal:chassis:create')
    body = util.read_body(req, CREATE_SCHEMA)
    values = {
        'uuid': util.canonical_uuid(body['uuid'])
        if body.get('uuid')
        else uuidutils.generate_uuid(),
        'description': body.get('description'),
        'extra': body.get('extra') or {},
    }
    row = db_chassis.chassis_create(util.context(req), values)
    location = f'{util.base_url(req)}/v1/chassis/{row["uuid"]}'
    return util.json_response(
        render(req, row, FIELDS), status=201, headers={'Location': location}
    )


def update_chassis(req: webob.Request) -> webob.Response:
    util.authorize(req, 'baremetal:chassis:update')
    patch = util.read_body(req, node_schemas.PATCH)
    uuid = _uuid(req)
    row = db_chassis.chassis_get(util.context(req), uuid)
    resource_patch.check_allowed(patch, PATCHABLE)
    document = resource_patch.apply_patch(
        {'description': row['description'], 'extra': row['extra'] or {}}, patch
    )
    util.validate(UPDATED_SCHEMA, document)
    changes = {
        name: (
            document.get(name) if name != 'extra' else document.get(name) or {}
        )
        for name in PATCHABLE
        if document.get(name) != row[name]
    }
    if changes:
        row = db_chassis.chassis_update(util.context(req), uuid, changes)
    return util.json_response(render(req, row, FIELDS))


def delete_chassis(req: webob.Request) -> webob.Response:
    util.authorize(req, 'baremetal:chassis:delete')
    db_chassis.chassis_destroy(util.context(req), _uuid(req))
    return webob.Response(status=204)
