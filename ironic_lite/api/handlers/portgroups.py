"""Portgroups (API 1.23): ``/v1/portgroups``, ``/v1/portgroups/detail``,
``/v1/portgroups/{portgroup_ident}``, its ports (1.24) and the
portgroups of a node (``/v1/nodes/{node_ident}/portgroups``, 1.24).

As upstream: a portgroup is created by the API (no conductor needed);
updates and deletes go to the conductor of the node, under its lock
(:mod:`ironic_lite.conductor.ports`). ``mode`` and
``properties`` appear at 1.26, ``physical_network`` at 1.102,
``category`` at 1.103 and ``dynamic_portgroup`` at 1.111.
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
from ironic_lite.api.handlers import port_query
from ironic_lite.api.handlers import port_values as values
from ironic_lite.api.schemas import nodes as node_schemas
from ironic_lite.api.schemas import portgroups as schemas
from ironic_lite.db import nodes as db_nodes
from ironic_lite.db import portgroups as db_portgroups
from ironic_lite.db import ports as db_ports

POLICY = 'baremetal:portgroup:%s'
FIELDS = (
    'uuid',
    'address',
    'name',
    'extra',
    'internal_info',
    'mode',
    'properties',
    'standalone_ports_supported',
    'node_uuid',
    'physical_network',
    'category',
    'dynamic_portgroup',
    'created_at',
    'updated_at',
    'links',
    'ports',
)
LIST_FIELDS = ('uuid', 'address', 'name', 'links')
#: (The ports link is shown from 1.23, as upstream; it leads somewhere
#: from 1.24.)
SINCE = {
    'mode': mv.PORTGROUP_MODE,
    'properties': mv.PORTGROUP_MODE,
    'physical_network': mv.PORTGROUP_PHYSICAL_NETWORK,
    'category': mv.PORTGROUP_CATEGORY,
    'dynamic_portgroup': mv.DYNAMIC_PORTGROUP,
}
LIST_PARAMS = frozenset(
    {
        'node',
        'address',
        'marker',
        'limit',
        'sort_key',
        'sort_dir',
        'fields',
        'detail',
        'shard',
        'conductor_groups',
    }
)
#: Columns a request writes.
COLUMNS = (
    'address',
    'name',
    'extra',
    'mode',
    'properties',
    'standalone_ports_supported',
    'physical_network',
    'category',
)
DEFAULTS = {'extra': {}, 'properties': {}, 'standalone_ports_supported': True}
_LOGICAL_NAME = re.compile(node_schemas.NAME_PATTERN)


def _render(
    req: webob.Request, row: dict[str, Any], fields: tuple[str, ...]
) -> dict[str, Any]:
    base = util.base_url(req)
    item: dict[str, Any] = {}
    for name in fields:
        if name == 'links':
            item[name] = util.links_at(base, 'portgroups', row['uuid'])
        elif name == 'ports':
            item[name] = util.links_at(
                base, 'portgroups', row['uuid'], '/ports'
            )
        elif name in ('created_at', 'updated_at'):
            item[name] = util.isotime(row[name])
        else:
            item[name] = row[name]
    return item


def _shown(
    req: webob.Request, wanted: tuple[str, ...] | None
) -> tuple[str, ...]:
    version = util.version(req)
    shown = tuple(
        name
        for name in FIELDS
        if name not in SINCE or not version.below(SINCE[name])
    )
    return (
        shown
        if wanted is None
        else tuple(name for name in wanted if name in shown)
    )


def _check_fields(req: webob.Request, names: Any) -> None:
    version = util.version(req)
    for name in names:
        if name in ('mode', 'properties') and version.below(mv.PORTGROUP_MODE):
            raise values.not_acceptable()
        if name == 'dynamic_portgroup' and version.below(
            SINCE['dynamic_portgroup']
        ):
            raise values.not_acceptable()


def _fields(req: webob.Request) -> tuple[str, ...] | None:
    text = req.GET.get('fields')
    if text is None:
        return None
    _check_fields(req, [f.strip() for f in text.split(',')])
    return listing.selected_fields(text, FIELDS)


def _list(
    req: webob.Request, node_ident: str | None, detail_path: bool
) -> webob.Response:
    project = port_query.list_scope(req, POLICY)
    if node_ident is not None:
        node_access.check_visible(
            req, node_access.get_node(req, node_ident), node_ident
        )
    listing.check_params(
        req, LIST_PARAMS - ({'fields', 'detail'} if detail_path else set())
    )
    get = req.GET
    if get.get('shard') is not None and util.version(req).below(
        mv.PORTGROUP_SHARD
    ):
        raise values.not_acceptable()
    _check_fields(req, [get.get('sort_key', 'id')])
    if detail_path:
        fields = _shown(req, None)
    else:
        fields = port_query.list_fields(req, _fields(req), LIST_FIELDS, _shown)
    node = node_ident or get.get('node')
    address = get.get('address')
    if address is not None:
        address = values.mac('address', address)
    shards = port_query.split_list(get.get('shard'))
    groups = port_query.split_list(get.get('conductor_groups'))
    if sum(1 for item in (node, address, shards, groups) if item) > 1:
        raise exception.Invalid(
            'Filtering by node, address, or shard '
            'simultaneously is not supported.'
        )
    found = db_ports.Filters(
        node_id=(node_access.get_node(req, node)['id'] if node else None),
        address=address if not node else None,
        shards=shards or None,
        conductor_groups=groups or None,
        project=project,
    )
    limit = listing.page_limit(req)
    rows = db_portgroups.list_page(
        util.context(req),
        found,
        limit=limit,
        marker=listing.marker(req),
        sort_key=get.get('sort_key', 'id'),
        sort_dir=get.get('sort_dir', 'asc'),
    )
    return util.json_response(
        listing.page_body(
            req,
            'portgroups',
            rows,
            lambda row: _render(req, row, fields),
            limit,
        )
    )


def list_portgroups(req: webob.Request) -> webob.Response:
    return _list(req, None, detail_path=False)


def list_portgroups_detail(req: webob.Request) -> webob.Response:
    return _list(req, None, detail_path=True)


def list_node_portgroups(req: webob.Request) -> webob.Response:
    return _list(req, req.urlvars['node_ident'], detail_path=False)


def list_node_portgroups_detail(req: webob.Request) -> webob.Response:
    return _list(req, req.urlvars['node_ident'], detail_path=True)


def _ident(req: webob.Request) -> int | str:
    ident = req.urlvars['portgroup_ident']
    if uuidutils.is_uuid_like(ident):
        return util.canonical_uuid(ident)
    if not _LOGICAL_NAME.match(ident):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Expected UUID or name for portgroup: {ident}'
        )
    return int(ident) if ident.isdigit() else ident


def retrieve(
    req: webob.Request, action: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(portgroup, node) of the path once the caller may see the node
    (404 otherwise) and ``action`` is allowed."""
    ident = _ident(req)
    group = db_portgroups.get(util.context(req), ident)
    node = db_nodes.node_get(util.context(req), group['node_id'])
    where = node_access.target(req, node)
    if not node_access.allowed(req, node_access.GET, where):
        raise exception.PortgroupNotFound(portgroup=ident)
    util.authorize(req, POLICY % action, where)
    return group, node


