"""Servers: create, list, detail, show, delete."""

import re
from typing import Any

from oslo_config import cfg
from oslo_utils import strutils
import webob
import webob.exc

from nova_lite import exception
from nova_lite.api import server_ops
from nova_lite.api import util
from nova_lite.api.schemas import servers as schema
from nova_lite.api.views import servers as views
from nova_lite.compute import deferred_delete
from nova_lite.compute import power_api
from nova_lite.db import instances as db
from nova_lite.db import tags as tag_db

CONF = cfg.CONF
POLICY = 'os_compute_api:servers:%s'


def get_server(req: webob.Request) -> dict[str, Any]:
    """The server in the URL, if the caller may see it (else 404)."""
    ctx = util.context(req)
    uuid = req.urlvars['server_id']
    try:
        inst = db.instance_get_by_uuid(ctx, uuid)
    except exception.InstanceNotFound:
        raise webob.exc.HTTPNotFound(
            explanation=f'Instance {uuid} could not be found.')
    if not ctx.is_admin and inst['project_id'] != ctx.project_id:
        raise webob.exc.HTTPNotFound(
            explanation=f'Instance {uuid} could not be found.')
    return inst


def _regex(pattern: str) -> str:
    """``?name=`` is a regular expression (as upstream: a search, not a
    full match); one that does not compile is a 400."""
    try:
        re.compile(pattern)
    except re.error as exc:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Invalid regular expression in name: {exc}.'
        ) from None
    return pattern


def _tags(req: webob.Request, rows: list[dict[str, Any]]
          ) -> dict[str, list[str]]:
    """The tags of the servers shown (2.26), in one query."""
    if not util.version(req).at_least('2.26'):
        return {}
    return tag_db.for_servers(util.context(req), (r['uuid'] for r in rows))


#: The tag filters of a server list (2.26), comma-separated lists.
TAG_FILTERS = ('tags', 'tags-any', 'not-tags', 'not-tags-any')


def _filters(req: webob.Request) -> dict[str, Any]:
    ctx = util.context(req)
    version = util.version(req)
    filters: dict[str, Any] = {}
    all_tenants = req.GET.get('all_tenants')
    if all_tenants is not None and all_tenants.lower() not in ('0', 'false'):
        util.authorize(req, POLICY % 'index:get_all_tenants')
        project = req.GET.get('project_id') or req.GET.get('tenant_id')
        if project:
            filters['project_id'] = project
    else:
        filters['project_id'] = ctx.project_id
    if req.GET.get('name'):
        filters['name'] = _regex(req.GET['name'])
    since = util.changes_since(req)
    if since is not None:
        # As upstream: what changed since then, deleted servers included.
        filters['changes_since'] = since
        filters['deleted'] = True
    elif ctx.is_admin and strutils.bool_from_string(
            req.GET.get('deleted'), default=False):
        filters['deleted_only'] = True
    else:
        filters['hide_soft_deleted'] = True
    if req.GET.get('status'):
        wanted = req.GET['status'].upper()
        vm_states = views.STATUS_TO_VM_STATES.get(wanted)
        if vm_states is None and version.at_least('2.38'):
            raise webob.exc.HTTPBadRequest(
                explanation=f'Invalid status value {req.GET["status"]!r}.')
        filters['vm_state'] = vm_states or ['__none__']
    if ctx.is_admin:
        for key in ('host', 'node'):
            if req.GET.get(key):
                filters[key] = req.GET[key]
    if version.at_least('2.26'):
        for name in TAG_FILTERS:
            if req.GET.get(name):
                filters[name] = [t for t in req.GET[name].split(',') if t]
    if req.GET.get('image'):
        filters['image_ref'] = req.GET['image'].rsplit('/', 1)[-1]
    return filters


def _list(req: webob.Request, detail: bool) -> webob.Response:
    util.authorize(req, POLICY % ('detail' if detail else 'index'))
    limit = util.page_limit(req)
    rows = db.instance_get_all(util.context(req), _filters(req), limit=limit,
                               marker=req.GET.get('marker'))
    if detail:
        view = views.ServerView(req, server_ops.host_statuses(req, rows),
                                _tags(req, rows))
        items = [view.detail(row) for row in rows]
    else:
        view = views.ServerView(req)
        items = [view.brief(row) for row in rows]
    body: dict[str, Any] = {'servers': items}
    if rows:
        links = util.next_link(req, 'servers/detail' if detail
                               else 'servers', rows, limit,
                               rows[-1]['uuid'])
        if links:
            body['servers_links'] = links
    return util.json_response(body)


