"""``/v1/nodes/{node_ident}/vifs`` (API 1.28): the virtual network
interfaces attached to a node, through its conductor and network
interface (conductor/vifs.py); from 1.67 an attachment may name the
port or portgroup (not both)."""

import re
from typing import Any

from oslo_utils import uuidutils
import webob
import webob.exc

from ironic_lite.api import microversion as mv
from ironic_lite.api import util
from ironic_lite.api.handlers import node_access
from ironic_lite.api.schemas import nodes as node_schemas

#: The body of ``POST .../vifs`` (upstream's: an id, anything else is
#: the network interface's to read).
BODY: dict[str, Any] = {
    'type': 'object',
    'properties': {'id': {'type': 'string'}},
    'required': ['id'],
    'additionalProperties': True,
}
_NAME = re.compile(node_schemas.NAME_PATTERN)


def _uuid_or_name(what: str, value: str) -> str:
    if uuidutils.is_uuid_like(value) or (value and _NAME.match(value)):
        return value
    raise webob.exc.HTTPBadRequest(
        explanation=f'Expected UUID or name for {what}: {value}'
    )


def _node(req: webob.Request, action: str) -> dict[str, Any]:
    return node_access.authorized_node(req, f'baremetal:node:vif:{action}')


def list_vifs(req: webob.Request) -> webob.Response:
    node = _node(req, 'list')
    return util.json_response(
        {'vifs': util.deps(req).conductor.vif_list(util.context(req), node)}
    )


def attach_vif(req: webob.Request) -> webob.Response:
    node = _node(req, 'attach')
    body = util.read_body(req, BODY)
    _uuid_or_name('id', body['id'])
    if util.version(req).at_least(mv.VIF_PORT) and (
        'port_uuid' in body and 'portgroup_uuid' in body
    ):
        raise webob.exc.HTTPBadRequest(
            explanation='Cannot specify both port_uuid and portgroup_uuid'
        )
    util.deps(req).conductor.vif_attach(util.context(req), node, body)
    return webob.Response(status=204)


def detach_vif(req: webob.Request) -> webob.Response:
    node = _node(req, 'detach')
    vif_id = _uuid_or_name('vif_id', req.urlvars['vif_id'])
    util.deps(req).conductor.vif_detach(util.context(req), node, vif_id)
    return webob.Response(status=204)
