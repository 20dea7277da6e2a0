"""os-services: list, update (enable/disable/force down), delete.

Before 2.53 a service is named by its integer id and updated through
the action URLs ``PUT /os-services/{enable,disable,disable-log-reason,
force-down}`` with ``host`` and ``binary`` in the body. From 2.53 it is
named by its uuid and updated with ``PUT /os-services/{uuid}``; an
action URL is then an invalid uuid (400), as upstream.
"""

from typing import Any

from oslo_log import log as logging
from oslo_utils import strutils
from oslo_utils import uuidutils
import webob
import webob.exc

from nova_lite import exception
from nova_lite.api import microversion as mv
from nova_lite.api import util
from nova_lite.api.schemas import services as schema
from nova_lite.compute_api import availability_zones
from nova_lite.compute_api import moves as compute_api
from nova_lite.db import compute_nodes as node_db
from nova_lite.db import instances as instance_db
from nova_lite.db import services as db
from nova_lite.objects import service as service_obj

LOG = logging.getLogger(__name__)
POLICY = 'os_compute_api:os-services:%s'
UUID_FOR_ID = mv.SERVICE_UUIDS
#: The last version of the action URLs (enable, disable, ...).
LAST_LEGACY = mv.before(mv.SERVICE_UUIDS)
COMPUTE = service_obj.COMPUTE_BINARY


def view(
    req: webob.Request, row: dict[str, Any], zones: dict[str, str]
) -> dict[str, Any]:
    """A service as GET /os-services shows it (``zones``: the hosts'
    zones from aggregates)."""
    version = util.version(req)
    body = {
        'id': row['uuid'] if version.at_least(UUID_FOR_ID) else row['id'],
        'binary': row['binary'],
        'host': row['host'],
        'zone': availability_zones.zone_of(util.conf(req), row, zones),
        'status': 'disabled' if row['disabled'] else 'enabled',
        'state': (
            'up'
            if service_obj.is_up(row, util.conf(req).service_down_time)
            else 'down'
        ),
        'updated_at': util.microsecond_time(
            row['last_seen_up'] or row['updated_at']
        ),
        'disabled_reason': row['disabled_reason'],
    }
    if version.at_least(mv.SERVICE_FORCED_DOWN):
        body['forced_down'] = row['forced_down']
    return body


def list_services(req: webob.Request) -> webob.Response:
    util.reject_unknown_query(req, ('host', 'binary'))
    util.authorize(req, POLICY % 'list')
    rows = db.service_get_all(
        util.context(req),
        binary=req.GET.get('binary') or None,
        host=req.GET.get('host') or None,
    )
    zones = availability_zones.host_zones(util.context(req))
    return util.json_response(
        {'services': [view(req, r, zones) for r in rows]}
    )


def _only_compute(binary: str) -> None:
    if binary != COMPUTE:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Updating a {binary} service is not supported. '
            'Only nova-compute services can be updated.'
        )


