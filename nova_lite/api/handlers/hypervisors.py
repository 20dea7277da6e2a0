"""os-hypervisors: list, detail, show, statistics, uptime, and before
2.53 search and servers by a hostname pattern.

From 2.88 detail and show carry no usage fields (vcpus, memory, disk,
running_vms, current_workload, cpu_info) and carry ``uptime`` instead;
statistics and ``/{id}/uptime`` are 404, as upstream.

A hypervisor is a compute node; its state and status are those of the
compute service it links to by ``compute_nodes.service_id``. A node
whose service is gone is left out of lists (and is a 404 to show), as
upstream. From 2.53 nodes and services are shown by uuid, and the list
calls take ``hypervisor_hostname_pattern`` and ``with_servers``.
"""

from typing import Any
from typing import cast

import oslo_messaging as messaging
from oslo_utils import uuidutils
import webob
import webob.exc

from nova_lite import exception
from nova_lite.api import microversion as mv
from nova_lite.api import util
from nova_lite.db import compute_nodes as db
from nova_lite.db import instances as instance_db
from nova_lite.db import services as service_db
from nova_lite.objects import service as service_obj

POLICY = 'os_compute_api:os-hypervisors:%s'
UUID_FOR_ID = mv.SERVICE_UUIDS
PAGING = mv.HYPERVISOR_PAGING
#: From 2.88 detail and show drop the usage fields and show ``uptime``;
#: statistics and the uptime route are gone.
NO_USAGE = mv.NO_HYPERVISOR_USAGE
#: The last versions of the routes upstream removed (the route table's
#: ranges): search and servers by pattern, statistics and uptime.
LAST_INTEGER_ID = mv.before(mv.SERVICE_UUIDS)
LAST_WITH_USAGE = mv.before(mv.NO_HYPERVISOR_USAGE)


def _services(req: webob.Request) -> dict[int, Any]:
    """Every service by its integer id, in one query."""
    return {
        row['id']: row for row in service_db.service_get_all(util.context(req))
    }


def _servers_of(
    req: webob.Request, nodes: list[dict[str, Any]]
) -> dict[int, list[Any]]:
    """node id -> its servers as ``with_servers`` shows them (one query
    for every node)."""
    by_node = instance_db.instance_ids_by_compute_id(
        util.context(req), [node['id'] for node in nodes]
    )
    return {
        node_id: [
            {'name': 'instance-%08x' % inst_id, 'uuid': uuid}
            for inst_id, uuid in instances
        ]
        for node_id, instances in by_node.items()
    }


def _details(
    req: webob.Request, node: dict[str, Any], service: Any, uuid_ids: bool
) -> dict[str, Any]:
    body = {
        'hypervisor_type': node['hypervisor_type'],
        'hypervisor_version': node['hypervisor_version'],
        'host_ip': node['host_ip'],
        'service': {
            'host': node['host'],
            'id': service['uuid'] if uuid_ids else service['id'],
            'disabled_reason': service['disabled_reason'],
        },
    }
    if util.version(req).at_least(NO_USAGE):
        body['uptime'] = _uptimes(req).of(node['host'], service)
        return body
    free_disk_gb = node['local_gb'] - node['local_gb_used']
    body.update(
        {
            'vcpus': node['vcpus'],
            'memory_mb': node['memory_mb'],
            'local_gb': node['local_gb'],
            'vcpus_used': node['vcpus_used'],
            'memory_mb_used': node['memory_mb_used'],
            'local_gb_used': node['local_gb_used'],
            'free_ram_mb': node['memory_mb'] - node['memory_mb_used'],
            'free_disk_gb': free_disk_gb,
            'current_workload': 0,
            'running_vms': node['running_vms'],
            'disk_available_least': free_disk_gb,
            # Not recorded: upstream's JSON text before 2.28, an object after.
            'cpu_info': {}
            if util.version(req).at_least(mv.HYPERVISOR_CPU_INFO_OBJECT)
            else '{}',
        }
    )
    return body


