"""``/v1/nodes/{node_ident}/vmedia``: attach virtual media to a node
(``POST``, 1.89), detach it (``DELETE``, 1.89) and show what is
attached (``GET``, 1.93), through the conductor and the node's
management interface. Attaching and detaching answer ``204`` once the
conductor took the request; a failure shows in the node's
``last_error``, as upstream's."""

from typing import Any
import urllib.parse

import webob
import webob.exc

from ironic_lite.api import util
from ironic_lite.api.handlers import node_access
from ironic_lite.common import hardware_settings

#: The URL schemes a BMC may fetch an image from (upstream's).
URL_SCHEMES = ('http', 'https', 'nfs', 'cifs', 'smb')

#: The body of ``POST .../vmedia`` (upstream's).
ATTACH: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'device_type': {
            'type': 'string',
            'enum': list(hardware_settings.VMEDIA_DEVICES),
        },
        'image_url': {'type': 'string'},
        # Upstream's conductor may serve the image itself ("local");
        # ironic_lite's hands the BMC the URL as it is.
        'image_download_source': {
            'type': 'string',
            'enum': ['http', 'local', 'swift'],
        },
    },
    'required': ['device_type', 'image_url'],
    'additionalProperties': False,
}


def show_vmedia(req: webob.Request) -> webob.Response:
    node = node_access.authorized_node(req, 'baremetal:node:vmedia:get')
    return util.json_response(
        util.deps(req).conductor.get_virtual_media(util.context(req), node)
    )


def attach_vmedia(req: webob.Request) -> webob.Response:
    body = util.read_body(req, ATTACH)
    scheme = urllib.parse.urlparse(body['image_url']).scheme
    if scheme not in URL_SCHEMES:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Unsupported or missing URL scheme: {scheme}'
        )
    node = node_access.authorized_node(req, 'baremetal:node:vmedia:attach')
    util.deps(req).conductor.attach_virtual_media(
        util.context(req), node, body['device_type'], body['image_url']
    )
    return webob.Response(status=204)


def detach_vmedia(req: webob.Request) -> webob.Response:
    device_types = None
    if req.GET.get('device_types'):
        device_types = [
            d.strip() for d in req.GET['device_types'].split(',') if d.strip()
        ]
        invalid = [
            d
            for d in device_types
            if d not in hardware_settings.VMEDIA_DEVICES
        ]
        if invalid:
            raise webob.exc.HTTPBadRequest(
                explanation=f'Invalid device type(s) {", ".join(invalid)} '
                f'(valid are {", ".join(hardware_settings.VMEDIA_DEVICES)})'
            )
    node = node_access.authorized_node(req, 'baremetal:node:vmedia:detach')
    util.deps(req).conductor.detach_virtual_media(
        util.context(req), node, device_types
    )
    return webob.Response(status=204)
