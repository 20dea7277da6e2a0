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
from ironic_lite.api import listing
from ironic_lite.api import microversion as mv
from ironic_lite.api import util
from ironic_lite.api.handlers import node_access
from ironic_lite.api.handlers import node_fields
from ironic_lite.api.handlers import node_query
from ironic_lite.api.handlers import node_update
from ironic_lite.api.schemas import nodes as schemas
from ironic_lite.api.views import nodes as views
from ironic_lite.common import states
from ironic_lite.db import allocations as db_allocations
from ironic_lite.db import chassis as db_chassis
from ironic_lite.db import node_traits as db_traits
from ironic_lite.db import nodes as db_nodes
from lite_common.wsgi import handling
from lite_common.wsgi import json_body


def node_view(req: webob.Request, fields: tuple[str, ...]) -> views.NodeView:
    conductor_of = None
    if 'conductor' in fields:
        conductor_of = node_query.ConductorLookup(req)
    ctx = util.context(req)
    return views.NodeView(
        util.base_url(req),
        fields,
        conductor_of,
        legacy=views.legacy_states(util.version(req)),
        redact=node_access.redactor(req),
        traits_of=lambda ids: db_traits.traits_of(ctx, ids),
        chassis_of=lambda ids: db_chassis.uuids_of(ctx, ids),
        allocation_of=lambda ids: db_allocations.uuids_of(ctx, ids),
    )


def with_chassis_uuid(
    req: webob.Request, row: dict[str, Any]
) -> dict[str, Any]:
    """``row`` with its ``chassis_uuid`` (a patch may change it)."""
    chassis_id = row.get('chassis_id')
    if chassis_id is None:
        return {**row, 'chassis_uuid': None}
    uuids = db_chassis.uuids_of(util.context(req), [chassis_id])
    return {**row, 'chassis_uuid': uuids.get(chassis_id)}


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
                f'of JSON, at most {schemas.MAX_DICT_BYTES}.'
            )


