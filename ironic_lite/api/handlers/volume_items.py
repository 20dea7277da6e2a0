"""Volume connectors and targets: list, show, create, update, delete.

Connectors and targets work alike; a :class:`Resource` says what
differs. Reads and creates go to the database (as upstream, a new
connector or target needs no conductor); updates and deletes go to the
conductor of the node, which takes the node lock and checks its power
state (:mod:`ironic_lite.conductor.volumes`).
"""

import dataclasses
from typing import Any

from oslo_utils import uuidutils
import webob
import webob.exc

from ironic_lite import exception
from ironic_lite.api import listing
from ironic_lite.api import resource_patch
from ironic_lite.api import util
from ironic_lite.api.handlers import node_access
from ironic_lite.api.handlers import volume_query as query
from ironic_lite.api.schemas import volume as schemas
from ironic_lite.api.views import volume as views
from ironic_lite.db import nodes as db_nodes
from ironic_lite.db import volumes as db_volumes
from lite_common import policy as lite_policy

POLICY = 'baremetal:volume:%s'
#: Upstream's answer to a connector or target named under a node.
MALFORMED = 'Malformed request URI.'


@dataclasses.dataclass(frozen=True)
class Resource:
    kind: db_volumes.Kind
    shape: views.Shape
    create_schema: dict[str, Any]
    fields_schema: dict[str, Any]
    required: tuple[str, ...]
    #: The name of its uuid in errors and of its RPC calls.
    name: str

    @property
    def patchable(self) -> tuple[str, ...]:
        return tuple(sorted(self.fields_schema))


CONNECTORS = Resource(
    db_volumes.CONNECTORS,
    views.CONNECTOR,
    schemas.CONNECTOR_CREATE,
    schemas.CONNECTOR_FIELDS,
    ('connector_id', 'node_uuid', 'type'),
    'volume_connector',
)
TARGETS = Resource(
    db_volumes.TARGETS,
    views.TARGET,
    schemas.TARGET_CREATE,
    schemas.TARGET_FIELDS,
    ('boot_index', 'node_uuid', 'volume_id', 'volume_type'),
    'volume_target',
)


def _show_properties(req: webob.Request) -> bool:
    return lite_policy.check(
        util.deps(req).enforcer,
        util.context(req),
        POLICY % 'view_target_properties',
    )


def _render(
    req: webob.Request,
    res: Resource,
    row: dict[str, Any],
    fields: tuple[str, ...] | None = None,
) -> dict[str, Any]:
    return views.render(
        util.base_url(req),
        res.shape,
        row,
        fields or res.shape.fields,
        _show_properties(req),
    )


def _list_scope(req: webob.Request) -> str | None:
    """None when the reader may list everything
    (``baremetal:volume:list_all``), else its project, whose nodes' items
    it may list (``baremetal:volume:list``), as upstream."""
    enforcer = util.deps(req).enforcer
    ctx = util.context(req)
    if lite_policy.check(enforcer, ctx, POLICY % 'list_all'):
        return None
    if not ctx.project_id:
        util.authorize(req, POLICY % 'list_all')
    util.authorize(req, POLICY % 'list')
    return str(ctx.project_id)


def list_items(
    req: webob.Request, res: Resource, node_ident: str | None = None
) -> webob.Response:
    """A page; of one node's items with ``node_ident`` (a nested list)
    or ``?node=``."""
    node_id = None
    if node_ident is not None:
        node_id = node_access.get_node(req, node_ident)['id']
    project = _list_scope(req)
    listing.check_params(req, query.LIST_PARAMS)
    fields = query.requested_fields(req, res.shape, detail_allowed=True)
    limit = listing.page_limit(req)
    if node_id is None and req.GET.get('node') is not None:
        node_id = node_access.get_node(req, req.GET['node'])['id']
    rows = db_volumes.list_page(
        util.context(req),
        res.kind,
        node_id,
        limit=limit,
        marker=listing.marker(req),
        sort_key=req.GET.get('sort_key', 'id'),
        sort_dir=req.GET.get('sort_dir', 'asc'),
        project=project,
    )
    show = _show_properties(req)
    base = util.base_url(req)
    return util.json_response(
        listing.page_body(
            req,
            res.shape.item_name,
            rows,
            lambda row: views.render(base, res.shape, row, fields, show),
            limit,
        )
    )


