"""Ports (API 1.1): ``/v1/ports``, ``/v1/ports/detail``,
``/v1/ports/{port_ident}`` and the ports of a node
(``/v1/nodes/{node_ident}/ports``, ``.../ports/detail``).

Reads go to the database; creates, updates and deletes to the conductor
of the node (:mod:`ironic_lite.conductor.ports`), which applies
the state rules under the node lock. Fields appear at their upstream
version (:data:`port_values.SINCE`).
"""

import re
from typing import Any

from oslo_utils import uuidutils
import webob
import webob.exc

from ironic_lite import exception
from ironic_lite.api import listing
from ironic_lite.api import microversion as mv
from ironic_lite.api import resource_patch
from ironic_lite.api import util
from ironic_lite.api.handlers import node_access
from ironic_lite.api.handlers import port_query as query
from ironic_lite.api.handlers import port_values as values
from ironic_lite.api.schemas import nodes as node_schemas
from ironic_lite.api.schemas import ports as schemas
from ironic_lite.api.views import ports as views
from ironic_lite.db import nodes as db_nodes
from ironic_lite.db import portgroups as db_portgroups
from ironic_lite.db import ports as db_ports

POLICY = query.POLICY
MALFORMED = 'Malformed request URI.'
#: Columns a request writes (the API's names, but for the links).
COLUMNS = (
    'address',
    'extra',
    'is_smartnic',
    'local_link_connection',
    'physical_network',
    'pxe_enabled',
    'name',
    'description',
    'vendor',
    'category',
    'available_for_dynamic_portgroup',
)
_LOGICAL_NAME = re.compile(node_schemas.NAME_PATTERN)
#: What a removed (null) value becomes.
DEFAULTS = {
    'extra': {},
    'local_link_connection': {},
    'pxe_enabled': True,
    'is_smartnic': False,
}


def _render(
    req: webob.Request, row: dict[str, Any], fields: tuple[str, ...]
) -> dict[str, Any]:
    return views.render(
        util.base_url(req), row, fields, hide_vtep=not values.vtep_allowed(req)
    )


def _list(
    req: webob.Request,
    node_ident: str | None,
    detail_path: bool,
    portgroup_ident: str | None = None,
) -> webob.Response:
    project = query.list_scope(req)
    if portgroup_ident is not None:
        group_node = db_ports.portgroup_id(util.context(req), portgroup_ident)[
            1
        ]
        node = db_nodes.node_get(util.context(req), group_node)
        if not node_access.allowed(
            req, node_access.GET, node_access.target(req, node)
        ):
            raise exception.PortgroupNotFound(portgroup=portgroup_ident)
    if node_ident is not None:
        node_access.check_visible(
            req, node_access.get_node(req, node_ident), node_ident
        )
    listing.check_params(
        req, query.DETAIL_PARAMS if detail_path else query.LIST_PARAMS
    )
    if detail_path:
        fields = query.shown_fields(req, None)
    else:
        fields = query.list_fields(req, query.requested_fields(req))
    found = query.filters(req, node_ident, project, portgroup_ident)
    limit = listing.page_limit(req)
    rows = db_ports.list_page(
        util.context(req),
        found,
        limit=limit,
        marker=listing.marker(req),
        sort_key=req.GET.get('sort_key', 'id'),
        sort_dir=req.GET.get('sort_dir', 'asc'),
    )
    return util.json_response(
        listing.page_body(
            req, 'ports', rows, lambda row: _render(req, row, fields), limit
        )
    )


def list_ports(req: webob.Request) -> webob.Response:
    return _list(req, None, detail_path=False)


def list_ports_detail(req: webob.Request) -> webob.Response:
    return _list(req, None, detail_path=True)


def list_node_ports(req: webob.Request) -> webob.Response:
    return _list(req, req.urlvars['node_ident'], detail_path=False)


def list_node_ports_detail(req: webob.Request) -> webob.Response:
    return _list(req, req.urlvars['node_ident'], detail_path=True)


def list_portgroup_ports(req: webob.Request) -> webob.Response:
    return _list(req, None, False, req.urlvars['portgroup_ident'])


