"""os-hypervisors: list, detail, show.

A hypervisor is a compute node; its state and status are those of the
compute service it links to by ``compute_nodes.service_id``. A node
whose service is gone is left out of lists (and is a 404 to show), as
upstream. From 2.53 nodes and services are shown by uuid, and the list
calls take ``hypervisor_hostname_pattern`` and ``with_servers``.
"""

from typing import Any

from oslo_config import cfg
from oslo_utils import uuidutils
import webob
import webob.exc

from nova_lite import exception
from nova_lite.api import util
from nova_lite.db import compute_nodes as db
from nova_lite.db import instances as instance_db
from nova_lite.db import services as service_db
from nova_lite.objects import service as service_obj

CONF = cfg.CONF
POLICY = 'os_compute_api:os-hypervisors:%s'
UUID_FOR_ID = '2.53'
PAGING = '2.33'


def _services(req: webob.Request) -> dict[int, Any]:
    """Every service by its integer id, in one query."""
    return {row['id']: row
            for row in service_db.service_get_all(util.context(req))}


def _servers_of(req: webob.Request,
                nodes: list[dict[str, Any]]) -> dict[int, list[Any]]:
    """node id -> its servers as ``with_servers`` shows them (one query
    for every node)."""
    by_node = instance_db.instance_ids_by_compute_id(
        util.context(req), [node['id'] for node in nodes])
    return {node_id: [{'name': 'instance-%08x' % inst_id, 'uuid': uuid}
                      for inst_id, uuid in instances]
            for node_id, instances in by_node.items()}


def _details(req: webob.Request, node: dict[str, Any],
             service: Any, uuid_ids: bool) -> dict[str, Any]:
    free_disk_gb = node['local_gb'] - node['local_gb_used']
    return {
        'vcpus': node['vcpus'],
        'memory_mb': node['memory_mb'],
        'local_gb': node['local_gb'],
        'vcpus_used': node['vcpus_used'],
        'memory_mb_used': node['memory_mb_used'],
        'local_gb_used': node['local_gb_used'],
        'hypervisor_type': node['hypervisor_type'],
        'hypervisor_version': node['hypervisor_version'],
        'free_ram_mb': node['memory_mb'] - node['memory_mb_used'],
        'free_disk_gb': free_disk_gb,
        'current_workload': 0,
        'running_vms': node['running_vms'],
        'disk_available_least': free_disk_gb,
        'host_ip': node['host_ip'],
        'service': {
            'host': node['host'],
            'id': service['uuid'] if uuid_ids else service['id'],
            'disabled_reason': service['disabled_reason'],
        },
        # Not recorded: upstream's JSON text before 2.28, an object after.
        'cpu_info': {} if util.version(req).at_least('2.28') else '{}',
    }


def _view(req: webob.Request, node: dict[str, Any], service: Any,
          detail: bool, servers: dict[int, list[Any]] | None
          ) -> dict[str, Any]:
    """One hypervisor; ``servers`` (by node id) when ``with_servers``."""
    uuid_ids = util.version(req).at_least(UUID_FOR_ID)
    body = {
        'id': node['uuid'] if uuid_ids else node['id'],
        'hypervisor_hostname': node['hypervisor_hostname'],
        'state': ('up' if service_obj.is_up(service, CONF.service_down_time)
                  else 'down'),
        'status': 'disabled' if service['disabled'] else 'enabled',
    }
    if detail:
        body.update(_details(req, node, service, uuid_ids))
    if servers and servers.get(node['id']):
        body['servers'] = servers[node['id']]
    return body


def _after_marker(nodes: list[dict[str, Any]],
                  marker: str) -> list[dict[str, Any]]:
    key = 'uuid' if uuidutils.is_uuid_like(marker) else 'id'
    for index, node in enumerate(nodes):
        if str(node[key]) == marker:
            return nodes[index + 1:]
    raise webob.exc.HTTPBadRequest(
        explanation=f'marker [{marker}] not found')


