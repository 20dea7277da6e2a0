"""Servers: create, list, detail, show, delete."""

from typing import Any

import webob
import webob.exc

from nova_lite import exception
from nova_lite.api import microversion as mv
from nova_lite.api import server_ops
from nova_lite.api import server_query
from nova_lite.api import util
from nova_lite.api.schemas import servers as schema
from nova_lite.api.views import servers as views
from nova_lite.compute_api import deferred_delete
from nova_lite.compute_api import power as power_api
from nova_lite.compute_api import servers as servers_api
from nova_lite.db import instances as db
from nova_lite.db import server_groups as group_db
from nova_lite.db import tags as tag_db

POLICY = 'os_compute_api:servers:%s'


def get_server(req: webob.Request) -> dict[str, Any]:
    """The server in the URL, if the caller may see it (else 404)."""
    ctx = util.context(req)
    uuid = req.urlvars['server_id']
    try:
        inst = db.instance_get_by_uuid(ctx, uuid)
    except exception.InstanceNotFound:
        raise webob.exc.HTTPNotFound(
            explanation=f'Instance {uuid} could not be found.'
        )
    if not ctx.is_admin and inst['project_id'] != ctx.project_id:
        raise webob.exc.HTTPNotFound(
            explanation=f'Instance {uuid} could not be found.'
        )
    return inst


def _tags(
    req: webob.Request, rows: list[dict[str, Any]]
) -> dict[str, list[str]]:
    """The tags of the servers shown (2.26), in one query."""
    if not util.version(req).at_least(mv.SERVER_TAGS):
        return {}
    return tag_db.for_servers(util.context(req), (r['uuid'] for r in rows))


def _groups(req: webob.Request, inst: dict[str, Any]) -> dict[str, list[str]]:
    """The server's group (2.71: show, update and rebuild)."""
    if not util.version(req).at_least(mv.SERVER_GROUPS_SHOWN):
        return {}
    group = group_db.group_of_instance(util.context(req), inst['uuid'])
    return {inst['uuid']: [group['uuid']] if group else []}


def render(req: webob.Request, inst: dict[str, Any]) -> dict[str, Any]:
    """One server as show (and, from 2.75, update) answers it."""
    view = views.ServerView(
        req,
        server_ops.host_statuses(req, [inst]),
        _tags(req, [inst]),
        _groups(req, inst),
    )
    return view.detail(inst)


#: What update and rebuild leave out before 2.75 (upstream's show()
#: flags it turns off for them): keys and key prefixes.
_PRE_275_LEFT_OUT = (
    'OS-EXT-AZ:',
    'OS-EXT-SRV-ATTR:',
    'OS-EXT-STS:',
    'OS-SRV-USG:',
    'os-extended-volumes:',
    'config_drive',
    'key_name',
    'host_status',
    'security_groups',
)


def render_changed(
    req: webob.Request, inst: dict[str, Any], rebuild: bool = False
) -> dict[str, Any]:
    """One server as update and rebuild answer it: the full view from
    2.75 (rebuild without ``OS-EXT-SRV-ATTR:user_data``, as upstream),
    before it upstream's smaller one (rebuild keeps ``key_name`` from
    2.54)."""
    server = render(req, inst)
    version = util.version(req)
    if version.at_least(mv.CONSISTENT_BODIES):
        if rebuild:
            server.pop('OS-EXT-SRV-ATTR:user_data', None)
        return server
    kept = (
        ('key_name',)
        if rebuild and version.at_least(mv.REBUILD_KEY_NAME)
        else ()
    )
    return {
        key: value
        for key, value in server.items()
        if key in kept or not key.startswith(_PRE_275_LEFT_OUT)
    }


def _list(req: webob.Request, detail: bool) -> webob.Response:
    util.authorize(req, POLICY % ('detail' if detail else 'index'))
    limit = util.page_limit(req)
    try:
        rows = db.instance_get_all(
            util.context(req),
            server_query.filters(req),
            limit=limit,
            marker=req.GET.get('marker'),
            sort=server_query.sort(req),
        )
    except server_query.NoMatch:
        rows = []
    if detail:
        view = views.ServerView(
            req, server_ops.host_statuses(req, rows), _tags(req, rows)
        )
        items = [view.detail(row) for row in rows]
    else:
        view = views.ServerView(req)
        items = [view.brief(row) for row in rows]
    body: dict[str, Any] = {'servers': items}
    if rows:
        links = util.next_link(
            req,
            'servers/detail' if detail else 'servers',
            rows,
            limit,
            rows[-1]['uuid'],
        )
        if links:
            body['servers_links'] = links
    return util.json_response(body)


