"""Query parameters of the node list and show: fields, filters, paging.

Each parameter is checked against the version that introduced it
(a 406 below it, as upstream) and its value validated (a 400).
"""

from typing import Any
from typing import cast

from oslo_utils import uuidutils
import webob
import webob.exc

from ironic_lite.api import microversion as mv
from ironic_lite.api import util
from ironic_lite.api.views import nodes as views
from ironic_lite.common import hash_ring
from ironic_lite.db import chassis as db_chassis
from ironic_lite.db import nodes as db_nodes

#: Query filter -> (version introducing it, parser).
_STRING_FILTERS = {
    'instance_uuid': '1.1',
    'provision_state': mv.PROVISION_STATE_FILTER,
    'driver': mv.DRIVER_FILTER,
    'resource_class': mv.RESOURCE_CLASS,
    'conductor_group': mv.CONDUCTOR_GROUP,
    'owner': mv.OWNER,
    'lessee': mv.LESSEE,
    'parent_node': mv.PARENT_NODE,
    'instance_name': mv.INSTANCE_NAME,
}
#: Boolean filters and their versions (upstream checks none for
#: associated, maintenance and retired).
_BOOL_FILTERS = {
    'associated': '1.1',
    'maintenance': '1.1',
    'retired': '1.1',
    'sharded': mv.SHARD,
}


#: Node list filters of upstream Ironic that this API does not serve:
#: a 400, rather than a list silently not filtered.
UNSUPPORTED_FILTERS: frozenset[str] = frozenset()
#: The faults a node may have (upstream's, in its order).
VALID_FAULTS = (
    'power failure',
    'clean failure',
    'rescue abort failure',
    'service failure',
)


def _require(
    req: webob.Request, name: str, since: str, kind: str = 'query parameter'
) -> None:
    if util.version(req).below(since):
        raise webob.exc.HTTPNotAcceptable(
            explanation=f'The {kind} {name!r} needs API version '
            f'{since} or later; this request uses {util.version(req)}.'
        )


def detail_param(req: webob.Request) -> bool:
    """``?detail=`` of ``GET /v1/nodes`` (1.43)."""
    if 'detail' not in req.GET:
        return False
    if util.version(req).below(mv.DETAIL_PARAM):
        # Upstream's answer below 1.43 (not a 406).
        raise webob.exc.HTTPBadRequest(
            explanation='Invalid query parameter ?detail=True received.'
        )
    detail = util.query_bool(req, 'detail')
    if detail and 'fields' in req.GET:
        raise webob.exc.HTTPBadRequest(
            explanation='Can not specify ?detail=True and fields in the '
            'same request.'
        )
    return bool(detail)


def requested_fields(req: webob.Request, detail: bool) -> tuple[str, ...]:
    """The fields to render: ``?fields=`` (1.8), else the defaults.

    ``links`` is always rendered, as upstream.
    """
    version = util.version(req)
    text = req.GET.get('fields')
    if text is None:
        if detail:
            return views.fields_at(version)
        return views.list_fields_at(version)
    _require(req, 'fields', mv.FIELDS)
    wanted = [f.strip() for f in text.split(',') if f.strip()]
    invalid = [f for f in wanted if f not in views.FIELD_VERSIONS]
    if invalid or not wanted:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Field(s) "{", ".join(invalid or [text])}" are '
            'not valid'
        )
    for name in wanted:
        # A field of a later version: 406, as upstream.
        _require(req, name, views.FIELD_VERSIONS[name], kind='field')
    if 'links' not in wanted:
        wanted.append('links')
    return tuple(dict.fromkeys(wanted))


