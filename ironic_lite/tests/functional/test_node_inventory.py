"""GET /v1/nodes/{node}/inventory (1.81) serves what an inspection
stored, through the whole API stack (in-process, SQLite)."""

import json

import webob

from ironic_lite.db import node_inventory
from ironic_lite.db import nodes
from ironic_lite.tests.functional import fixtures
from lite_common import context as lite_context

INVENTORY = {
    'interfaces': [{'mac_address': '52:54:00:12:34:56'}],
    'cpu': {'count': 4},
    'memory': {'physical_mb': 8192},
}


def _get(app, path, version='1.81'):
    req = webob.Request.blank(
        path,
        headers={
            'X-OpenStack-Ironic-API-Version': version,
            'Accept': 'application/json',
        },
    )
    return req.get_response(app)


def test_the_stored_inventory_is_served_and_goes_with_the_node():
    stack = fixtures.Stack().start()
    try:
        ctx = lite_context.get_admin_context()
        node = nodes.node_create(
            ctx, {'driver': 'fake-hardware', 'name': 'inv-1'}
        )
        assert _get(stack.app, '/v1/nodes/inv-1/inventory').status_int == 404
        node_inventory.store(ctx, node['id'], INVENTORY, {'extra': 1})
        # The next inspection replaces it.
        node_inventory.store(ctx, node['id'], INVENTORY, {'extra': 2})
        response = _get(stack.app, '/v1/nodes/inv-1/inventory')
        assert response.status_int == 200, response.text
        assert json.loads(response.body) == {
            'inventory': INVENTORY,
            'plugin_data': {'extra': 2},
        }
        assert (
            _get(stack.app, '/v1/nodes/inv-1/inventory', '1.80').status_int
            == 404
        )
        nodes.node_destroy(ctx, node['id'])
    finally:
        stack.stop()
