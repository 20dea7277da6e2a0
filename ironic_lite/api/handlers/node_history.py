"""``GET /v1/nodes/{node_ident}/history`` and ``.../history/{event}``
(1.78): the events the conductors recorded for a node."""

from typing import Any

from oslo_utils import uuidutils
import webob
import webob.exc

from ironic_lite.api import listing
from ironic_lite.api import util
from ironic_lite.api.handlers import node_access
from ironic_lite.api.views import node_history as views
from ironic_lite.db import node_history as db_history

_POLICY = 'baremetal:node:history:get'
_LIST_PARAMS = frozenset({'detail', 'marker', 'limit', 'sort_key', 'sort_dir'})


def _node(req: webob.Request) -> dict[str, Any]:
    return node_access.authorized_node(req, _POLICY)


def list_history(req: webob.Request) -> webob.Response:
    node = _node(req)
    listing.check_params(req, _LIST_PARAMS)
    detail = bool(util.query_bool(req, 'detail'))
    limit = listing.page_limit(req)
    rows = db_history.list_page(
        util.context(req),
        node['id'],
        limit=limit,
        marker=listing.marker(req),
        sort_key=req.GET.get('sort_key', 'created_at'),
        sort_dir=req.GET.get('sort_dir', 'asc'),
    )
    fields = views.fields_at(util.version(req), detail)
    base = util.base_url(req)
    body: dict[str, Any] = {
        'history': [
            views.render(base, node['uuid'], row, fields, detail)
            for row in rows
        ]
    }
    if rows and len(rows) == limit:
        collection = f'nodes/{req.urlvars["node_ident"]}/history'
        body['next'] = util.next_url(req, collection, rows[-1]['uuid'], limit)
    return util.json_response(body)


def show_history_event(req: webob.Request) -> webob.Response:
    node = _node(req)
    listing.check_params(req, frozenset())
    ident = req.urlvars['event_ident']
    if not uuidutils.is_uuid_like(ident):
        raise webob.exc.HTTPNotFound(
            explanation=f'Node history record {ident} could not be found.'
        )
    row = db_history.get(
        util.context(req), node['id'], util.canonical_uuid(ident)
    )
    fields = views.fields_at(util.version(req), True)
    return util.json_response(
        views.render(util.base_url(req), node['uuid'], row, fields, True)
    )