def list_portgroup_ports_detail(req: webob.Request) -> webob.Response:
    return _list(req, None, True, req.urlvars['portgroup_ident'])


def portgroup_port(req: webob.Request) -> webob.Response:
    """A port named (or created) under a portgroup: upstream's 400."""
    db_ports.portgroup_id(util.context(req), req.urlvars['portgroup_ident'])
    raise webob.exc.HTTPBadRequest(explanation=MALFORMED)


def _ident(req: webob.Request) -> int | str:
    ident = req.urlvars['port_ident']
    if uuidutils.is_uuid_like(ident):
        return util.canonical_uuid(ident)
    if not _LOGICAL_NAME.match(ident):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Expected UUID or name for port_ident: {ident}'
        )
    # As upstream, an integer names the port with that database id.
    return int(ident) if ident.isdigit() else ident


def _retrieve(
    req: webob.Request, action: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(port, node) of the path, once the caller may see the node (a 404
    otherwise, as upstream) and ``action`` is allowed."""
    ident = _ident(req)
    port = db_ports.get(util.context(req), ident)
    node = db_nodes.node_get(util.context(req), port['node_id'])
    if not node_access.allowed(
        req, node_access.GET, node_access.target(req, node)
    ):
        raise exception.PortNotFound(port=ident)
    util.authorize(req, POLICY % action, node_access.target(req, node))
    return port, node


def show_port(req: webob.Request) -> webob.Response:
    listing.check_params(req, frozenset({'fields'}))
    port, _ = _retrieve(req, 'get')
    fields = query.shown_fields(req, query.requested_fields(req))
    return util.json_response(_render(req, port, fields))


def _node_for_create(
    req: webob.Request, body: dict[str, Any]
) -> dict[str, Any]:
    if 'node_ident' in body and util.version(req).below(mv.PORT_NODE_IDENT):
        raise values.not_acceptable()
    ident = str(body.get('node_ident') or body.get('node_uuid'))
    try:
        node = node_access.get_node(req, ident)
    except (exception.NodeNotFound, webob.exc.HTTPNotFound):
        node = None
    where = node_access.target(req, node) if node else None
    util.authorize(req, POLICY % 'create', where)
    if node is None:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Node {body.get("node_uuid") or ident} could not '
            'be found.'
        )
    return node


def _portgroup_of(
    req: webob.Request, uuid: str | None, node: dict[str, Any]
) -> int | None:
    return None if not uuid else _portgroup(req, uuid, node)['id']


def _portgroup(
    req: webob.Request, uuid: str, node: dict[str, Any]
) -> dict[str, Any]:
    try:
        group = db_portgroups.get(util.context(req), uuid)
    except exception.PortgroupNotFound as exc:
        raise webob.exc.HTTPBadRequest(explanation=str(exc))
    if group['node_id'] != node['id']:
        raise webob.exc.HTTPBadRequest(
            explanation='Port can not be added to a portgroup belonging '
            'to a different node.'
        )
    return group


def create_port(req: webob.Request) -> webob.Response:
    body = util.read_body(req, {})
    values.validate('port', body, schemas.CREATE)
    body = values.normalized(body)
    node = _node_for_create(req, body)
    values.check_fields(req, body)
    values.check_link(req, body.get('local_link_connection'))
    values.check_smart_nic(body)
    values.check_physical_network(body.get('physical_network'))
    row = {name: body[name] for name in COLUMNS if body.get(name) is not None}
    row.update(
        {
            'node_id': node['id'],
            'uuid': body.get('uuid') or uuidutils.generate_uuid(),
            'portgroup_id': None,
        }
    )
    if body.get('portgroup_uuid'):
        group = _portgroup(req, body['portgroup_uuid'], node)
        row['portgroup_id'] = group['id']
        if body.get('pxe_enabled') and not group['standalone_ports_supported']:
            raise webob.exc.HTTPConflict(
                explanation=f"Port group {group['uuid']} doesn't support "
                'standalone ports. This port cannot be created as a '
                "member of that portgroup as the port's 'pxe_enabled' "
                'field was set to True.'
            )
    for name, default in DEFAULTS.items():
        row.setdefault(name, default)
    port = util.deps(req).conductor.create_port(util.context(req), node, row)
    location = f'{util.base_url(req)}/v1/ports/{port["uuid"]}'
    return util.json_response(
        _render(req, port, query.shown_fields(req, None)),
        status=201,
        headers={'Location': location},
    )


#: The fields whose version upstream checks in a patch (not name,
#: description, vendor...: those may be patched at any version).
PATCH_CHECKED = frozenset(
    {
        'pxe_enabled',
        'local_link_connection',
        'portgroup_uuid',
        'physical_network',
        'is_smartnic',
        'local_link_connection/network_type',
    }
)


def _check_patch_versions(
    req: webob.Request, patch: list[dict[str, Any]]
) -> None:
    values.check_fields(req, {op['path'][1:] for op in patch} & PATCH_CHECKED)


def _patched(
    req: webob.Request,
    port: dict[str, Any],
    node: dict[str, Any],
    patch: list[dict[str, Any]],
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the node the port belongs to after ``patch``, the changed
    columns)."""
    document = {name: port[name] for name in COLUMNS}
    document.update(
        uuid=port['uuid'],
        node_uuid=node['uuid'],
        portgroup_uuid=port['portgroup_uuid'],
        internal_info=port['internal_info'],
    )
    result = resource_patch.apply_patch(document, patch)
    new_node = node
    if result.get('node_uuid') != node['uuid']:
        new_node = node_access.linked_node(
            req, result.get('node_uuid'), 'port'
        )
    result = {
        name: value for name, value in result.items() if name in schemas.FIELDS
    }
    values.validate('patch', result, schemas.CREATE)
    result = values.normalized(result)
    values.check_link(req, result.get('local_link_connection'))
    changed = {
        name: result.get(name)
        for name in COLUMNS
        if result.get(name, DEFAULTS.get(name)) != port[name]
    }
    for name, default in DEFAULTS.items():
        if name in changed and changed[name] is None:
            changed[name] = default
    if 'physical_network' in changed:
        values.check_physical_network(changed['physical_network'])
    group_uuid = result.get('portgroup_uuid')
    if group_uuid != port['portgroup_uuid']:
        changed['portgroup_id'] = _portgroup_of(req, group_uuid, new_node)
    if new_node['id'] != node['id']:
        changed['node_id'] = new_node['id']
    return new_node, changed


def update_port(req: webob.Request) -> webob.Response:
    patch = util.read_body(req, schemas.PATCH)
    resource_patch.check_allowed(patch, schemas.PATCHABLE)
    _check_patch_versions(req, patch)
    port, node = _retrieve(req, 'update')
    new_node, changed = _patched(req, port, node, patch)
    if new_node['provision_state'] == 'inspecting' and not util.version(
        req
    ).below(mv.INSPECT_WAIT):
        raise webob.exc.HTTPConflict(
            explanation=f'Cannot update port "{port["uuid"]}" on '
            f'"{new_node["uuid"]}" while it is in state "inspecting".'
        )
    grouped_since = mv.PORTGROUP_PHYSICAL_NETWORK
    if (
        'physical_network' in changed
        and port['portgroup_id']
        and not util.version(req).below(grouped_since)
    ):
        raise exception.Invalid(
            'physical_network cannot be changed while '
            'the port belongs to a portgroup.'
        )
    row = util.deps(req).conductor.update_port(
        util.context(req), new_node, port['uuid'], changed
    )
    return util.json_response(_render(req, row, query.shown_fields(req, None)))


def delete_port(req: webob.Request) -> webob.Response:
    ident = req.urlvars['port_ident']
    if not uuidutils.is_uuid_like(ident):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Expected UUID for port_uuid: {ident}'
        )
    port, node = _retrieve(req, 'delete')
    util.deps(req).conductor.destroy_port(
        util.context(req), node, port['uuid']
    )
    return webob.Response(status=204)


def node_port(req: webob.Request) -> webob.Response:
    """A port named (or created) under a node: upstream's 400."""
    node_access.get_node(req, req.urlvars['node_ident'])
    raise webob.exc.HTTPBadRequest(explanation=MALFORMED)
