"""GET /servers/{server_id}/diagnostics: from the server's compute agent
over RPC, as upstream (administrators): from 2.48 upstream's standard
form, before it a free-form dict (libvirt's keys)."""

import webob

from nova_lite import exception
from nova_lite.api import microversion as mv
from nova_lite.api import util
from nova_lite.api.handlers import servers
from nova_lite.api.views import diagnostics
from nova_lite.objects import instance as instance_obj
from nova_lite.policies import server_extras as policies

STANDARD = mv.STANDARD_DIAGNOSTICS


def show_diagnostics(req: webob.Request) -> webob.Response:
    """409 for a server on no host, or whose guest is not running (or
    whose agent does not answer); 501 for a driver without them."""
    inst = servers.get_server(req)
    util.authorize(
        req, policies.DIAGNOSTICS, {'project_id': inst['project_id']}
    )
    if not inst['host']:
        raise exception.InstanceNotReady(instance_id=inst['uuid'])
    ctx = util.context(req)
    with util.agent_call(inst['host']):
        found = util.deps(req).compute.get_instance_diagnostics(
            ctx, instance_obj.Instance._from_db(ctx, inst), inst['host']
        )
    if not util.version(req).at_least(STANDARD):
        found = diagnostics.free_form(found)
    return util.json_response(found)
