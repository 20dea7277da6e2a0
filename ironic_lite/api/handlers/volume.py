"""The volume resources (1.32): ``/v1/volume``, its connectors and
targets, and the same under ``/v1/nodes/{node_ident}/volume``.

Thin route handlers over :mod:`volume_items`.
"""

import webob

from ironic_lite.api import util
from ironic_lite.api.handlers import node_access
from ironic_lite.api.handlers import volume_items as items
from ironic_lite.api.views import volume as views

C = items.CONNECTORS
T = items.TARGETS


def show_volume(req: webob.Request) -> webob.Response:
    util.authorize(req, items.POLICY % 'get')
    return util.json_response(views.links(util.base_url(req), 'volume'))


def show_node_volume(req: webob.Request) -> webob.Response:
    ident = req.urlvars['node_ident']
    node_access.get_node(req, ident)
    util.authorize(req, items.POLICY % 'get')
    return util.json_response(
        views.links(util.base_url(req), f'nodes/{ident}/volume')
    )


def list_connectors(req: webob.Request) -> webob.Response:
    return items.list_items(req, C)


def list_node_connectors(req: webob.Request) -> webob.Response:
    return items.list_items(req, C, req.urlvars['node_ident'])


def create_connector(req: webob.Request) -> webob.Response:
    return items.create_item(req, C)


def show_connector(req: webob.Request) -> webob.Response:
    return items.show_item(req, C)


def update_connector(req: webob.Request) -> webob.Response:
    return items.update_item(req, C)


def delete_connector(req: webob.Request) -> webob.Response:
    return items.delete_item(req, C)


def node_connector_create(req: webob.Request) -> webob.Response:
    return items.malformed(req, C, lookup=False)


def node_connector(req: webob.Request) -> webob.Response:
    return items.malformed(req, C)


def list_targets(req: webob.Request) -> webob.Response:
    return items.list_items(req, T)


def list_node_targets(req: webob.Request) -> webob.Response:
    return items.list_items(req, T, req.urlvars['node_ident'])


def create_target(req: webob.Request) -> webob.Response:
    return items.create_item(req, T)


def show_target(req: webob.Request) -> webob.Response:
    return items.show_item(req, T)


def update_target(req: webob.Request) -> webob.Response:
    return items.update_item(req, T)


def delete_target(req: webob.Request) -> webob.Response:
    return items.delete_item(req, T)


def node_target_create(req: webob.Request) -> webob.Response:
    return items.malformed(req, T, lookup=False)


def node_target(req: webob.Request) -> webob.Response:
    return items.malformed(req, T)
