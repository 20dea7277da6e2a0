"""PUT /servers/{server_id}/os-volume_attachments/{volume_id}: update a
volume attachment, as upstream routes and answers it.

Before 2.85 a PUT swaps the attachment's volume for ``volumeId`` (a
volume migration: Cinder calls it, the ``swap`` policy allows only the
``service`` role). From 2.85 a PUT with ``volumeId`` equal to the
attachment's volume updates the attachment (``delete_on_termination``,
the ``update`` policy: members of the server's project); with another
``volumeId`` it also swaps.

nova_lite attaches no volumes (there is no block storage service
here): no server has a volume attachment, so after validation and the
policy check a swap answers upstream's 404 for the volume in the URL
(Cinder would not know it) and an update upstream's 404 for the
attachment (the server has no block device mapping of that volume).
"""

import copy
from typing import Any

import webob
import webob.exc

from nova_lite.api import microversion as mv
from nova_lite.api import util
from nova_lite.api.handlers import servers
from nova_lite.policies import server_extras as policies

SINCE = mv.VOLUME_ATTACHMENT_UPDATE
_UUID = {'type': 'string', 'format': 'uuid'}
#: A device name (upstream's match_device() pattern).
_DEVICE = {
    'type': ['string', 'null'],
    'pattern': '(^/dev/x{0,1}[a-z]{0,1}d{0,1})([a-z]+)[0-9]*$',
}
_BOOLEAN = {
    'type': ['boolean', 'string'],
    'enum': [
        True,
        'True',
        'TRUE',
        'true',
        '1',
        'ON',
        'On',
        'on',
        'YES',
        'Yes',
        'yes',
        False,
        'False',
        'FALSE',
        'false',
        '0',
        'OFF',
        'Off',
        'off',
        'NO',
        'No',
        'no',
    ],
}
_TAG = {
    'type': 'string',
    'pattern': '^[^,/]*$',
    'minLength': 1,
    'maxLength': 60,
}

UPDATE: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'volumeAttachment': {
            'type': 'object',
            'properties': {'volumeId': _UUID},
            'required': ['volumeId'],
            'additionalProperties': False,
        },
    },
    'required': ['volumeAttachment'],
    'additionalProperties': False,
}
#: 2.85: what a GET of the attachment shows may be sent back; only
#: ``delete_on_termination`` (and ``volumeId``, a swap) may change.
UPDATE_V285 = copy.deepcopy(UPDATE)
UPDATE_V285['properties']['volumeAttachment']['properties'].update(
    {
        'device': _DEVICE,
        'tag': _TAG,
        'delete_on_termination': _BOOLEAN,
        'serverId': _UUID,
        'id': _UUID,
    }
)


def update_attachment(req: webob.Request) -> webob.Response:
    regular = util.version(req).at_least(SINCE)
    body = util.read_body(req, UPDATE_V285 if regular else UPDATE)
    volume_id = req.urlvars['volume_id']
    inst = servers.get_server(req)
    swap = not regular or body['volumeAttachment']['volumeId'] != volume_id
    if swap:
        util.authorize(req, policies.VOLUME_ATTACHMENTS % 'swap', {})
    else:
        util.authorize(
            req,
            policies.VOLUME_ATTACHMENTS % 'update',
            {'project_id': inst['project_id']},
        )
    if regular:  # the attachment first, a swap after it
        raise webob.exc.HTTPNotFound(
            explanation=f'No volume Block Device Mapping with id {volume_id}.'
        )
    raise webob.exc.HTTPNotFound(
        explanation=f'Volume {volume_id} could not be found.'
    )