def _matching(req: webob.Request, pattern: str) -> list[dict[str, Any]]:
    if 'limit' in req.GET or 'marker' in req.GET:
        raise webob.exc.HTTPBadRequest(
            explanation='Paging over hypervisors with the '
            'hypervisor_hostname_pattern query parameter is not supported.')
    nodes = [node for node in db.compute_node_get_all(util.context(req))
             if pattern in node['hypervisor_hostname']]
    if not nodes:
        raise webob.exc.HTTPNotFound(
            explanation=f"No hypervisor matching '{pattern}' could be "
            "found.")
    return nodes


def _list(req: webob.Request, detail: bool) -> webob.Response:
    util.authorize(req, POLICY % ('list-detail' if detail else 'list'))
    version = util.version(req)
    pattern = with_servers = None
    if version.at_least(UUID_FOR_ID):
        pattern = req.GET.get('hypervisor_hostname_pattern')
        with_servers = util.query_bool(req, 'with_servers')
    paged = version.at_least(PAGING) and pattern is None
    limit = util.page_limit(req) if paged else None
    if pattern is not None:
        nodes = _matching(req, pattern)
    else:
        nodes = db.compute_node_get_all(util.context(req))
        if paged and req.GET.get('marker'):
            nodes = _after_marker(nodes, req.GET['marker'])
    services = _services(req)
    shown = [node for node in nodes if node['service_id'] in services]
    if limit is not None:
        shown = shown[:limit]
    servers = _servers_of(req, shown) if with_servers else None
    items = [_view(req, node, services[node['service_id']], detail, servers)
             for node in shown]
    body: dict[str, Any] = {'hypervisors': items}
    if limit is not None and items:
        links = util.next_link(
            req, 'os-hypervisors/detail' if detail else 'os-hypervisors',
            items, limit, str(items[-1]['id']))
        if links:
            body['hypervisors_links'] = links
    return util.json_response(body)


@util.translate_errors
def list_hypervisors(req: webob.Request) -> webob.Response:
    return _list(req, detail=False)


@util.translate_errors
def list_hypervisors_detail(req: webob.Request) -> webob.Response:
    return _list(req, detail=True)


def _node_filter(req: webob.Request, ident: str) -> dict[str, Any]:
    if util.version(req).at_least(UUID_FOR_ID):
        if not uuidutils.is_uuid_like(ident):
            raise webob.exc.HTTPBadRequest(explanation=f'Invalid uuid {ident}')
        return {'uuid': ident}
    if not (ident.isascii() and ident.isdigit() and len(ident) < 19):
        raise webob.exc.HTTPNotFound(
            explanation=f"Hypervisor with ID '{ident}' could not be found.")
    return {'id': int(ident)}


@util.translate_errors
def show_hypervisor(req: webob.Request) -> webob.Response:
    util.authorize(req, POLICY % 'show')
    ident = req.urlvars['hypervisor_id']
    filters = _node_filter(req, ident)
    with_servers = (util.version(req).at_least(UUID_FOR_ID)
                    and util.query_bool(req, 'with_servers'))
    node, service = _node_and_service(req, ident, filters)
    servers = _servers_of(req, [node]) if with_servers else None
    return util.json_response({'hypervisor': _view(
        req, node, service, True, servers)})


def _node_and_service(req: webob.Request, ident: str,
                      filters: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    ctx = util.context(req)
    try:
        node = db.compute_node_get(ctx, **filters)
        service = service_db.service_get(ctx, id=node['service_id'])
    except (exception.ComputeNodeNotFound, exception.ServiceNotFound):
        raise webob.exc.HTTPNotFound(
            explanation=f"Hypervisor with ID '{ident}' could not be found."
        ) from None
    return node, service


@util.translate_errors
def show_hypervisor_uptime(req: webob.Request) -> webob.Response:
    """501 for an existing hypervisor, as upstream answers for drivers
    that cannot tell a host's uptime (the fake and local ones)."""
    util.authorize(req, POLICY % 'uptime')
    ident = req.urlvars['hypervisor_id']
    _node_and_service(req, ident, _node_filter(req, ident))
    raise webob.exc.HTTPNotImplemented(
        explanation='Virt driver does not implement uptime function.')
