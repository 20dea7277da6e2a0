"""``/v1/nodes/{node_ident}/management/indicators``: the indicators
(LEDs) of a node's hardware components, through the conductor and the
node's management interface.

An indicator is named ``<name>@<component>`` (``led@system``). As
upstream, these paths answer at every version (upstream's 1.63 adds
them without a version check).
"""

from typing import Any

import webob
import webob.exc

from ironic_lite.api import util
from ironic_lite.api.handlers import node_access

_GET = 'baremetal:node:get_indicator_state'
_SET = 'baremetal:node:set_indicator_state'
#: The body of ``PUT .../indicators/{indicator}``.
PUT_BODY: dict[str, Any] = {
    'type': 'object',
    'properties': {'state': {'type': 'string'}},
    'required': ['state'],
    'additionalProperties': False,
}


def _split(unique_name: str) -> tuple[str, str]:
    """``(component, name)`` of ``name@component``."""
    name, at, component = unique_name.partition('@')
    if not at:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Malformed indicator name "{unique_name}"'
        )
    return component, name


def _node(req: webob.Request, action: str) -> dict[str, Any]:
    return node_access.authorized_node(req, action)


def _view(
    base: str, ident: str, component: str, name: str, fields: dict[str, Any]
) -> dict[str, Any]:
    unique = f'{name}@{component}'
    return {
        'name': unique,
        'component': component,
        'readonly': fields.get('readonly', True),
        'states': fields.get('states', []),
        'links': util.links_at(
            base, 'nodes', ident, f'/management/indicators/{unique}'
        ),
    }


def list_indicators(req: webob.Request) -> webob.Response:
    node = _node(req, _GET)
    found = util.deps(req).conductor.get_supported_indicators(
        util.context(req), node
    )
    base = util.base_url(req)
    ident = req.urlvars['node_ident']
    return util.json_response(
        {
            'indicators': [
                _view(base, ident, component, name, fields)
                for component, names in found.items()
                for name, fields in names.items()
            ]
        }
    )


def show_indicator(req: webob.Request) -> webob.Response:
    node = _node(req, _GET)
    component, name = _split(req.urlvars['indicator'])
    state = util.deps(req).conductor.get_indicator_state(
        util.context(req), node, component, name
    )
    return util.json_response({'state': state})


def set_indicator(req: webob.Request) -> webob.Response:
    node = _node(req, _SET)
    component, name = _split(req.urlvars['indicator'])
    body = util.read_body(req, PUT_BODY)
    util.deps(req).conductor.set_indicator_state(
        util.context(req), node, component, name, body['state']
    )
    return webob.Response(status=204)
