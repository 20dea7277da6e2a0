"""Allocations (API 1.52): ``/v1/allocations`` and the allocation of a
node (``/v1/nodes/{node_ident}/allocation``); PATCH of name and extra
(1.57), backfill of a deployed node (``node``, 1.58), ``owner`` (1.60).

As upstream: the allocation is recorded by a conductor, which finds it a
node asynchronously (:mod:`ironic_lite.conductor.allocations`): the
create answers 201 with the allocation ``allocating``. Below 1.52 the
reads are a 404 and the writes a 405; PATCH below 1.57 a 405. A member
of a project creates allocations owned by the project (and only among
the project's nodes); seeing every allocation is for administrators.
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
from ironic_lite.api.handlers import node_traits
from ironic_lite.api.schemas import nodes as node_schemas
from ironic_lite.db import allocations as db_allocations
from ironic_lite.db import nodes as db_nodes

POLICY = 'baremetal:allocation:%s'
FIELDS = (
    'candidate_nodes',
    'created_at',
    'extra',
    'last_error',
    'links',
    'name',
    'node_uuid',
    'owner',
    'resource_class',
    'state',
    'traits',
    'updated_at',
    'uuid',
)
LIST_PARAMS = frozenset(
    {
        'node',
        'resource_class',
        'state',
        'owner',
        'marker',
        'limit',
        'sort_key',
        'sort_dir',
        'fields',
    }
)
PATCHABLE = ('name', 'extra')
_NAME = re.compile(node_schemas.NAME_PATTERN)
_NOT_ALLOWED = 'The API version does not allow allocations'

CREATE: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'candidate_nodes': {
            'type': ['array', 'null'],
            'items': {'type': 'string'},
        },
        'extra': {'type': ['object', 'null']},
        'name': {'type': ['string', 'null']},
        'node': {'type': ['string', 'null']},
        'owner': {'type': ['string', 'null']},
        'resource_class': {'type': ['string', 'null'], 'maxLength': 80},
        'traits': {
            'type': ['array', 'null'],
            'items': {'type': 'string', 'maxLength': 255},
        },
        'uuid': {'type': ['string', 'null']},
    },
    'additionalProperties': False,
}


def _require(
    req: webob.Request, write: bool = False, since: str = mv.ALLOCATIONS
) -> None:
    if util.version(req).below(since):
        if write:
            raise webob.exc.HTTPMethodNotAllowed(
                explanation=_NOT_ALLOWED
                if since == mv.ALLOCATIONS
                else 'The API version does not allow updating allocations'
            )
        raise webob.exc.HTTPNotFound(explanation=_NOT_ALLOWED)


def _shown(req: webob.Request) -> tuple[str, ...]:
    if util.version(req).below(mv.ALLOCATION_OWNER):
        return tuple(name for name in FIELDS if name != 'owner')
    return FIELDS


def _fields(req: webob.Request) -> tuple[str, ...]:
    text = req.GET.get('fields')
    if text is None:
        return _shown(req)
    if 'owner' in text.split(',') and util.version(req).below(
        mv.ALLOCATION_OWNER
    ):
        raise webob.exc.HTTPNotAcceptable(
            explanation='The owner field needs API version '
            f'{mv.ALLOCATION_OWNER} or later.'
        )
    return listing.selected_fields(text, _shown(req))


def render(
    req: webob.Request, row: dict[str, Any], fields: tuple[str, ...]
) -> dict[str, Any]:
    item: dict[str, Any] = {}
    for name in fields:
        if name == 'links':
            item[name] = util.links_at(
                util.base_url(req), 'allocations', row['uuid']
            )
        elif name in ('created_at', 'updated_at'):
            item[name] = util.isotime(row[name])
        elif name in ('traits', 'candidate_nodes'):
            item[name] = list(row[name] or [])
        elif name == 'extra':
            item[name] = row[name] or {}
        else:
            item[name] = row[name]
    return item


def _target(req: webob.Request, row: dict[str, Any]) -> dict[str, Any]:
    ctx = util.context(req)
    where = {'project_id': ctx.project_id}
    if row.get('owner'):
        where['allocation.owner'] = row['owner']
    return where


def _ident(value: str) -> str:
    if uuidutils.is_uuid_like(value):
        return util.canonical_uuid(value)
    if not _NAME.match(value):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Expected UUID or name for allocation_ident: {value}'
        )
    return value


def _retrieve(req: webob.Request, action: str) -> dict[str, Any]:
    """The allocation of the path once ``action`` is allowed on it; a
    404 for a project-scoped caller who may not see it."""
    ident = _ident(req.urlvars['allocation_ident'])
    row = db_allocations.get(util.context(req), ident)
    where = _target(req, row)
    if not node_access.allowed(req, POLICY % 'get', where):
        if util.context(req).project_id:
            raise exception.AllocationNotFound(allocation=ident)
        util.authorize(req, POLICY % 'get', where)
    util.authorize(req, POLICY % action, where)
    return row


def _list_owner(req: webob.Request, requested: str | None) -> str | None:
    """The owner a list is narrowed to: the caller's project unless it
    may see every allocation (403 when it names another)."""
    util.authorize(req, POLICY % 'list')
    if node_access.allowed(req, POLICY % 'list_all', {}):
        return requested
    project = util.context(req).project_id
    if requested is not None and requested != project:
        raise webob.exc.HTTPForbidden(
            explanation='Not authorized to list the allocations of '
            'another project.'
        )
    return project


def _page(
    req: webob.Request,
    node: dict[str, Any] | None,
    owner: str | None,
    fields: tuple[str, ...],
) -> dict[str, Any]:
    get = req.GET
    sort_key = get.get('sort_key', 'id')
    if sort_key in db_allocations.UNSORTABLE:
        raise webob.exc.HTTPBadRequest(
            explanation=f'The sort_key value {sort_key} is an invalid field '
            'for sorting'
        )
    state = get.get('state')
    found = db_allocations.Filters(
        node_id=node['id'] if node else None,
        resource_class=get.get('resource_class'),
        state=state,
        owner=owner,
    )
    limit = listing.page_limit(req)
    rows = db_allocations.list_page(
        util.context(req),
        found,
        limit=limit,
        marker=listing.marker(req),
        sort_key=sort_key,
        sort_dir=get.get('sort_dir', 'asc'),
    )
    return listing.page_body(
        req, 'allocations', rows, lambda row: render(req, row, fields), limit
    )


def list_allocations(req: webob.Request) -> webob.Response:
    _require(req)
    listing.check_params(req, LIST_PARAMS)
    requested = req.GET.get('owner')
    if requested is not None and util.version(req).below(mv.ALLOCATION_OWNER):
        raise webob.exc.HTTPNotAcceptable(
            explanation='The owner filter needs API version '
            f'{mv.ALLOCATION_OWNER} or later.'
        )
    owner = _list_owner(req, requested)
    fields = _fields(req)
    node = None
    if req.GET.get('node'):
        ident = req.GET['node']
        try:
            node = node_access.get_node(req, ident)
        except exception.NodeNotFound as exc:
            raise webob.exc.HTTPBadRequest(explanation=str(exc))
        if not node_access.allowed(
            req, node_access.GET, node_access.target(req, node)
        ):
            raise webob.exc.HTTPBadRequest(
                explanation=f'Node {ident} could not be found.'
            )
    return util.json_response(_page(req, node, owner, fields))


def show_allocation(req: webob.Request) -> webob.Response:
    _require(req)
    listing.check_params(req, frozenset({'fields'}))
    row = _retrieve(req, 'get')
    return util.json_response(render(req, row, _fields(req)))


def _creator_owner(req: webob.Request, body: dict[str, Any]) -> str | None:
    """The owner of a new allocation: as given by an administrator
    (``create_restricted``); a project member's own project otherwise
    (403 when it names another)."""
    util.authorize(req, POLICY % 'create')
    owner = body.get('owner')
    if node_access.allowed(req, POLICY % 'create_restricted', {}):
        return str(owner) if owner else None
    project = util.context(req).project_id
    if owner and owner != project:
        raise webob.exc.HTTPForbidden(
            explanation=f'Cannot create allocation with an owner Project '
            f'ID value {owner} not matching the requester Project ID '
            f'{project}. Policy baremetal:allocation:create_restricted is '
            'required for this capability.'
        )
    return project


def _candidates(
    req: webob.Request, idents: list[str], project: str | None
) -> list[str]:
    """The uuids of the candidate nodes (by uuid or name); a 400 for one
    that does not exist (or that the project may not use)."""
    uuids = []
    for ident in idents:
        try:
            node = node_access.get_node(req, ident)
        except exception.NodeNotFound:
            node = None
        if node is None or (
            project is not None
            and project not in (node.get('owner'), node.get('lessee'))
        ):
            raise webob.exc.HTTPBadRequest(
                explanation=f'Node {ident} could not be found.'
            )
        uuids.append(node['uuid'])
    return uuids


def _backfill_node(req: webob.Request, ident: str) -> dict[str, Any]:
    if util.version(req).below(mv.ALLOCATION_BACKFILL):
        raise webob.exc.HTTPBadRequest(
            explanation='Cannot set node when creating an allocation in '
            'this API version'
        )
    try:
        node = node_access.get_node(req, ident)
    except exception.NodeNotFound as exc:
        raise webob.exc.HTTPBadRequest(explanation=str(exc))
    node_access.check_visible(req, node, ident)
    return node


def _check_create(req: webob.Request, body: dict[str, Any]) -> None:
    if body.get('uuid') and not uuidutils.is_uuid_like(body['uuid']):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Expected UUID for uuid: {body["uuid"]}'
        )
    if body.get('owner') and util.version(req).below(mv.ALLOCATION_OWNER):
        raise webob.exc.HTTPNotAcceptable(
            explanation='The owner field needs API version '
            f'{mv.ALLOCATION_OWNER} or later.'
        )
    name = body.get('name')
    if name and not _NAME.match(name):
        raise webob.exc.HTTPBadRequest(
            explanation=f"Cannot create allocation with invalid name '{name}'"
        )
    for trait in body.get('traits') or ():
        node_traits.check_trait(trait)


def create_allocation(req: webob.Request) -> webob.Response:
    _require(req, write=True)
    body = util.read_body(req, CREATE)
    _check_create(req, body)
    owner = _creator_owner(req, body)
    node = _backfill_node(req, body['node']) if body.get('node') else None
    resource_class = body.get('resource_class')
    if not resource_class:
        if node is None:
            raise webob.exc.HTTPBadRequest(
                explanation='The resource_class field is mandatory when '
                'not backfilling'
            )
        resource_class = node['resource_class']
    restricted = node_access.allowed(req, POLICY % 'create_restricted', {})
    candidates = _candidates(
        req,
        body.get('candidate_nodes') or [],
        None if restricted else util.context(req).project_id,
    )
    uuid = body.get('uuid')
    if uuid:
        uuid = util.canonical_uuid(uuid)
    elif node is not None and node['instance_uuid']:
        uuid = node['instance_uuid']
    else:
        uuid = uuidutils.generate_uuid()
    values = {
        'uuid': uuid,
        'name': body.get('name'),
        'owner': owner,
        'resource_class': resource_class,
        'traits': list(dict.fromkeys(body.get('traits') or [])),
        'candidate_nodes': candidates,
        'extra': body.get('extra') or {},
    }
    conductor = util.deps(req).conductor
    if node is not None:
        row = conductor.create_allocation(util.context(req), values, node=node)
    else:
        row = conductor.create_allocation(util.context(req), values)
    location = f'{util.base_url(req)}/v1/allocations/{row["uuid"]}'
    return util.json_response(
        render(req, row, _shown(req)),
        status=201,
        headers={'Location': location},
    )


def update_allocation(req: webob.Request) -> webob.Response:
    _require(req, write=True, since=mv.ALLOCATION_UPDATE)
    patch = util.read_body(req, node_schemas.PATCH)
    row = _retrieve(req, 'update')
    resource_patch.check_allowed(patch, PATCHABLE)
    document = resource_patch.apply_patch(
        {'name': row['name'], 'extra': row['extra'] or {}}, patch
    )
    name = document.get('name')
    if name is not None and (
        not isinstance(name, str) or not _NAME.match(name)
    ):
        raise webob.exc.HTTPBadRequest(
            explanation=f"Cannot update allocation with invalid name '{name}'"
        )
    extra = document.get('extra')
    if extra is not None and not isinstance(extra, dict):
        raise webob.exc.HTTPBadRequest(explanation='extra must be an object')
    row = db_allocations.update(
        util.context(req), row['id'], {'name': name, 'extra': extra or {}}
    )
    return util.json_response(render(req, row, _shown(req)))


def delete_allocation(req: webob.Request) -> webob.Response:
    _require(req, write=True)
    row = _retrieve(req, 'delete')
    _destroy(req, row)
    return webob.Response(status=204)


def _destroy(req: webob.Request, row: dict[str, Any]) -> None:
    conductor = util.deps(req).conductor
    node = None
    if row['node_id'] is not None:
        node = db_nodes.node_get(util.context(req), row['node_id'])
    conductor.destroy_allocation(util.context(req), row, node=node)


def _node_allocation(
    req: webob.Request,
) -> tuple[dict[str, Any], dict[str, Any]]:
    ident = req.urlvars['node_ident']
    node = node_access.get_node(req, ident)
    node_access.check_visible(req, node, ident)
    rows = db_allocations.list_page(
        util.context(req), db_allocations.Filters(node_id=node['id']), limit=1
    )
    if not rows:
        raise exception.AllocationNotFound(allocation=f'for node {ident}')
    return node, rows[0]


def show_node_allocation(req: webob.Request) -> webob.Response:
    listing.check_params(req, frozenset({'fields'}))
    _, row = _node_allocation(req)
    return util.json_response(render(req, row, _fields(req)))


def delete_node_allocation(req: webob.Request) -> webob.Response:
    _, row = _node_allocation(req)
    util.authorize(req, POLICY % 'delete', _target(req, row))
    _destroy(req, row)
    return webob.Response(status=204)
