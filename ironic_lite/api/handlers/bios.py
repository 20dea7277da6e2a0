"""``GET /v1/nodes/{node_ident}/bios`` and ``.../bios/{setting}`` (API
1.40): the BIOS settings of a node, as its BIOS interface last recorded
them; the registry fields (type, bounds, allowed values ...) with
``?detail=true`` and in a single setting from 1.74. ``?fields=`` picks
fields (the name, timestamps and links always come, as upstream's)."""

from typing import Any

import webob
import webob.exc

from ironic_lite.api import listing
from ironic_lite.api import microversion as mv
from ironic_lite.api import util
from ironic_lite.api.handlers import node_access
from ironic_lite.db import bios as db_bios

_BASE = ('created_at', 'updated_at', 'name', 'value')
_REGISTRY = tuple(f for f in db_bios.FIELDS if f != 'value')
#: What ?fields= may name (upstream's list).
ALL_FIELDS = tuple(sorted((*_BASE, *_REGISTRY, 'links', 'node_uuid')))
_ALWAYS = ('created_at', 'updated_at', 'links')


def _node(req: webob.Request) -> dict[str, Any]:
    return node_access.authorized_node(req, 'baremetal:node:bios:get')


def _view(
    req: webob.Request, ident: str, row: dict[str, Any], registry: bool
) -> dict[str, Any]:
    body = {
        'created_at': util.isotime(row['created_at']),
        'updated_at': util.isotime(row['updated_at']),
        'name': row['name'],
        'value': row['value'],
    }
    if registry:
        body.update({k: row[k] for k in _REGISTRY})
        body['allowable_values'] = row['allowable_values'] or []
    body['links'] = util.links_at(
        util.base_url(req), 'nodes', ident, f'/bios/{row["name"]}'
    )
    return body


def _query(req: webob.Request) -> tuple[bool, list[str] | None]:
    """(detail, fields): both 1.74's (400 before, upstream's schema
    answer), not together."""
    for name in ('detail', 'fields'):
        if name in req.GET and util.version(req).below(mv.BIOS_REGISTRY):
            raise webob.exc.HTTPBadRequest(
                explanation='Schema error: Additional properties are not '
                f"allowed ('{name}' was unexpected)"
            )
    detail = bool(util.query_bool(req, 'detail'))
    if 'fields' not in req.GET:
        return detail, None
    return detail, listing.schema_fields(req, ALL_FIELDS, detail)


def list_bios(req: webob.Request) -> webob.Response:
    node = _node(req)
    detail, fields = _query(req)
    ident = req.urlvars['node_ident']
    settings = []
    for row in db_bios.settings_of(util.context(req), node['id']):
        body = _view(req, ident, row, detail or fields is not None)
        if fields is not None:
            body = {
                k: v for k, v in body.items() if k in fields or k in _ALWAYS
            }
        settings.append(body)
    return util.json_response({'bios': settings})


def show_bios(req: webob.Request) -> webob.Response:
    node = _node(req)
    name = req.urlvars['setting_name']
    rows = db_bios.settings_of(util.context(req), node['id'], name)
    if not rows:
        raise webob.exc.HTTPNotFound(
            explanation=f"Node {node['uuid']} doesn't have a BIOS setting "
            f"'{name}'"
        )
    registry = util.version(req).at_least(mv.BIOS_REGISTRY)
    return util.json_response(
        {name: _view(req, node['uuid'], rows[0], registry)}
    )
