"""``/v1/nodes/{node_ident}/states/console`` (API 1.1): whether the
node's console is enabled and how to reach it, and enabling or
disabling it, through the conductor (conductor/console.py)."""

from typing import Any

import webob

from ironic_lite.api import util
from ironic_lite.api.handlers import node_access
from ironic_lite.api.handlers import port_values as values

#: The body of ``PUT .../states/console`` (upstream's: one boolean,
#: "true" and the like accepted).
PUT_BODY: dict[str, Any] = {
    'type': 'object',
    'properties': {'enabled': {'type': ['boolean', 'string']}},
    'required': ['enabled'],
    'additionalProperties': False,
}


def show_console(req: webob.Request) -> webob.Response:
    node = node_access.authorized_node(req, 'baremetal:node:get_console')
    return util.json_response(
        util.deps(req).conductor.get_console_information(
            util.context(req), node
        )
    )


def set_console(req: webob.Request) -> webob.Response:
    node = node_access.authorized_node(req, 'baremetal:node:set_console_state')
    body = util.read_body(req, PUT_BODY)
    enabled = values.boolean('enabled', body['enabled'])
    util.deps(req).conductor.set_console_mode(
        util.context(req), node, bool(enabled)
    )
    response = webob.Response(status=202)
    response.headers['Location'] = (
        f'{util.base_url(req)}/v1/nodes/{req.urlvars["node_ident"]}'
        '/states/console'
    )
    return response
