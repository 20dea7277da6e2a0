"""``/v1/nodes/{node_ident}/management/boot_device`` (API 1.1): the
device a node boots from next, through the conductor and the node's
management interface; ``.../boot_device/supported`` lists the devices
it takes. ``.../management/inject_nmi`` (1.29) sends it a non-maskable
interrupt."""

from typing import Any

import webob

from ironic_lite.api import util
from ironic_lite.api.handlers import node_access
from ironic_lite.api.handlers import port_values as values

_GET = 'baremetal:node:get_boot_device'
_SET = 'baremetal:node:set_boot_device'
#: The body of ``PUT .../boot_device`` (upstream's arguments).
PUT_BODY: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'boot_device': {'type': 'string'},
        'persistent': {'type': ['boolean', 'string']},
    },
    'required': ['boot_device'],
    'additionalProperties': False,
}
#: ``PUT .../inject_nmi`` takes no argument (an empty body or ``{}``).
NMI_BODY: dict[str, Any] = {'type': 'object', 'additionalProperties': False}


def show_boot_device(req: webob.Request) -> webob.Response:
    node = node_access.authorized_node(req, _GET)
    return util.json_response(
        util.deps(req).conductor.get_boot_device(util.context(req), node)
    )


def supported_boot_devices(req: webob.Request) -> webob.Response:
    node = node_access.authorized_node(req, _GET)
    devices = util.deps(req).conductor.get_supported_boot_devices(
        util.context(req), node
    )
    return util.json_response({'supported_boot_devices': devices})


def set_boot_device(req: webob.Request) -> webob.Response:
    node = node_access.authorized_node(req, _SET)
    body = util.read_body(req, PUT_BODY)
    persistent = values.boolean('persistent', body.get('persistent'))
    util.deps(req).conductor.set_boot_device(
        util.context(req), node, body['boot_device'], bool(persistent)
    )
    return webob.Response(status=204)


def inject_nmi(req: webob.Request) -> webob.Response:
    node = node_access.authorized_node(req, 'baremetal:node:inject_nmi')
    util.read_body(req, NMI_BODY, optional=True)
    util.deps(req).conductor.inject_nmi(util.context(req), node)
    return webob.Response(status=204)
