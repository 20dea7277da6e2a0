"""Query parameters of the port lists, checked in upstream's order
(406 for what the request's version lacks, 400 for bad values)."""

from collections.abc import Callable
from typing import Any

from oslo_utils import uuidutils
import webob
import webob.exc

from ironic_lite import exception
from ironic_lite.api import listing
from ironic_lite.api import microversion as mv
from ironic_lite.api import util
from ironic_lite.api.handlers import node_access
from ironic_lite.api.handlers import port_values as values
from ironic_lite.api.views import ports as views
from ironic_lite.db import ports as db_ports
from lite_common import policy as lite_policy

POLICY = 'baremetal:port:%s'
LIST_PARAMS = frozenset(
    {
        'node',
        'node_uuid',
        'address',
        'marker',
        'limit',
        'sort_key',
        'sort_dir',
        'fields',
        'portgroup',
        'detail',
        'shard',
        'description_contains',
        'conductor_groups',
    }
)
DETAIL_PARAMS = LIST_PARAMS - {'fields', 'detail'}


def split_list(text: str | None) -> tuple[str, ...] | None:
    if text is None:
        return None
    return tuple(item.strip() for item in text.split(',') if item.strip())


def requested_fields(req: webob.Request) -> tuple[str, ...] | None:
    """``?fields=`` (1.8; 406 for a field newer than the request), or
    None for every field."""
    text = req.GET.get('fields')
    if text is None:
        return None
    if util.version(req).below(mv.FIELDS):
        raise values.not_acceptable()
    values.check_fields(req, split_list(text) or ())
    return listing.selected_fields(text, views.FIELDS)


def list_fields(
    req: webob.Request,
    wanted: tuple[str, ...] | None,
    default: tuple[str, ...] = views.LIST_FIELDS,
    shown: Callable[[webob.Request, tuple[str, ...] | None], tuple[str, ...]]
    | None = None,
) -> tuple[str, ...]:
    """The fields of a list: ``wanted`` (``?fields=``), every field with
    ``?detail=true`` (1.43), else ``default``; ``shown`` cuts them to
    the request's version (ports' by default)."""
    detail = util.query_bool(req, 'detail')
    if detail is not None and util.version(req).below(mv.DETAIL_PARAM):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Invalid query parameter ?detail={detail} received.'
        )
    if wanted is not None and detail:
        raise webob.exc.HTTPBadRequest(
            explanation='Can not specify ?detail=True and fields in the '
            'same request.'
        )
    if wanted is None and not detail:
        return default
    return (shown or shown_fields)(req, wanted)


def shown_fields(
    req: webob.Request, wanted: tuple[str, ...] | None
) -> tuple[str, ...]:
    """``wanted`` (None: every field) cut to the request's version."""
    shown = views.visible(util.version(req), values.SINCE)
    if wanted is None:
        return shown
    return tuple(name for name in wanted if name in shown)


def list_scope(req: webob.Request, policy: str = POLICY) -> str | None:
    """None when the reader may list every port (portgroup, with the
    portgroup ``policy``), else the project whose nodes' ports it may
    list (upstream's check_port_list_policy)."""
    enforcer = util.deps(req).enforcer
    ctx = util.context(req)
    if lite_policy.check(enforcer, ctx, policy % 'list_all'):
        return None
    util.authorize(req, policy % 'list')
    if not ctx.project_id:
        util.authorize(req, policy % 'list_all')
    return str(ctx.project_id)


def _node_id(req: webob.Request, ident: str) -> int:
    if not uuidutils.is_uuid_like(ident) and util.version(req).below(mv.NAME):
        raise values.not_acceptable()
    return int(node_access.get_node(req, ident)['id'])


def filters(
    req: webob.Request,
    node_ident: str | None,
    project: str | None,
    portgroup_ident: str | None = None,
) -> db_ports.Filters:
    """The list filters, after upstream's version and combination
    checks (``node_ident``, ``portgroup_ident``: the parent of a nested
    list)."""
    get = req.GET
    version = util.version(req)
    values.check_fields(req, [get.get('sort_key', 'id')])
    if get.get('portgroup') is not None and version.below(mv.PORTGROUP_LINKS):
        raise values.not_acceptable()
    if get.get('shard') is not None and version.below(mv.SHARD):
        raise values.not_acceptable()
    node = node_ident or get.get('node_uuid') or get.get('node')
    if get.get('node_uuid') is not None and node_ident is None:
        node = values.uuid('node_uuid', get['node_uuid'])
    address = get.get('address')
    if address is not None:
        address = values.mac('address', address)
    portgroup = portgroup_ident or get.get('portgroup')
    shards = split_list(get.get('shard'))
    if sum(1 for item in (node, portgroup, shards) if item) > 1:
        raise webob.exc.HTTPForbidden(explanation='Operation not permitted.')
    groups = split_list(get.get('conductor_groups'))
    if groups and (node or portgroup or address):
        raise exception.Invalid(
            'Filtering by conductor_groups cannot be combined with '
            'node_ident, portgroup_ident, or node address filters.'
        )
    result: dict[str, Any] = {
        'project': project,
        'shards': shards or None,
        'conductor_groups': groups or None,
        'description_contains': get.get('description_contains') or None,
    }
    if portgroup:
        result['portgroup_id'] = db_ports.portgroup_id(
            util.context(req), portgroup
        )[0]
    elif node:
        result['node_id'] = _node_id(req, node)
    elif address:
        result['address'] = address
    return db_ports.Filters(**result)