@util.translate_errors
def list_servers(req: webob.Request) -> webob.Response:
    return _list(req, detail=False)


@util.translate_errors
def list_servers_detail(req: webob.Request) -> webob.Response:
    return _list(req, detail=True)


@util.translate_errors
def show_server(req: webob.Request) -> webob.Response:
    inst = get_server(req)
    util.authorize(req, POLICY % 'show',
                   {'project_id': inst['project_id']})
    view = views.ServerView(req, server_ops.host_statuses(req, [inst]),
                            _tags(req, [inst]))
    return util.json_response({'server': view.detail(inst)})


@util.translate_errors
def create_server(req: webob.Request) -> webob.Response:
    ctx = util.context(req)
    util.authorize(req, POLICY % 'create', {'project_id': ctx.project_id})
    body = util.read_body(req, schema.create(util.version(req)))
    spec = body['server']
    created = server_ops.create(req, body)
    if spec.get('return_reservation_id'):
        return util.json_response({'reservation_id': created.reservation_id},
                                  status=202)
    first = created.instances[0]
    server = {
        'id': first['uuid'],
        'links': util.links(req, 'servers', first['uuid']),
        'OS-DCF:diskConfig': spec.get('OS-DCF:diskConfig', 'MANUAL'),
        'security_groups': [{'name': 'default'}],
        'adminPass': created.admin_pass,
    }
    return util.json_response(
        {'server': server}, status=202,
        headers={'Location': server['links'][0]['href']})


@util.translate_errors
def delete_server(req: webob.Request) -> webob.Response:
    inst = get_server(req)
    util.authorize(req, POLICY % 'delete',
                   {'project_id': inst['project_id']})
    ctx = util.context(req)
    power_api.check_lock(ctx, inst)
    api = util.deps(req).compute_api
    # Deferred delete (reclaim_instance_interval > 0) where the server
    # allows it; otherwise, as upstream, deleted at once.
    if deferred_delete.enabled() and api.soft_delete(ctx, inst):
        return webob.Response(status=204)
    api.confirm_before_delete(ctx, inst)
    server_ops.delete(req, inst)
    return webob.Response(status=204)


@util.translate_errors
def update_server(req: webob.Request) -> webob.Response:
    """``PUT /servers/{id}``: rename, set the access IPs or (2.19) the
    description; answers the server, as upstream."""
    inst = get_server(req)
    util.authorize(req, POLICY % 'update',
                   {'project_id': inst['project_id']})
    spec = util.read_body(req, schema.update(util.version(req)))['server']
    values: dict[str, Any] = {}
    if 'name' in spec:
        values['display_name'] = spec['name']
    if 'description' in spec:
        values['display_description'] = spec['description']
    for field, column, family in (('accessIPv4', 'access_ip_v4', 4),
                                  ('accessIPv6', 'access_ip_v6', 6)):
        if field in spec:
            values[column] = server_ops.access_address(spec[field], family)
    if values:
        inst = db.instance_update(util.context(req), inst['uuid'], values)
    view = views.ServerView(req, server_ops.host_statuses(req, [inst]),
                            _tags(req, [inst]))
    return util.json_response({'server': view.detail(inst)})


@util.translate_errors
def list_ips(req: webob.Request) -> webob.Response:
    """``GET /servers/{id}/ips``: nova_lite has no networking, so a
    server has no addresses."""
    inst = get_server(req)
    util.authorize(req, 'os_compute_api:ips:index',
                   {'project_id': inst['project_id']})
    return util.json_response({'addresses': {}})


@util.translate_errors
def show_ips(req: webob.Request) -> webob.Response:
    inst = get_server(req)
    util.authorize(req, 'os_compute_api:ips:show',
                   {'project_id': inst['project_id']})
    raise webob.exc.HTTPNotFound(
        explanation='Instance is not a member of specified network')