def _view(
    req: webob.Request,
    node: dict[str, Any],
    service: Any,
    detail: bool,
    servers: dict[int, list[Any]] | None,
) -> dict[str, Any]:
    """One hypervisor; ``servers`` (by node id) when ``with_servers``."""
    uuid_ids = util.version(req).at_least(UUID_FOR_ID)
    body = {
        'id': node['uuid'] if uuid_ids else node['id'],
        'hypervisor_hostname': node['hypervisor_hostname'],
        'state': (
            'up'
            if service_obj.is_up(service, util.conf(req).service_down_time)
            else 'down'
        ),
        'status': 'disabled' if service['disabled'] else 'enabled',
    }
    if detail:
        body.update(_details(req, node, service, uuid_ids))
    if servers is not None:
        hosted = servers.get(node['id'])
        # From 2.75 ``servers`` is always there when asked for.
        if hosted or util.version(req).at_least(mv.CONSISTENT_BODIES):
            body['servers'] = hosted or []
    return body


def _after_marker(
    nodes: list[dict[str, Any]], marker: str
) -> list[dict[str, Any]]:
    key = 'uuid' if uuidutils.is_uuid_like(marker) else 'id'
    for index, node in enumerate(nodes):
        if str(node[key]) == marker:
            return nodes[index + 1 :]
    raise webob.exc.HTTPBadRequest(explanation=f'marker [{marker}] not found')


def _matching(req: webob.Request, pattern: str) -> list[dict[str, Any]]:
    if 'limit' in req.GET or 'marker' in req.GET:
        raise webob.exc.HTTPBadRequest(
            explanation='Paging over hypervisors with the '
            'hypervisor_hostname_pattern query parameter is not supported.'
        )
    nodes = [
        node
        for node in db.compute_node_get_all(util.context(req))
        if pattern in node['hypervisor_hostname']
    ]
    if not nodes:
        raise webob.exc.HTTPNotFound(
            explanation=f"No hypervisor matching '{pattern}' could be found."
        )
    return nodes


def _list(req: webob.Request, detail: bool) -> webob.Response:
    util.authorize(req, POLICY % ('list-detail' if detail else 'list'))
    # From 2.53 an unknown query parameter is a 400 (upstream's schema).
    util.reject_unknown_query(
        req,
        ('limit', 'marker', 'hypervisor_hostname_pattern', 'with_servers'),
        since=UUID_FOR_ID,
    )
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
    items = [
        _view(req, node, services[node['service_id']], detail, servers)
        for node in shown
    ]
    body: dict[str, Any] = {'hypervisors': items}
    if limit is not None and items:
        links = util.next_link(
            req,
            'os-hypervisors/detail' if detail else 'os-hypervisors',
            items,
            limit,
            str(items[-1]['id']),
        )
        if links:
            body['hypervisors_links'] = links
    return util.json_response(body)


def list_hypervisors(req: webob.Request) -> webob.Response:
    return _list(req, detail=False)


def list_hypervisors_detail(req: webob.Request) -> webob.Response:
    return _list(req, detail=True)


def _node_filter(req: webob.Request, ident: str) -> dict[str, Any]:
    if util.version(req).at_least(UUID_FOR_ID):
        if not uuidutils.is_uuid_like(ident):
            raise webob.exc.HTTPBadRequest(explanation=f'Invalid uuid {ident}')
        return {'uuid': ident}
    if not (ident.isascii() and ident.isdigit() and len(ident) < 19):
        raise webob.exc.HTTPNotFound(
            explanation=f"Hypervisor with ID '{ident}' could not be found."
        )
    return {'id': int(ident)}


def show_hypervisor(req: webob.Request) -> webob.Response:
    util.authorize(req, POLICY % 'show')
    util.reject_unknown_query(req, ('with_servers',), since=UUID_FOR_ID)
    ident = req.urlvars['hypervisor_id']
    filters = _node_filter(req, ident)
    with_servers = util.version(req).at_least(UUID_FOR_ID) and util.query_bool(
        req, 'with_servers'
    )
    node, service = _node_and_service(req, ident, filters)
    servers = _servers_of(req, [node]) if with_servers else None
    return util.json_response(
        {'hypervisor': _view(req, node, service, True, servers)}
    )


