"""Remote consoles and console auth tokens (compute_api/consoles.py: no
console proxy here, so no console URL and no token).

* ``POST /servers/{server_id}/remote-consoles`` (2.6+): validated as
  upstream (``spice-direct`` from 2.99), then upstream's answer for a
  console type no compute enables (400), or 404/409 for the server;
* ``GET /os-console-auth-tokens/{console_token}``: 400 before 2.31 (as
  upstream since its rdp console left), administrators only, 404
  "Token not found"; from 2.99 an unknown query parameter is a 400.
"""

import webob
import webob.exc

from nova_lite.api import microversion as mv
from nova_lite.api import util
from nova_lite.api.handlers import servers
from nova_lite.api.schemas import remote_consoles as schema
from nova_lite.compute_api import consoles
from nova_lite.policies import consoles_shares as policies

REMOTE_CONSOLES_SINCE = mv.REMOTE_CONSOLES
TOKENS_SINCE = mv.CONSOLE_AUTH_TOKENS
STRICT_TOKEN_QUERY = mv.STRICT_TOKEN_QUERY


def create_remote_console(req: webob.Request) -> webob.Response:
    # As upstream: the body is validated before the server is looked up.
    spec = util.read_body(req, schema.create(util.version(req)))[
        'remote_console'
    ]
    inst = servers.get_server(req)
    util.authorize(
        req, policies.REMOTE_CONSOLES, {'project_id': inst['project_id']}
    )
    if spec['protocol'] == 'rdp':
        raise webob.exc.HTTPBadRequest(
            explanation='Unavailable console type rdp.'
        )
    console = consoles.remote_console(inst, spec['protocol'], spec['type'])
    return util.json_response(
        {
            'remote_console': {
                'protocol': spec['protocol'],
                'type': spec['type'],
                'url': console['url'],
            }
        }
    )


def show_console_token(req: webob.Request) -> webob.Response:
    util.reject_unknown_query(req, (), since=STRICT_TOKEN_QUERY)
    if not util.version(req).at_least(TOKENS_SINCE):
        raise webob.exc.HTTPBadRequest()
    util.authorize(req, policies.CONSOLE_AUTH_TOKENS)
    info = consoles.connection_info(req.urlvars['console_token'])
    if info is None:
        raise webob.exc.HTTPNotFound(explanation='Token not found')
    return util.json_response({'console': info})