def _get(req: webob.Request, res: Resource, action: str) -> dict[str, Any]:
    uuid = listing.uuid_arg(
        f'{res.name.split("_")[1]}_uuid', req.urlvars['item_uuid']
    )
    util.authorize(req, POLICY % action)
    return db_volumes.get(util.context(req), res.kind, uuid)


def show_item(req: webob.Request, res: Resource) -> webob.Response:
    listing.check_params(req, frozenset({'fields'}))
    fields = query.requested_fields(req, res.shape, detail_allowed=False)
    row = _get(req, res, 'get')
    return util.json_response(_render(req, res, row, fields))


def _node_of(req: webob.Request, node_uuid: str) -> dict[str, Any]:
    """The node a body names: a 400 when it does not exist."""
    value = listing.uuid_arg('node_uuid', node_uuid)
    try:
        return db_nodes.node_get(util.context(req), value)
    except exception.NodeNotFound:
        raise webob.exc.HTTPBadRequest(
            explanation='Invalid input for field/attribute node_uuid. '
            f"Value: '{node_uuid}'. "
        )


def create_item(req: webob.Request, res: Resource) -> webob.Response:
    util.authorize(req, POLICY % 'create')
    body = util.read_body(req, res.create_schema)
    values = {
        name: body[name]
        for name in res.fields_schema
        if name in body and name != 'node_uuid'
    }
    if body.get('uuid'):
        values['uuid'] = listing.uuid_arg('uuid', body['uuid'])
    for name in ('extra', 'properties'):
        if name in res.fields_schema:
            values[name] = values.get(name) or {}
    values['node_id'] = _node_of(req, body['node_uuid'])['id']
    row = db_volumes.create(util.context(req), res.kind, values)
    location = f'{util.base_url(req)}/v1/{res.shape.collection}/{row["uuid"]}'
    return util.json_response(
        _render(req, res, row), status=201, headers={'Location': location}
    )


def _patched(
    req: webob.Request,
    res: Resource,
    row: dict[str, Any],
    patch: list[dict[str, Any]],
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the node the item belongs to after the patch, changed values)."""
    resource_patch.check_allowed(patch, res.patchable)
    for operation in patch:
        if operation['path'] == '/node_uuid' and operation['op'] != 'remove':
            value = operation.get('value')
            if not isinstance(value, str) or not uuidutils.is_uuid_like(value):
                raise webob.exc.HTTPBadRequest(
                    explanation='Expected a UUID for node_uuid, but '
                    f'received {value}.'
                )
    document = {name: row[name] for name in res.fields_schema}
    result = resource_patch.apply_patch(document, patch)
    util.validate(
        {
            'type': 'object',
            'properties': res.fields_schema,
            'required': list(res.required),
        },
        result,
    )
    node_id = row['node_id']
    if result['node_uuid'] != row['node_uuid']:
        node_id = _node_of(req, result['node_uuid'])['id']
    node = db_nodes.node_get(util.context(req), node_id)
    values = {
        name: result.get(name)
        for name in res.fields_schema
        if name != 'node_uuid' and result.get(name) != row[name]
    }
    for name in ('extra', 'properties'):
        if name in values and values[name] is None:
            values[name] = {}
    if node_id != row['node_id']:
        values['node_id'] = node_id
    return node, values


def update_item(req: webob.Request, res: Resource) -> webob.Response:
    row = _get(req, res, 'update')
    patch = util.read_body(req, schemas.PATCH)
    node, values = _patched(req, res, row, patch)
    # Even without a change, as upstream: the node must be powered off.
    row = util.deps(req).conductor.update_volume(
        util.context(req), node, res.name, row['uuid'], values
    )
    return util.json_response(_render(req, res, row))


def delete_item(req: webob.Request, res: Resource) -> webob.Response:
    row = _get(req, res, 'delete')
    node = db_nodes.node_get(util.context(req), row['node_id'])
    util.deps(req).conductor.destroy_volume(
        util.context(req), node, res.name, row['uuid']
    )
    return webob.Response(status=204)


def malformed(
    req: webob.Request, res: Resource, lookup: bool = True
) -> webob.Response:
    """A connector or target named under a node (or created there): the
    item is looked up first (404), then upstream's 400."""
    node_access.get_node(req, req.urlvars['node_ident'])
    if lookup:
        _get(req, res, 'get')
    raise webob.exc.HTTPBadRequest(explanation=MALFORMED)