def show_portgroup(req: webob.Request) -> webob.Response:
    listing.check_params(req, frozenset({'fields'}))
    group, _ = retrieve(req, 'get')
    return util.json_response(_render(req, group, _shown(req, _fields(req))))


def _check_name(name: Any, message: str) -> None:
    if name and not _LOGICAL_NAME.match(str(name)):
        raise webob.exc.HTTPBadRequest(explanation=message)


def create_portgroup(req: webob.Request) -> webob.Response:
    body = util.read_body(req, {})
    values.validate('portgroup', body, schemas.CREATE)
    body = schemas_normalized(body)
    try:
        node = node_access.get_node(req, body['node_uuid'])
    except (exception.NodeNotFound, webob.exc.HTTPNotFound):
        node = None
    util.authorize(
        req, POLICY % 'create', node_access.target(req, node) if node else None
    )
    if node is None:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Node {body["node_uuid"]} could not be found.'
        )
    if util.version(req).below(mv.PORTGROUP_MODE) and (
        body.get('mode') or body.get('properties')
    ):
        raise values.not_acceptable()
    _check_name(
        body.get('name'),
        f"Cannot create portgroup with invalid name '{body.get('name')}'",
    )
    row = {name: body[name] for name in COLUMNS if body.get(name) is not None}
    row.setdefault('mode', util.deps(req).default_portgroup_mode)
    for name, default in DEFAULTS.items():
        row.setdefault(name, default)
    row.update(
        node_id=node['id'], uuid=body.get('uuid') or uuidutils.generate_uuid()
    )
    group = db_portgroups.create(util.context(req), row)
    location = f'{util.base_url(req)}/v1/portgroups/{group["uuid"]}'
    return util.json_response(
        _render(req, group, _shown(req, None)),
        status=201,
        headers={'Location': location},
    )


