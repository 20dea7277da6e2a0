"""os-server-password: the encrypted administrative password a guest
posted for its server (upstream keeps it in the instance's system
metadata, ``password_0`` .. ``password_3``, 255 characters each).
nova_lite has no metadata service for a guest to post one, so it is
empty unless set there; clearing empties it (204)."""

import webob

from nova_lite.api import util
from nova_lite.api.handlers import servers
from nova_lite.db import instances as db
from nova_lite.policies import server_extras as policies

#: Upstream's system metadata keys, in order.
KEYS = tuple(f'password_{index}' for index in range(4))


def show_password(req: webob.Request) -> webob.Response:
    inst = servers.get_server(req)
    util.authorize(
        req, policies.PASSWORD % 'show', {'project_id': inst['project_id']}
    )
    meta = inst['system_metadata'] or {}
    return util.json_response(
        {'password': ''.join(meta.get(key) or '' for key in KEYS)}
    )


def clear_password(req: webob.Request) -> webob.Response:
    """As upstream: the password keys set empty; the guest's password
    itself does not change."""
    inst = servers.get_server(req)
    util.authorize(
        req, policies.PASSWORD % 'clear', {'project_id': inst['project_id']}
    )
    meta = dict(inst['system_metadata'] or {})
    meta.update({key: '' for key in KEYS})
    db.instance_update(
        util.context(req), inst['uuid'], {'system_metadata': meta}
    )
    return webob.Response(status=204)
