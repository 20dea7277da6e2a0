"""GET /servers/{server_id}/os-volume_attachments[/{volume_id}].

nova_lite has no volume service: no server has a volume attached, so
the list is upstream's answer for a server without attachments
(``{"volumeAttachments": []}``) and showing any volume is upstream's
404 for a volume not attached to the server. The query is checked as
upstream's (``limit`` and ``offset``, non-negative integers; from 2.75
nothing else). The fields an attachment would have (``device``, from
2.70 ``tag``, from 2.79 ``delete_on_termination``, from 2.89
``attachment_id`` and ``bdm_uuid`` in place of ``id``) never appear.
Attaching and detaching (POST, DELETE) are not offered: 405; PUT (a
swap, or from 2.85 an update) is in volume_attachment_update.
"""

import webob
import webob.exc

from nova_lite.api import util
from nova_lite.api.handlers import servers
from nova_lite.policies import server_extras as policies


def _check_query(req: webob.Request) -> None:
    util.reject_unknown_query(req, ('limit', 'offset'))
    for name in ('limit', 'offset'):
        util.query_int(req, name)


def list_attachments(req: webob.Request) -> webob.Response:
    inst = servers.get_server(req)
    util.authorize(
        req,
        policies.VOLUME_ATTACHMENTS % 'index',
        {'project_id': inst['project_id']},
    )
    _check_query(req)
    return util.json_response({'volumeAttachments': []})


def show_attachment(req: webob.Request) -> webob.Response:
    inst = servers.get_server(req)
    util.authorize(
        req,
        policies.VOLUME_ATTACHMENTS % 'show',
        {'project_id': inst['project_id']},
    )
    volume_id = req.urlvars['volume_id']
    raise webob.exc.HTTPNotFound(
        explanation=f'Instance {req.urlvars["server_id"]} is not attached '
        f'to volume {volume_id}'
    )
