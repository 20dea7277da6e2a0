"""Every route of ironic-lite-api, in one table.

A path that exists with another method is a 405 with ``Allow``; an
unknown path is a 404 (both in the Bare Metal error format).
"""

from ironic_lite.api.handlers import cleaning
from ironic_lite.api.handlers import drivers
from ironic_lite.api.handlers import node_links
from ironic_lite.api.handlers import node_states
from ironic_lite.api.handlers import nodes
from ironic_lite.api.handlers import root
from lite_common.wsgi.router import RouteTable

_NODE = '/v1/nodes/{node_ident}'

ROUTES: RouteTable = {
    '/': {'GET': root.list_versions},
    '/v1': {'GET': root.show_v1},
    '/openapi.json': {'GET': root.show_openapi},
    '/v1/nodes': {'GET': nodes.list_nodes, 'POST': nodes.create_node},
    '/v1/nodes/detail': {'GET': nodes.list_nodes_detail},
    _NODE: {'GET': nodes.show_node, 'PATCH': nodes.update_node,
            'DELETE': nodes.delete_node},
    _NODE + '/states': {'GET': node_states.show_states},
    _NODE + '/states/power': {'PUT': node_states.set_power_state},
    _NODE + '/states/provision': {'PUT': node_states.set_provision_state},
    _NODE + '/states/raid': {'PUT': node_states.set_raid_config},
    _NODE + '/maintenance': {'PUT': node_states.set_maintenance,
                             'DELETE': node_states.clear_maintenance},
    _NODE + '/cleaning/steps': {'GET': cleaning.list_cleaning_steps},
    _NODE + '/children': {'GET': node_links.list_children},
    '/v1/shards': {'GET': node_links.list_shards},
    '/v1/drivers': {'GET': drivers.list_drivers},
    '/v1/drivers/{driver_name}': {'GET': drivers.show_driver},
}