def filters(req: webob.Request) -> dict[str, Any]:
    """The database filters of a node list request."""
    unsupported = sorted(UNSUPPORTED_FILTERS.intersection(req.GET))
    if unsupported:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Filtering nodes by {", ".join(unsupported)} is '
            'not supported by this Bare Metal API.'
        )
    result: dict[str, Any] = {}
    for name, since in _STRING_FILTERS.items():
        value = req.GET.get(name)
        if value is not None:
            _require(req, name, since)
            result[name] = value
    fault = req.GET.get('fault')
    if fault is not None:
        if util.version(req).below(mv.FAULT):
            raise webob.exc.HTTPNotAcceptable(
                explanation='Request not acceptable. The minimal required '
                f'API version should be {mv.FAULT}'
            )
        if fault not in VALID_FAULTS:
            raise webob.exc.HTTPBadRequest(
                explanation=f'Unrecognized fault "{fault}" is specified, '
                f'allowed faults are {VALID_FAULTS}'
            )
        result['fault'] = fault
    contains = req.GET.get('description_contains')
    if contains is not None:
        _require(req, 'description_contains', mv.DESCRIPTION)
        result['description_contains'] = contains
    if 'instance_uuid' in result:
        result['instance_uuid'] = _uuid(
            result['instance_uuid'], 'instance_uuid'
        )
    for name, since in _BOOL_FILTERS.items():
        flag = util.query_bool(req, name)
        if flag is not None:
            _require(req, name, since)
            result[name] = flag
    _link_filters(req, result)
    return result


def _link_filters(req: webob.Request, result: dict[str, Any]) -> None:
    """``?shard=`` (1.82, a comma separated list), ``?project=`` and
    the children: a list leaves out the nodes that have a parent unless
    ``?include_children=true`` or ``?parent_node=`` (1.83), as
    upstream."""
    if 'shard' in req.GET:
        _require(req, 'shard', mv.SHARD)
        result['shard'] = [
            s.strip() for s in req.GET['shard'].split(',') if s.strip()
        ]
    if 'project' in req.GET:
        result['project'] = req.GET['project']
    include = util.query_bool(req, 'include_children')
    if include is not None:
        _require(req, 'include_children', mv.PARENT_NODE)
    if not include:
        result.setdefault('parent_node', None)
    else:
        result.pop('parent_node', None)


def _uuid(value: str, name: str) -> str:
    if not uuidutils.is_uuid_like(value):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Invalid {name} {value!r}: expected a UUID.'
        )
    return util.canonical_uuid(value)


def sort_key(req: webob.Request) -> str:
    """``?sort_key=`` (default ``id``): a field newer than the version
    used is a 406, as upstream (the database refuses unknown keys)."""
    key = req.GET.get('sort_key', 'id')
    since = views.FIELD_VERSIONS.get(key)
    if since is not None:
        _require(req, key, since, kind='sort key')
    return cast(str, key)


def marker(req: webob.Request) -> str | None:
    """``?marker=``: a node's uuid (400 if malformed, 404 if unknown, as
    upstream)."""
    value = req.GET.get('marker')
    if value is None:
        return None
    value = _uuid(value, 'marker')
    db_nodes.node_get(util.context(req), value)  # NodeNotFound: 404
    return value


def chassis_filter(req: webob.Request) -> int | None:
    """The id of the chassis whose nodes are listed: that of the path
    (``/v1/chassis/{chassis_uuid}/nodes``) or of ``?chassis_uuid=``; a
    404 for an unknown chassis, as upstream."""
    uuid = req.urlvars.get('chassis_uuid') or req.GET.get('chassis_uuid')
    if uuid is None:
        return None
    if not uuidutils.is_uuid_like(uuid):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Expected a UUID for chassis_uuid: {uuid[:100]}'
        )
    return int(
        db_chassis.chassis_get(util.context(req), util.canonical_uuid(uuid))[
            'id'
        ]
    )


def conductor_filter(req: webob.Request) -> str | None:
    """``?conductor=`` (1.49): the hostname whose nodes to keep."""
    value = req.GET.get('conductor')
    if value is not None:
        _require(req, 'conductor', mv.CONDUCTOR)
    return cast('str | None', value)


class ConductorLookup:
    """The conductor of each node (field ``conductor``, 1.49), from the
    hash rings the RPC client already caches."""

    def __init__(self, req: webob.Request) -> None:
        self.rings = util.deps(req).conductor.rings
        self.context = util.context(req)

    def __call__(self, row: dict[str, Any]) -> str | None:
        ring = self.rings.ring(
            self.context,
            row['driver'],
            conductor_group=hash_ring.node_group(row),
        )
        return ring.get_host(row['uuid']) if ring is not None else None