def list_servers(req: webob.Request) -> webob.Response:
    return _list(req, detail=False)


def list_servers_detail(req: webob.Request) -> webob.Response:
    return _list(req, detail=True)


def show_server(req: webob.Request) -> webob.Response:
    inst = get_server(req)
    util.authorize(req, POLICY % 'show', {'project_id': inst['project_id']})
    return util.json_response({'server': render(req, inst)})


def create_server(req: webob.Request) -> webob.Response:
    ctx = util.context(req)
    util.authorize(req, POLICY % 'create', {'project_id': ctx.project_id})
    body = util.read_body(req, schema.create(util.version(req)))
    spec = body['server']
    created = server_ops.create(req, body)
    if spec.get('return_reservation_id'):
        return util.json_response(
            {'reservation_id': created.reservation_id}, status=202
        )
    first = created.instances[0]
    server = {
        'id': first['uuid'],
        'links': util.links(req, 'servers', first['uuid']),
        'OS-DCF:diskConfig': spec.get('OS-DCF:diskConfig', 'MANUAL'),
        # As upstream: the groups asked for (a server without ports
        # shows none in show/detail).
        'security_groups': spec.get('security_groups', [{'name': 'default'}]),
        'adminPass': created.admin_pass,
    }
    return util.json_response(
        {'server': server},
        status=202,
        headers={'Location': server['links'][0]['href']},
    )


def delete_server(req: webob.Request) -> webob.Response:
    inst = get_server(req)
    util.authorize(req, POLICY % 'delete', {'project_id': inst['project_id']})
    ctx = util.context(req)
    power_api.check_lock(ctx, inst)
    api = util.deps(req).compute_api
    # Deferred delete (reclaim_instance_interval > 0) where the server
    # allows it; otherwise, as upstream, deleted at once.
    if deferred_delete.enabled(util.conf(req)) and api.soft_delete(ctx, inst):
        return webob.Response(status=204)
    api.confirm_before_delete(ctx, inst)
    server_ops.delete(req, inst)
    return webob.Response(status=204)


def update_server(req: webob.Request) -> webob.Response:
    """``PUT /servers/{id}``: rename, set the access IPs, (2.19) the
    description or (2.90) the host name; answers the server, as
    upstream (a new name leaves the host name as it is)."""
    inst = get_server(req)
    util.authorize(req, POLICY % 'update', {'project_id': inst['project_id']})
    spec = util.read_body(req, schema.update(util.version(req)))['server']
    values: dict[str, Any] = {}
    if 'name' in spec:
        values['display_name'] = spec['name']
    if 'description' in spec:
        values['display_description'] = spec['description']
    if 'hostname' in spec:  # 2.90 (the schema refuses it before)
        values['hostname'] = spec['hostname']
    for field, column, family in (
        ('accessIPv4', 'access_ip_v4', 4),
        ('accessIPv6', 'access_ip_v6', 6),
    ):
        if field in spec:
            values[column] = servers_api.access_address(spec[field], family)
    if values:
        inst = db.instance_update(util.context(req), inst['uuid'], values)
    return util.json_response({'server': render_changed(req, inst)})


def list_ips(req: webob.Request) -> webob.Response:
    """``GET /servers/{id}/ips``: nova_lite has no networking, so a
    server has no addresses."""
    inst = get_server(req)
    util.authorize(
        req, 'os_compute_api:ips:index', {'project_id': inst['project_id']}
    )
    return util.json_response({'addresses': {}})


def show_ips(req: webob.Request) -> webob.Response:
    inst = get_server(req)
    util.authorize(
        req, 'os_compute_api:ips:show', {'project_id': inst['project_id']}
    )
    raise webob.exc.HTTPNotFound(
        explanation='Instance is not a member of specified network'
    )
