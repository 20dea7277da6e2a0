"""Flavors: list, detail, show, create, delete; from 2.55 a
``description``, shown everywhere and changed with ``PUT``; from 2.61
the ``extra_specs`` in show, detail, create and update, for whoever may
list extra specs (upstream's soft policy check)."""

from typing import Any

from oslo_utils import strutils
from oslo_utils import uuidutils
import webob
import webob.exc

from nova_lite import exception
from nova_lite.api import microversion as mv
from nova_lite.api import util
from nova_lite.api.schemas import flavors as schema
from nova_lite.compute_api import visibility
from nova_lite.db import flavors as db

#: The query of the flavor lists (upstream's index_query).
FLAVOR_LIST_QUERY = (
    'limit',
    'marker',
    'is_public',
    'minRam',
    'minDisk',
    'sort_key',
    'sort_dir',
)


def _brief(req: webob.Request, row: dict[str, Any]) -> dict[str, Any]:
    body = {
        'id': row['flavorid'],
        'name': row['name'],
        'links': util.links(req, 'flavors', row['flavorid']),
    }
    if util.version(req).at_least(mv.FLAVOR_DESCRIPTION):
        body['description'] = row['description']
    return body


def _shows_extra_specs(req: webob.Request) -> bool:
    """2.61: extra specs are embedded for whoever passes
    ``os-flavor-extra-specs:index`` (checked once per request)."""
    key = 'nova_lite.flavor_extra_specs'
    if key not in req.environ:
        shown = util.version(req).at_least(mv.FLAVOR_EXTRA_SPECS)
        if shown:
            try:
                util.authorize(
                    req, 'os_compute_api:os-flavor-extra-specs:index'
                )
            except webob.exc.HTTPForbidden:
                shown = False
        req.environ[key] = shown
    return bool(req.environ[key])


def view(req: webob.Request, row: dict[str, Any]) -> dict[str, Any]:
    body = _brief(req, row)
    if _shows_extra_specs(req):
        body['extra_specs'] = dict(row['extra_specs'] or {})
    body.update(
        {
            'ram': row['memory_mb'],
            'vcpus': row['vcpus'],
            'disk': row['root_gb'],
            'OS-FLV-EXT-DATA:ephemeral': row['ephemeral_gb'],
            'OS-FLV-DISABLED:disabled': row['disabled'],
            # 0 rather than '' for no swap from 2.75, as upstream.
            'swap': row['swap']
            or (0 if util.version(req).at_least(mv.CONSISTENT_BODIES) else ''),
            'rxtx_factor': row['rxtx_factor'],
            'os-flavor-access:is_public': row['is_public'],
        }
    )
    return body


def _is_public_filter(req: webob.Request) -> bool | None:
    """Non-admins see public flavors; admins choose (default: public)."""
    ctx = util.context(req)
    value = req.GET.get('is_public', 'true').strip().lower()
    if not ctx.is_admin:
        return True
    if value == 'none':
        return None
    parsed = util.query_bool(req, 'is_public')
    return True if parsed is None else parsed


def _list(req: webob.Request) -> tuple[list[dict[str, Any]], int]:
    util.reject_unknown_query(req, FLAVOR_LIST_QUERY)
    util.authorize(req, 'os_compute_api:flavors:index')
    limit = util.page_limit(req)
    ctx = util.context(req)
    rows = db.flavor_get_all(
        ctx,
        is_public=_is_public_filter(req),
        project_id=None if ctx.is_admin else ctx.project_id,
        min_memory_mb=util.query_int(req, 'minRam'),
        min_root_gb=util.query_int(req, 'minDisk'),
        limit=limit,
        marker=req.GET.get('marker'),
    )
    return rows, limit


def _listing(
    req: webob.Request,
    items: list[dict[str, Any]],
    rows: list[dict[str, Any]],
    limit: int,
) -> webob.Response:
    body: dict[str, Any] = {'flavors': items}
    if rows:
        links = util.next_link(
            req, 'flavors', rows, limit, rows[-1]['flavorid']
        )
        if links:
            body['flavors_links'] = links
    return util.json_response(body)


def list_flavors(req: webob.Request) -> webob.Response:
    rows, limit = _list(req)
    return _listing(req, [_brief(req, r) for r in rows], rows, limit)


def list_flavors_detail(req: webob.Request) -> webob.Response:
    rows, limit = _list(req)
    return _listing(req, [view(req, r) for r in rows], rows, limit)


def show_flavor(req: webob.Request) -> webob.Response:
    util.authorize(req, 'os_compute_api:flavors:index')
    return util.json_response({'flavor': view(req, visible_flavor(req))})


def visible_flavor(req: webob.Request) -> dict[str, Any]:
    """The flavor of the URL, 404 unless the caller may see it."""
    flavorid = req.urlvars['flavor_id']
    try:
        row = db.flavor_get(util.context(req), flavorid)
    except exception.FlavorNotFound:
        row = None
    if row is None or not visibility.flavor_visible(util.context(req), row):
        raise webob.exc.HTTPNotFound(
            explanation=f'Flavor {flavorid} could not be found.'
        )
    return row


def _rxtx_factor(value: Any) -> float:
    factor = float(value)
    if not 0 < factor <= util.MAX_FLOAT:
        raise webob.exc.HTTPBadRequest(
            explanation='Invalid input received: rxtx_factor must be > 0 '
            f'and <= {util.MAX_FLOAT}'
        )
    return factor


def create_flavor(req: webob.Request) -> webob.Response:
    util.authorize(req, 'os_compute_api:os-flavor-manage:create')
    spec = util.read_body(req, schema.create_for(util.version(req)))['flavor']
    flavorid = spec.get('id')
    if isinstance(flavorid, bool):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Invalid input for field/attribute id. Value: '
            f"{flavorid}. {flavorid} is not of type 'string', 'number', "
            f"'null'"
        )
    if flavorid in (None, 'auto'):
        flavorid = uuidutils.generate_uuid()
    values = {
        'flavorid': str(flavorid),
        'name': spec['name'],
        'memory_mb': util.bounded_int(spec['ram'], 'ram', 1),
        'vcpus': util.bounded_int(spec['vcpus'], 'vcpus', 1),
        'root_gb': util.bounded_int(spec['disk'], 'disk'),
        'ephemeral_gb': util.bounded_int(
            spec.get('OS-FLV-EXT-DATA:ephemeral', 0), 'ephemeral'
        ),
        'swap': util.bounded_int(spec.get('swap') or 0, 'swap'),
        'rxtx_factor': _rxtx_factor(spec.get('rxtx_factor', 1.0)),
        'is_public': strutils.bool_from_string(
            spec.get('os-flavor-access:is_public', True), strict=True
        ),
        'extra_specs': {},
        'description': spec.get('description'),
    }
    row = db.flavor_create(util.context(req), values)
    return util.json_response({'flavor': view(req, row)})


def delete_flavor(req: webob.Request) -> webob.Response:
    util.authorize(req, 'os_compute_api:os-flavor-manage:delete')
    db.flavor_destroy(util.context(req), req.urlvars['flavor_id'])
    return webob.Response(status=202)


def update_flavor(req: webob.Request) -> webob.Response:
    """``PUT /flavors/{id}`` (2.55): only the description changes."""
    util.authorize(req, 'os_compute_api:os-flavor-manage:update')
    spec = util.read_body(req, schema.update)['flavor']
    row = db.flavor_update_description(
        util.context(req), req.urlvars['flavor_id'], spec['description']
    )
    return util.json_response({'flavor': view(req, row)})
