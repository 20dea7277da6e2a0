"""Nodes: list, detail, show, create, update (JSON patch), delete.

Reads go to the database; every write goes to the conductor that owns
the node (``deps.conductor``, :mod:`ironic_lite.conductor.rpcapi`),
which validates it and answers with the node or an exception carrying
the HTTP status.
"""

from typing import Any

from oslo_utils import uuidutils
import webob
import webob.exc

from ironic_lite.api import microversion as mv
from ironic_lite.api import util
from ironic_lite.api.handlers import node_query
from ironic_lite.api.handlers import node_update
from ironic_lite.api.schemas import nodes as schemas
from ironic_lite.api.views import nodes as views
from ironic_lite.db import nodes as db_nodes

#: Fields a client may only send from the version that introduced them.
VERSIONED_INPUT = {
    'name': mv.NAME, 'resource_class': mv.RESOURCE_CLASS,
    'deploy_interface': mv.INTERFACES,
    'management_interface': mv.INTERFACES,
    'power_interface': mv.INTERFACES,
    'automated_clean': mv.AUTOMATED_CLEAN,
    'description': mv.DESCRIPTION,
}


def get_node(req: webob.Request, ident: str) -> dict[str, Any]:
    """The node named by uuid (or by name from 1.5), else a 404."""
    if (not uuidutils.is_uuid_like(ident)
            and util.version(req).below(mv.NAME)):
        raise webob.exc.HTTPNotFound(
            explanation=f'Node {ident} could not be found.')
    return db_nodes.node_get(util.context(req), ident)


def node_view(req: webob.Request, fields: tuple[str, ...]) -> views.NodeView:
    conductor_of = None
    if 'conductor' in fields:
        conductor_of = node_query.ConductorLookup(req)
    return views.NodeView(util.base_url(req), fields, conductor_of)


def check_input_versions(req: webob.Request, body: dict[str, Any]) -> None:
    """406 for a field newer than the version used, as upstream."""
    version = util.version(req)
    for name in body:
        since = VERSIONED_INPUT.get(name)
        if since is not None and version.below(since):
            raise webob.exc.HTTPNotAcceptable(
                explanation=f'The field {name!r} needs API version '
                f'{since} or later; this request uses {version}.')


def check_name(name: Any) -> None:
    if isinstance(name, str) and uuidutils.is_uuid_like(name):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Cannot use a UUID as a node name: {name}.')


@util.translate_errors
def list_nodes(req: webob.Request) -> webob.Response:
    detail = node_query.detail_param(req)
    return _list(req, detail=detail)


@util.translate_errors
def list_nodes_detail(req: webob.Request) -> webob.Response:
    if 'fields' in req.GET:
        raise webob.exc.HTTPBadRequest(
            explanation='Can not specify ?detail=True and fields in the '
            'same request.')
    return _list(req, detail=True)


def _list(req: webob.Request, detail: bool) -> webob.Response:
    util.authorize(req, 'baremetal:node:list')
    fields = node_query.requested_fields(req, detail)
    limit = node_query.page_limit(req)
    rows = db_nodes.node_list(
        util.context(req), node_query.filters(req), limit=limit,
        marker=req.GET.get('marker'),
        sort_key=req.GET.get('sort_key', 'id'),
        sort_dir=req.GET.get('sort_dir', 'asc'))
    body: dict[str, Any] = {
        'nodes': node_view(req, fields).render_all(rows)}
    if rows and len(rows) == limit:
        body['next'] = util.next_url(req, 'nodes', rows[-1]['uuid'], limit)
    return util.json_response(body)


@util.translate_errors
def show_node(req: webob.Request) -> webob.Response:
    util.authorize(req, 'baremetal:node:get')
    fields = node_query.requested_fields(req, detail=True)
    row = get_node(req, req.urlvars['node_ident'])
    return util.json_response(node_view(req, fields).render(row))


@util.translate_errors
def create_node(req: webob.Request) -> webob.Response:
    util.authorize(req, 'baremetal:node:create')
    body = util.read_body(req, schemas.CREATE)
    check_input_versions(req, body)
    check_name(body.get('name'))
    values = dict(body)
    values['uuid'] = body.get('uuid') or uuidutils.generate_uuid()
    ctx = util.context(req)
    # The conductor returns the node it inserted: no second read.
    row = util.deps(req).conductor.create_node(ctx, values)
    view = node_view(req, views.fields_at(util.version(req)))
    location = f'{util.base_url(req)}/v1/nodes/{row["uuid"]}'
    return util.json_response(view.render(row), status=201,
                              headers={'Location': location})


@util.translate_errors
def update_node(req: webob.Request) -> webob.Response:
    util.authorize(req, 'baremetal:node:update')
    patch = util.read_body(req, schemas.PATCH)
    row = get_node(req, req.urlvars['node_ident'])
    values = node_update.patched_values(row, patch)
    check_input_versions(req, values)
    check_name(values.get('name'))
    ctx = util.context(req)
    if values:
        row = util.deps(req).conductor.update_node(ctx, row, values)
    view = node_view(req, views.fields_at(util.version(req)))
    return util.json_response(view.render(row))


@util.translate_errors
def delete_node(req: webob.Request) -> webob.Response:
    util.authorize(req, 'baremetal:node:delete')
    row = get_node(req, req.urlvars['node_ident'])
    util.deps(req).conductor.destroy_node(util.context(req), row)
    return webob.Response(status=204)