def schemas_normalized(body: dict[str, Any]) -> dict[str, Any]:
    """Upstream's PORTGROUP_VALIDATOR_EXTRA."""
    body = dict(body)
    if body.get('address') is not None:
        body['address'] = values.mac('address', body['address'])
    for name in ('node_uuid', 'uuid'):
        if name in body:
            body[name] = values.uuid(name, body[name])
    if 'standalone_ports_supported' in body:
        body['standalone_ports_supported'] = values.boolean(
            'standalone_ports_supported', body['standalone_ports_supported']
        )
    return body


def _patched(
    req: webob.Request,
    group: dict[str, Any],
    node: dict[str, Any],
    patch: list[dict[str, Any]],
) -> tuple[dict[str, Any], dict[str, Any]]:
    document = {name: group[name] for name in COLUMNS}
    document.update(
        uuid=group['uuid'],
        node_uuid=node['uuid'],
        internal_info=group['internal_info'],
        dynamic_portgroup=group['dynamic_portgroup'],
    )
    result = resource_patch.apply_patch(document, patch)
    new_node = node
    if result.get('node_uuid') != node['uuid']:
        new_node = node_access.linked_node(
            req, result.get('node_uuid'), 'portgroup'
        )
    if 'mode' not in result:
        raise webob.exc.HTTPBadRequest(
            explanation="'mode' is a mandatory attribute and can not be "
            'removed'
        )
    result = {
        name: value for name, value in result.items() if name in schemas.FIELDS
    }
    values.validate('patch', result, schemas.CREATE)
    result = schemas_normalized(result)
    changed = {
        name: result.get(name)
        for name in COLUMNS
        if result.get(name, DEFAULTS.get(name)) != group[name]
    }
    for name, default in DEFAULTS.items():
        if name in changed and changed[name] is None:
            changed[name] = default
    if new_node['id'] != node['id']:
        changed['node_id'] = new_node['id']
    return new_node, changed


def update_portgroup(req: webob.Request) -> webob.Response:
    patch = util.read_body(req, schemas.PATCH)
    group, node = retrieve(req, 'update')
    touched = {op['path'] for op in patch}
    if util.version(req).below(mv.PORTGROUP_MODE) and touched & {
        '/mode',
        '/properties',
    }:
        raise values.not_acceptable()
    resource_patch.check_allowed(patch, schemas.PATCHABLE)
    for operation in patch:
        if operation['path'] == '/name' and operation['op'] != 'remove':
            _check_name(
                operation.get('value'),
                f'Portgroup {req.urlvars["portgroup_ident"]}: Cannot '
                'change name to invalid name '
                f"'{operation.get('value')}'",
            )
    new_node, changed = _patched(req, group, node, patch)
    if new_node['provision_state'] == 'inspecting' and not util.version(
        req
    ).below(mv.INSPECT_WAIT):
        raise webob.exc.HTTPConflict(
            explanation=f'Cannot update portgroup "{group["uuid"]}" on node '
            f'"{new_node["uuid"]}" while it is in state "inspecting".'
        )
    row = util.deps(req).conductor.update_portgroup(
        util.context(req), new_node, group['uuid'], changed
    )
    return util.json_response(_render(req, row, _shown(req, None)))


def delete_portgroup(req: webob.Request) -> webob.Response:
    group, node = retrieve(req, 'delete')
    util.deps(req).conductor.destroy_portgroup(
        util.context(req), node, group['uuid']
    )
    return webob.Response(status=204)


def node_portgroup(req: webob.Request) -> webob.Response:
    """A portgroup named (or created) under a node: upstream's 400."""
    node_access.get_node(req, req.urlvars['node_ident'])
    raise webob.exc.HTTPBadRequest(explanation='Malformed request URI.')
