"""Nodes: list, detail, show, create, update (JSON patch), delete.

Reads go to the database; every write goes to the conductor that owns
the node (``deps.conductor``, :mod:`ironic_lite.conductor.rpcapi`),
which validates it and answers with the node or an exception carrying
the HTTP status.
"""

from typing import Any

import orjson
from oslo_utils import uuidutils
import webob
import webob.exc

from ironic_lite import exception
from ironic_lite.api import json_suffix
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
    if uuidutils.is_uuid_like(ident):
        ident = util.canonical_uuid(ident)
    elif util.version(req).below(mv.NAME):
        raise webob.exc.HTTPNotFound(
            explanation=f'Node {ident} could not be found.')
    try:
        return db_nodes.node_get(util.context(req), ident)
    except exception.NodeNotFound:
        if not json_suffix.had_suffix(req.environ):
            raise
        # Below 1.91 "x.json" was taken for "x": it may be the name.
        return db_nodes.node_get(util.context(req),
                                 ident + json_suffix.SUFFIX)


def get_node_of(req: webob.Request) -> dict[str, Any]:
    """The node of the request's path (``{node_ident}``)."""
    return get_node(req, req.urlvars['node_ident'])


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


def check_sizes(values: dict[str, Any]) -> None:
    """400 for a dictionary field whose JSON does not fit its column (a
    TEXT column: 65,535 bytes on MySQL/MariaDB)."""
    for name in schemas.DICT_FIELDS:
        value = values.get(name)
        if not value:
            continue
        size = len(orjson.dumps(value))
        if size > schemas.MAX_DICT_BYTES:
            raise webob.exc.HTTPBadRequest(
                explanation=f'The field {name} is too large: {size} bytes '
                f'of JSON, at most {schemas.MAX_DICT_BYTES}.')


def check_name(name: Any) -> None:
    if isinstance(name, str) and uuidutils.is_uuid_like(name):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Cannot use a UUID as a node name: {name}.')


def canonical_uuids(values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with ``uuid`` and ``instance_uuid`` as stored (lower
    case, dashes): a node is then found by any spelling of them."""
    result = dict(values)
    for name in ('uuid', 'instance_uuid'):
        if result.get(name):
            result[name] = util.canonical_uuid(result[name])
    return result


@util.translate_errors
def list_nodes(req: webob.Request) -> webob.Response:
    detail = node_query.detail_param(req)
    return _list(req, detail, 'nodes')


@util.translate_errors
def list_nodes_detail(req: webob.Request) -> webob.Response:
    if 'fields' in req.GET:
        raise webob.exc.HTTPBadRequest(
            explanation='Can not specify ?detail=True and fields in the '
            'same request.')
    return _list(req, True, 'nodes/detail')


def _list(req: webob.Request, detail: bool,
          collection: str) -> webob.Response:
    """A page of nodes; ``next`` goes on in the same ``collection``."""
    util.authorize(req, 'baremetal:node:list')
    fields = node_query.requested_fields(req, detail)
    limit = node_query.page_limit(req)
    filters = node_query.filters(req)
    rows = db_nodes.node_list(
        util.context(req), filters, limit=limit,
        marker=node_query.marker(req),
        sort_key=req.GET.get('sort_key', 'id'),
        sort_dir=req.GET.get('sort_dir', 'asc'))
    body: dict[str, Any] = {
        'nodes': node_view(req, fields).render_all(rows)}
    if rows and len(rows) == limit:
        body['next'] = util.next_url(req, collection, rows[-1]['uuid'],
                                     limit)
    return util.json_response(body)


@util.translate_errors
def show_node(req: webob.Request) -> webob.Response:
    util.authorize(req, 'baremetal:node:get')
    fields = node_query.requested_fields(req, detail=True)
    row = get_node_of(req)
    return util.json_response(node_view(req, fields).render(row))


@util.translate_errors
def create_node(req: webob.Request) -> webob.Response:
    util.authorize(req, 'baremetal:node:create')
    body = util.read_body(req, schemas.CREATE)
    check_input_versions(req, body)
    check_name(body.get('name'))
    check_sizes(body)
    values = canonical_uuids(body)
    if not values.get('uuid'):
        values['uuid'] = uuidutils.generate_uuid()
    ctx = util.context(req)
    # The conductor returns the node it inserted: no second read.
    row = util.deps(req).conductor.create_node(ctx, values)
    view = node_view(req, views.fields_at(util.version(req)))
    location = f'{util.base_url(req)}/v1/nodes/{row["uuid"]}'
    return util.json_response(view.render(row), status=201,
                              headers={'Location': location})


#: Times a PATCH is applied again to a node another request changed
#: since it was read, before the client gets the 409.
PATCH_ATTEMPTS = 3


def _patch(req: webob.Request, patch: list[dict[str, Any]]
           ) -> dict[str, Any]:
    """Apply ``patch`` to the node as read now and store the result only
    if nothing changed the node since (its revision): read, patch and
    write again when something did."""
    ctx = util.context(req)
    for attempt in range(1, PATCH_ATTEMPTS + 1):
        row = get_node_of(req)
        values = canonical_uuids(node_update.patched_values(row, patch))
        check_input_versions(req, values)
        check_name(values.get('name'))
        check_sizes(values)
        if not values:
            return row
        try:
            return util.deps(req).conductor.update_node(
                ctx, row, values, expected_revision=row['revision'])
        except exception.NodeChanged:
            if attempt == PATCH_ATTEMPTS:
                raise
    raise AssertionError('unreachable')


@util.translate_errors
def update_node(req: webob.Request) -> webob.Response:
    util.authorize(req, 'baremetal:node:update')
    patch = util.read_body(req, schemas.PATCH)
    row = _patch(req, patch)
    view = node_view(req, views.fields_at(util.version(req)))
    return util.json_response(view.render(row))


@util.translate_errors
def delete_node(req: webob.Request) -> webob.Response:
    util.authorize(req, 'baremetal:node:delete')
    row = get_node_of(req)
    util.deps(req).conductor.destroy_node(util.context(req), row)
    return webob.Response(status=204)