def canonical_uuids(values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with ``uuid`` and ``instance_uuid`` as stored (lower
    case, dashes): a node is then found by any spelling of them."""
    result = dict(values)
    for name in ('uuid', 'instance_uuid'):
        if result.get(name):
            result[name] = util.canonical_uuid(result[name])
    return result


def list_nodes(req: webob.Request) -> webob.Response:
    detail = node_query.detail_param(req)
    return _list(req, detail, 'nodes')


def list_nodes_detail(req: webob.Request) -> webob.Response:
    if 'fields' in req.GET:
        raise webob.exc.HTTPBadRequest(
            explanation='Can not specify ?detail=True and fields in the '
            'same request.'
        )
    return _list(req, True, 'nodes/detail')


def _list(req: webob.Request, detail: bool, collection: str) -> webob.Response:
    """A page of nodes; ``next`` goes on in the same ``collection``."""
    project = node_access.list_project(req, req.GET.get('project'))
    fields = node_query.requested_fields(req, detail)
    limit = listing.page_limit(req)
    filters = node_query.filters(req)
    if project is not None:
        filters['project'] = project
    chassis_id = node_query.chassis_filter(req)
    if chassis_id is not None:
        filters['chassis_id'] = chassis_id
    conductor = node_query.conductor_filter(req)
    rows = db_nodes.node_list(
        util.context(req),
        filters,
        limit=limit,
        marker=node_query.marker(req),
        sort_key=node_query.sort_key(req),
        sort_dir=req.GET.get('sort_dir', 'asc'),
    )
    # The page is full when the query filled it, whatever the conductor
    # filter (applied to the page, as the hash ring is not in the
    # database) leaves: the next page goes on after the last row read.
    full = bool(rows) and len(rows) == limit
    last = rows[-1]['uuid'] if full else None
    if conductor is not None:
        lookup = node_query.ConductorLookup(req)
        rows = [row for row in rows if lookup(row) == conductor]
    body: dict[str, Any] = {'nodes': node_view(req, fields).render_all(rows)}
    if last is not None:
        body['next'] = util.next_url(req, collection, last, limit)
    return util.json_response(body)


def show_node(req: webob.Request) -> webob.Response:
    fields = node_query.requested_fields(req, detail=True)
    row = node_access.authorized_node(req)
    return util.json_response(node_view(req, fields).render(row))


def _self_service(req: webob.Request) -> bool:
    """Whether ``[api]project_admin_can_manage_own_nodes`` lets a
    project's administrator manage its own nodes (1.80)."""
    return bool(util.deps(req).conf.api.project_admin_can_manage_own_nodes)


def _authorize_create(req: webob.Request) -> bool:
    """Whether the caller creates the node as its project's own
    (``baremetal:node:create:self_owned_node``), else once
    ``baremetal:node:create`` allows it, as upstream."""
    if _self_service(req) and node_access.allowed(
        req, 'baremetal:node:create:self_owned_node'
    ):
        return True
    util.authorize(req, 'baremetal:node:create')
    return False


def _own_node(req: webob.Request, values: dict[str, Any]) -> None:
    """A project-scoped creator's node is its project's."""
    ctx = util.context(req)
    if ctx.system_scope == 'all':
        return
    requested = values.get('owner')
    if requested and requested != ctx.project_id:
        raise webob.exc.HTTPBadRequest(
            explanation='Cannot create a node as a project scoped admin '
            'with an owner other than your own project.'
        )
    values['owner'] = ctx.project_id


def create_node(req: webob.Request) -> webob.Response:
    self_owned = _authorize_create(req)
    body = json_body.read(req)
    # Upstream's order: the schema, then the fields newer than the
    # version (406), and only then the name's characters (a bad name at
    # 1.1 is a 406, not a 400).
    if isinstance(body, dict):
        handling.validate(
            schemas.CREATE, {k: v for k, v in body.items() if k != 'name'}
        )
        node_fields.check_input_versions(req, body)
    handling.validate(schemas.CREATE, body)
    node_fields.check_name(req, body.get('name'), creating=True)
    check_sizes(body)
    values = node_fields.normalize(canonical_uuids(body))
    if self_owned:
        _own_node(req, values)
    node_fields.resolve_parent(req, values, values.get('owner'))
    node_fields.resolve_chassis(req, values, creating=True)
    if not values.get('uuid'):
        values['uuid'] = uuidutils.generate_uuid()
    ctx = util.context(req)
    # Before 1.11 a node starts in available, as upstream.
    initial = (
        states.AVAILABLE
        if util.version(req).below(mv.ENROLL_STATE)
        else states.ENROLL
    )
    # The conductor returns the node it inserted: no second read.
    row = util.deps(req).conductor.create_node(
        ctx, values, provision_state=initial
    )
    view = node_view(req, views.fields_at(util.version(req)))
    location = f'{util.base_url(req)}/v1/nodes/{row["uuid"]}'
    return util.json_response(
        view.render(row), status=201, headers={'Location': location}
    )


#: Times a PATCH is applied again to a node another request changed
#: since it was read, before the client gets the 409.
PATCH_ATTEMPTS = 3


def _patch(req: webob.Request, patch: list[dict[str, Any]]) -> dict[str, Any]:
    """Apply ``patch`` to the node as read now and store the result only
    if nothing changed the node since (its revision): read, patch and
    write again when something did."""
    ctx = util.context(req)
    ident = req.urlvars['node_ident']
    for attempt in range(1, PATCH_ATTEMPTS + 1):
        row = with_chassis_uuid(req, node_access.get_node(req, ident))
        if row['provision_state'] == states.INSPECTING and util.version(
            req
        ).at_least(mv.INSPECT_WAIT):
            # From 1.39 an inspection that runs is not changed under it.
            raise webob.exc.HTTPConflict(
                explanation=f'Cannot update node "{row["uuid"]}" while it '
                f'is in state "{states.INSPECTING}".'
            )
        values = node_fields.normalize(
            canonical_uuids(node_update.patched_values(row, patch))
        )
        node_update.reset_interfaces(req, patch, values)
        node_fields.check_input_versions(req, values)
        node_fields.check_name(req, values.get('name'), creating=False)
        check_sizes(values)
        if not values:
            return row
        _check_owner_change(req, row, values)
        node_fields.sync_instance_name(row, values)
        node_fields.resolve_chassis(req, values, creating=False)
        if 'parent_node' in values:
            node_fields.resolve_parent(
                req, values, values.get('owner', row['owner'])
            )
        try:
            # To the conductor of the node as changed: a new conductor
            # group is served by the conductors of that group.
            return util.deps(req).conductor.update_node(
                ctx,
                {**row, **values},
                values,
                expected_revision=row['revision'],
            )
        except exception.NodeChanged:
            if attempt == PATCH_ATTEMPTS:
                raise
    raise AssertionError('unreachable')


def _check_owner_change(
    req: webob.Request, row: dict[str, Any], values: dict[str, Any]
) -> None:
    """The owner of an active node changes only for those allowed
    ``baremetal:node:update_owner_provisioned`` (409 otherwise)."""
    if 'owner' not in values or row['provision_state'] != states.ACTIVE:
        return
    if not node_access.allowed(
        req,
        'baremetal:node:update_owner_provisioned',
        node_access.target(req, row),
    ):
        raise webob.exc.HTTPConflict(
            explanation=f'Cannot update owner of node "{row["uuid"]}" '
            f'while it is in state "{states.ACTIVE}".'
        )


def update_node(req: webob.Request) -> webob.Response:
    patch = util.read_body(req, schemas.PATCH)
    node_access.authorized_node(req, *node_access.patch_rules(patch))
    row = _patch(req, patch)
    view = node_view(req, views.fields_at(util.version(req)))
    return util.json_response(view.render(row))


def delete_node(req: webob.Request) -> webob.Response:
    try:
        row = node_access.authorized_node(req, 'baremetal:node:delete')
    except webob.exc.HTTPForbidden:
        if not _self_service(req):
            raise
        # A project's administrator deletes the nodes it owns (1.80).
        row = node_access.authorized_node(
            req, 'baremetal:node:delete:self_owned_node'
        )
    util.deps(req).conductor.destroy_node(util.context(req), row)
    return webob.Response(status=204)
