"""``/servers/{server_id}/shares`` (2.97): Manila share attachments.

No share service here (compute_api/shares.py says what that means): the
list is empty, show is a 404, attach and detach answer upstream's
errors. Before 2.97 the routes do not exist (404). Unknown query
parameters are a 400, as upstream's query schemas say.
"""

from typing import Any

import webob
import webob.exc

from nova_lite.api import microversion as mv
from nova_lite.api import util
from nova_lite.api.handlers import servers
from nova_lite.api.schemas import server_shares as schema
from nova_lite.compute_api import shares
from nova_lite.policies import consoles_shares as policies

SINCE = mv.SERVER_SHARES


def _server(req: webob.Request, action: str) -> dict[str, Any]:
    inst = servers.get_server(req)
    util.authorize(
        req, policies.SHARES % action, {'project_id': inst['project_id']}
    )
    return inst


def list_shares(req: webob.Request) -> webob.Response:
    inst = _server(req, 'index')
    util.reject_unknown_query(req, (), since=SINCE)
    return util.json_response({'shares': shares.attachments(inst)})


def show_share(req: webob.Request) -> webob.Response:
    inst = _server(req, 'show')
    util.reject_unknown_query(req, (), since=SINCE)
    share = shares.attachment(inst, req.urlvars['share_id'])
    return util.json_response({'share': share})


def attach_share(req: webob.Request) -> webob.Response:
    # As upstream: the body is validated before the server is looked up.
    spec = util.read_body(req, schema.create)['share']
    inst = _server(req, 'create')
    share = shares.attach(inst, spec['share_id'], spec.get('tag'))
    return util.json_response({'share': share}, status=201)


def detach_share(req: webob.Request) -> webob.Response:
    inst = _server(req, 'delete')
    shares.detach(inst, req.urlvars['share_id'])
    return webob.Response(status=200)