def _legacy_change(
    action: str, body: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(values to store, fields of the response) of one legacy action."""
    if action == 'force-down':
        if 'forced_down' not in body:
            raise webob.exc.HTTPBadRequest(
                explanation='Missing forced_down field'
            )
        forced = strutils.bool_from_string(body['forced_down'])
        return {'forced_down': forced}, {'forced_down': forced}
    if action == 'enable':
        return (
            {'disabled': False, 'disabled_reason': None},
            {'status': 'enabled'},
        )
    reason = None
    if action == 'disable-log-reason':
        if 'disabled_reason' not in body:
            raise webob.exc.HTTPBadRequest(
                explanation='Missing disabled reason field'
            )
        reason = body['disabled_reason']
    shown: dict[str, Any] = {'status': 'disabled'}
    if reason:
        shown['disabled_reason'] = reason
    return {'disabled': True, 'disabled_reason': reason}, shown


def _legacy_update(req: webob.Request, action: str) -> webob.Response:
    v211 = util.version(req).at_least(mv.SERVICE_FORCED_DOWN)
    body = util.read_body(
        req, schema.legacy_update_v211 if v211 else schema.legacy_update
    )
    actions = ['enable', 'disable', 'disable-log-reason']
    if v211:
        actions.append('force-down')
    if action not in actions:
        raise webob.exc.HTTPNotFound(explanation='Unknown action')
    values, shown = _legacy_change(action, body)
    host, binary = body['host'], body['binary']
    _only_compute(binary)
    ctx = util.context(req)
    try:
        row = db.service_get(ctx, host=host, binary=binary)
    except exception.ServiceNotFound:
        raise webob.exc.HTTPNotFound(
            explanation=f'Could not find binary {binary} on host {host}.'
        ) from None
    compute_api.check_force_up(ctx, row, values)
    db.service_update(ctx, row['id'], values)
    return util.json_response(
        {'service': {'host': host, 'binary': binary, **shown}}
    )


def _status_change(body: dict[str, Any]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    if body.get('status') == 'enabled':
        if body.get('disabled_reason'):
            raise webob.exc.HTTPBadRequest(
                explanation="Specifying 'disabled_reason' with status "
                "'enabled' is invalid."
            )
        values.update(disabled=False, disabled_reason=None)
    elif body.get('status') == 'disabled':
        values.update(
            disabled=True, disabled_reason=body.get('disabled_reason')
        )
    if 'forced_down' in body:
        values['forced_down'] = strutils.bool_from_string(
            body['forced_down'], strict=True
        )
    if not values:
        raise webob.exc.HTTPBadRequest(
            explanation="No updates were requested. Fields 'status' or "
            "'forced_down' should be specified."
        )
    return values


def _update_by_uuid(req: webob.Request, service_id: str) -> webob.Response:
    if not uuidutils.is_uuid_like(service_id):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Invalid uuid {service_id}'
        )
    body = util.read_body(req, schema.update_v253)
    ctx = util.context(req)
    try:
        row = db.service_get(ctx, uuid=service_id)
    except exception.ServiceNotFound:
        raise webob.exc.HTTPNotFound(
            explanation=f'Service {service_id} could not be found.'
        ) from None
    _only_compute(row['binary'])
    values = _status_change(body)
    compute_api.check_force_up(ctx, row, values)
    row = db.service_update(ctx, row['id'], values)
    return util.json_response(
        {
            'service': view(
                req, row, availability_zones.host_zones(util.context(req))
            )
        }
    )


def _update(req: webob.Request, ident: str) -> webob.Response:
    util.authorize(req, POLICY % 'update')
    if util.version(req).at_least(UUID_FOR_ID):
        return _update_by_uuid(req, ident)
    return _legacy_update(req, ident)


def update_service(req: webob.Request) -> webob.Response:
    """PUT /os-services/{service_id} (2.53+; before: an unknown action)."""
    return _update(req, req.urlvars['service_id'])


def legacy_service_action(req: webob.Request) -> webob.Response:
    """PUT /os-services/{enable,disable,disable-log-reason,force-down}.

    The path variable is ``service_action``: Routes keeps ``action``
    for the handler itself.
    """
    return _update(req, req.urlvars['service_action'])


def _service_for_delete(req: webob.Request) -> dict[str, Any]:
    ident = req.urlvars['service_id']
    if util.version(req).at_least(UUID_FOR_ID):
        if not uuidutils.is_uuid_like(ident):
            raise webob.exc.HTTPBadRequest(explanation=f'Invalid uuid {ident}')
        filters: dict[str, Any] = {'uuid': ident}
    elif ident.isascii() and ident.isdigit() and len(ident) < 19:
        filters = {'id': int(ident)}
    else:
        raise webob.exc.HTTPBadRequest(
            explanation='Invalid input received: id must be an integer'
        )
    try:
        return db.service_get(util.context(req), **filters)
    except exception.ServiceNotFound:
        raise webob.exc.HTTPNotFound(
            explanation=f'Service {ident} not found.'
        ) from None


def delete_service(req: webob.Request) -> webob.Response:
    util.authorize(req, POLICY % 'delete')
    ctx = util.context(req)
    row = _service_for_delete(req)
    if row['binary'] == COMPUTE:
        nodes = node_db.compute_node_get_all(ctx, service_id=row['id'])
        hosting = bool(
            instance_db.instance_ids_by_compute_id(
                ctx, [node['id'] for node in nodes]
            )
        )
        compute_api.check_service_deletable(ctx, row, hosting)
        for node in nodes:
            node_db.compute_node_destroy(ctx, node['id'])
    db.service_destroy(ctx, row['id'])
    LOG.info(
        'Deleted service %s (%s on %s)',
        row['uuid'],
        row['binary'],
        row['host'],
    )
    return webob.Response(status=204)