def _node_and_service(
    req: webob.Request, ident: str, filters: dict[str, Any]
) -> tuple[dict[str, Any], Any]:
    ctx = util.context(req)
    try:
        node = db.compute_node_get(ctx, **filters)
        service = service_db.service_get(ctx, id=node['service_id'])
    except (exception.ComputeNodeNotFound, exception.ServiceNotFound):
        raise webob.exc.HTTPNotFound(
            explanation=f"Hypervisor with ID '{ident}' could not be found."
        ) from None
    return node, service


def _by_pattern(
    req: webob.Request, policy: str, with_servers: bool
) -> webob.Response:
    """GET /os-hypervisors/{pattern}/search and /servers (before 2.53):
    the nodes whose name contains the pattern (404 for none), brief, with
    their servers for ``/servers``; nodes whose service is gone are left
    out, as upstream."""
    util.authorize(req, POLICY % policy)
    pattern = req.urlvars['hypervisor_hostname_pattern']
    services = _services(req)
    nodes = [
        node
        for node in _matching(req, pattern)
        if node['service_id'] in services
    ]
    servers = _servers_of(req, nodes) if with_servers else None
    return util.json_response(
        {
            'hypervisors': [
                _view(req, node, services[node['service_id']], False, servers)
                for node in nodes
            ]
        }
    )


def search_hypervisors(req: webob.Request) -> webob.Response:
    return _by_pattern(req, 'search', with_servers=False)


def list_hypervisor_servers(req: webob.Request) -> webob.Response:
    return _by_pattern(req, 'servers', with_servers=True)


def show_statistics(req: webob.Request) -> webob.Response:
    """Sums over the nodes of enabled compute services (upstream);
    gone from 2.88."""
    util.authorize(req, POLICY % 'statistics')
    return util.json_response(
        {
            'hypervisor_statistics': db.compute_node_statistics(
                util.context(req)
            )
        }
    )


def _uptime(req: webob.Request, host: str) -> str:
    """``uptime`` as the compute agent of ``host`` reads it from its
    driver: 501 when the driver cannot tell, 400 when the agent is down
    or does not answer (upstream's ComputeServiceUnavailable)."""
    unavailable = webob.exc.HTTPBadRequest(
        explanation=f'Compute service of {host} is unavailable at this time.'
    )
    service = service_db.service_get_all(
        util.context(req), binary=service_obj.COMPUTE_BINARY, host=host
    )
    if not service or not service_obj.is_up(
        service[0], util.conf(req).service_down_time
    ):
        raise unavailable
    try:
        return util.deps(req).compute.get_host_uptime(util.context(req), host)
    except NotImplementedError:
        raise webob.exc.HTTPNotImplemented(
            explanation='Virt driver does not implement uptime function.'
        ) from None
    except messaging.MessagingTimeout:
        raise unavailable from None


class _Uptimes:
    """``uptime`` of each host asked once per request (a bare metal
    host serves many nodes): None when its agent is down, does not
    answer or cannot tell, as upstream's show and detail from 2.88."""

    def __init__(self, req: webob.Request) -> None:
        self.req = req
        self.known: dict[str, str | None] = {}

    def of(self, host: str, service: Any) -> str | None:
        if host not in self.known:
            self.known[host] = self._ask(host, service)
        return self.known[host]

    def _ask(self, host: str, service: Any) -> str | None:
        if not service_obj.is_up(
            service, util.conf(self.req).service_down_time
        ):
            return None
        try:
            return util.deps(self.req).compute.get_host_uptime(
                util.context(self.req), host
            )
        except (NotImplementedError, messaging.MessagingException):
            return None


def _uptimes(req: webob.Request) -> _Uptimes:
    cached = req.environ.get('nova_lite.uptimes')
    if cached is None:
        cached = req.environ['nova_lite.uptimes'] = _Uptimes(req)
    return cast('_Uptimes', cached)


def show_hypervisor_uptime(req: webob.Request) -> webob.Response:
    """The hypervisor (brief) with ``uptime``, asked of its compute agent
    over RPC, as upstream; gone from 2.88 (show has ``uptime``)."""
    util.authorize(req, POLICY % 'uptime')
    ident = req.urlvars['hypervisor_id']
    node, service = _node_and_service(req, ident, _node_filter(req, ident))
    body = _view(req, node, service, False, None)
    body['uptime'] = _uptime(req, node['host'])
    return util.json_response({'hypervisor': body})
