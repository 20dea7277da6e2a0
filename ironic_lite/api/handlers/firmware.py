"""``GET /v1/nodes/{node_ident}/firmware`` (API 1.86): the firmware
components of a node, as its firmware interface last recorded them.

As upstream's: by default each component's name and versions (and from
1.114 its vendor, model and serial number); ``?fields=`` picks among
them (the identity fields from 1.114 only); ``?detail=true`` gives
every field (upstream refuses any ``detail``: its schema wants a JSON
boolean, which a query string never is).
"""

from typing import Any

import webob
import webob.exc

from ironic_lite.api import listing
from ironic_lite.api import microversion as mv
from ironic_lite.api import util
from ironic_lite.api.handlers import node_access
from ironic_lite.db import firmware as db_firmware

_VERSIONS = (
    'component',
    'initial_version',
    'current_version',
    'last_version_flashed',
)
_IDENTITY = ('vendor', 'model', 'serial_number')
_ALWAYS = ('created_at', 'updated_at')
#: What ?fields= may name (upstream's schema).
ALL_FIELDS = (*_ALWAYS, *_VERSIONS, *_IDENTITY)


def _fields(req: webob.Request) -> tuple[str, ...]:
    listing.check_params(req, frozenset({'fields', 'detail'}))
    detail = bool(util.query_bool(req, 'detail'))
    identity = util.version(req).at_least(mv.FIRMWARE_IDENTITY)
    if 'fields' not in req.GET:
        return (*_VERSIONS, *_IDENTITY) if identity else _VERSIONS
    fields = listing.schema_fields(req, ALL_FIELDS, detail)
    early = sorted(set(fields) & set(_IDENTITY))
    if early and not identity:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Fields {", ".join(early)} are not allowed in '
            'this API version. They require at least API version '
            f'{mv.FIRMWARE_IDENTITY}.'
        )
    return tuple(fields)


def _view(row: dict[str, Any], fields: tuple[str, ...]) -> dict[str, Any]:
    body = {
        'created_at': util.isotime(row['created_at']),
        'updated_at': util.isotime(row['updated_at']),
    }
    body.update({name: row[name] for name in fields if name not in body})
    return body


def list_firmware(req: webob.Request) -> webob.Response:
    node = node_access.authorized_node(req, 'baremetal:node:firmware:get')
    fields = _fields(req)
    rows = db_firmware.components_of(util.context(req), node['id'])
    return util.json_response(
        {'firmware': [_view(row, fields) for row in rows]}
    )
