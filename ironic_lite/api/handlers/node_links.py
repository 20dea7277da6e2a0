"""Node resources beside the node itself: children (1.83), shards (1.82),
inventory (1.81).

``GET /v1/nodes/{node_ident}/children`` lists the uuids of the nodes
whose ``parent_node`` is that node (those the caller may list);
``GET /v1/shards`` counts the nodes of each shard. Both are 404 below
their version, as upstream.
"""

from typing import Any

import webob
import webob.exc

from ironic_lite.api import util
from ironic_lite.api.handlers import node_access
from ironic_lite.db import node_inventory as db_inventory
from ironic_lite.db import nodes as db_nodes


def list_children(req: webob.Request) -> webob.Response:
    """``GET /v1/nodes/{node_ident}/children`` (1.83)."""
    try:
        parent = node_access.authorized_node(req)
    except webob.exc.HTTPForbidden:
        # Upstream: no telling a caller that the node exists.
        raise webob.exc.HTTPNotFound(
            explanation=f'Node {req.urlvars["node_ident"]} could not be found.'
        )
    filters: dict[str, Any] = {'parent_node': parent['uuid']}
    project = node_access.list_project(req, None)
    if project is not None:
        filters['project'] = project
    uuids = db_nodes.node_uuids(util.context(req), filters)
    href = f'{util.base_url(req)}/v1/nodes?parent_node={parent["uuid"]}'
    return util.json_response(
        {'children': uuids, 'links': {'href': href, 'rel': 'children'}}
    )


def list_shards(req: webob.Request) -> webob.Response:
    """``GET /v1/shards`` (1.82): ``{"name", "count"}`` per shard, the
    largest first; the nodes without a shard count as ``"None"``, as
    upstream."""
    util.authorize(req, 'baremetal:shards:get')
    counts = db_nodes.shard_counts(util.context(req))
    return util.json_response(
        {
            'shards': [
                {'name': str(shard), 'count': count} for shard, count in counts
            ]
        }
    )


def show_inventory(req: webob.Request) -> webob.Response:
    """``GET /v1/nodes/{node_ident}/inventory`` (1.81): what the node's
    last inspection found, ``{"inventory": ..., "plugin_data": ...}``;
    a 404 when no inspection stored any (the fake inspect interface
    stores none, as upstream's)."""
    node = node_access.authorized_node(req, 'baremetal:node:inventory:get')
    return util.json_response(
        db_inventory.get(util.context(req), node['id'], node['uuid'])
    )
