"""``GET /v1/nodes/{node_ident}/validate`` (API 1.1): whether each of
the node's interfaces has what it needs, asked of its conductor
(conductor/validation.py)."""

from oslo_utils import uuidutils
import webob
import webob.exc

from ironic_lite.api import microversion as mv
from ironic_lite.api import util
from ironic_lite.api.handlers import node_access


def validate_node(req: webob.Request) -> webob.Response:
    # Upstream refuses a name below 1.5 here (406), where the node
    # itself is a 404.
    if util.version(req).below(mv.NAME) and not uuidutils.is_uuid_like(
        req.urlvars['node_ident']
    ):
        raise webob.exc.HTTPNotAcceptable(
            explanation='Node names need API version '
            f'{mv.NAME} or later; this request uses {util.version(req)}.'
        )
    node = node_access.authorized_node(req, 'baremetal:node:validate')
    return util.json_response(
        util.deps(req).conductor.validate_driver_interfaces(
            util.context(req), node
        )
    )
