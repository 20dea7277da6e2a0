"""GET /servers/{server_id}/topology (2.78): the server's NUMA topology.

nova_lite places no server on NUMA cells (no flavor or image asks for
them here), so every server answers upstream's shape for a server
without a NUMA topology: no nodes and no page size. The
``compute:server:topology:host:index`` rule (administrators) would add
host cells and CPU pinning to each node; with no nodes it changes
nothing.
"""

import webob
import webob.exc

from nova_lite.api import microversion as mv
from nova_lite.api import util
from nova_lite.api.handlers import servers
from nova_lite.policies import server_extras as policies

SINCE = mv.SERVER_TOPOLOGY


def show_topology(req: webob.Request) -> webob.Response:
    inst = servers.get_server(req)
    util.authorize(
        req, policies.TOPOLOGY % 'index', {'project_id': inst['project_id']}
    )
    return util.json_response({'nodes': [], 'pagesize_kb': None})
