"""Vendor passthru (API 1.1): ``/v1/nodes/{node_ident}/vendor_passthru``
and ``/v1/drivers/{driver_name}/vendor_passthru`` call a vendor method
by name (``?method=`` or ``.../vendor_passthru/{method}``, the JSON
body as its arguments, any HTTP method it declares);
``.../vendor_passthru/methods`` lists the methods. The conductor checks
and runs them (conductor/vendor_passthru.py): 200 with what a
synchronous method returns, 202 for an asynchronous one."""

from typing import Any

import webob
import webob.exc

from ironic_lite.api import util
from ironic_lite.api.handlers import drivers
from ironic_lite.api.handlers import node_access

#: The arguments of a method: any JSON object (the method declares
#: which keys it takes; the conductor checks them).
BODY: dict[str, Any] = {'type': 'object'}
_NODE = 'baremetal:node:vendor_passthru'
_DRIVER = 'baremetal:driver:vendor_passthru'


def _call(req: webob.Request) -> tuple[str, dict[str, Any]]:
    """The method (``?method=``, or the last path segment as
    python-ironicclient sends it) and its arguments."""
    method = req.GET.get('method')
    in_path = req.urlvars.get('method_name')
    if in_path is not None:
        if method is not None and method != in_path:
            raise webob.exc.HTTPBadRequest(
                explanation=f'Two methods named: {in_path!r} in the path, '
                f'{method!r} in the query.'
            )
        method = in_path
    if not method:
        raise webob.exc.HTTPBadRequest(
            explanation='Missing mandatory parameter: method'
        )
    args = util.read_body(req, BODY, optional=True) if req.body else {}
    return method, args


def _answer(result: dict[str, Any]) -> webob.Response:
    if result.get('async'):
        return webob.Response(status=202)
    return util.json_response(result.get('return'))


def node_vendor_passthru(req: webob.Request) -> webob.Response:
    node = node_access.authorized_node(req, _NODE)
    method, args = _call(req)
    return _answer(
        util.deps(req).conductor.vendor_passthru(
            util.context(req), node, method, req.method, args
        )
    )


def node_vendor_methods(req: webob.Request) -> webob.Response:
    node = node_access.authorized_node(req, _NODE)
    return util.json_response(
        util.deps(req).conductor.get_node_vendor_passthru_methods(
            util.context(req), node
        )
    )


def _driver_name(req: webob.Request) -> str:
    util.authorize(req, _DRIVER)
    name = str(req.urlvars['driver_name'])
    drivers.require_driver(req, name)
    return name


def driver_vendor_passthru(req: webob.Request) -> webob.Response:
    name = _driver_name(req)
    method, args = _call(req)
    return _answer(
        util.deps(req).conductor.driver_vendor_passthru(
            util.context(req), name, method, req.method, args
        )
    )


def driver_vendor_methods(req: webob.Request) -> webob.Response:
    name = _driver_name(req)
    return util.json_response(
        util.deps(req).conductor.get_driver_vendor_passthru_methods(
            util.context(req), name
        )
    )
