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


@util.translate_errors
def show_volume(req: webob.Request) -> webob.Response:
    util.authorize(req, items.POLICY % 'get')
    return util.json_response(views.links(util.base_url(req), 'volume'))


@util.translate_errors
def show_node_volume(req: webob.Request) -> webob.Response:
    ident = req.urlvars['node_ident']
    node_access.get_node(req, ident)
    util.authorize(req, items.POLICY % 'get')
    return util.json_response(
        views.links(util.base_url(req), f'nodes/{ident}/volume')
    )


@util.translate_errors
def list_connectors(req: webob.Request) -> webob.Response:
    return items.list_items(req, C)


@util.translate_errors
def list_node_connectors(req: webob.Request) -> webob.Response:
    return items.list_items(req, C, req.urlvars['node_ident'])


@util.translate_errors
def create_connector(req: webob.Request) -> webob.Response:
    return items.create_item(req, C)


@util.translate_errors
def show_connector(req: webob.Request) -> webob.Response:
    return items.show_item(req, C)


@util.translate_errors
def update_connector(req: webob.Request) -> webob.Response:
    return items.update_item(req, C)


@util.translate_errors
def delete_connector(req: webob.Request) -> webob.Response:
    return items.delete_item(req, C)


@util.translate_errors
def node_connector_create(req: webob.Request) -> webob.Response:
    return items.malformed(req, C, lookup=False)


@util.translate_errors
def node_connector(req: webob.Request) -> webob.Response:
    return items.malformed(req, C)


@util.translate_errors
def list_targets(req: webob.Request) -> webob.Response:
    return items.list_items(req, T)


@util.translate_errors
def list_node_targets(req: webob.Request) -> webob.Response:
    return items.list_items(req, T, req.urlvars['node_ident'])


@util.translate_errors
def create_target(req: webob.Request) -> webob.Response:
    return items.create_item(req, T)


@util.translate_errors
def show_target(req: webob.Request) -> webob.Response:
    return items.show_item(req, T)


@util.translate_errors
def update_target(req: webob.Request) -> webob.Response:
    return items.update_item(req, T)


@util.translate_errors
def delete_target(req: webob.Request) -> webob.Response:
    return items.delete_item(req, T)


@util.translate_errors
def node_target_create(req: webob.Request) -> webob.Response:
    return items.malformed(req, T, lookup=False)


@util.translate_errors
def node_target(req: webob.Request) -> webob.Response:
    return items.malformed(req, T)
