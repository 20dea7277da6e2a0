"""POST /servers/{server_id}/action: evacuate and os-resetState (the
moves are in move_actions, rescue in rescue_actions).

The rules are in :mod:`nova_lite.compute_api.moves`: an evacuation is refused
unless the server's compute service is down, and recorded as a
migration of type ``evacuation`` (``accepted``) before the conductor
moves the server, so that the source, when it comes back, knows exactly
which local copies to destroy; a state reset ends the server's
unfinished evacuations.
"""

import secrets
from typing import Any

from oslo_utils import strutils
import webob
import webob.exc

from nova_lite.api import microversion as mv
from nova_lite.api import util
from nova_lite.api.handlers import console_actions
from nova_lite.api.handlers import deferred_delete
from nova_lite.api.handlers import image_actions
from nova_lite.api.handlers import move_actions
from nova_lite.api.handlers import power_actions
from nova_lite.api.handlers import rescue_actions
from nova_lite.api.handlers import servers
from nova_lite.api.schemas import server_actions as schema
from nova_lite.common import states
from nova_lite.db import services as service_db
from nova_lite.objects import service as service_obj


def _evacuate_schema(req: webob.Request) -> dict[str, Any]:
    version = util.version(req)
    if version.at_least(mv.EVACUATE_NO_FORCE):
        return schema.evacuate_v268
    if version.at_least(mv.EVACUATE_FORCE):
        return schema.evacuate_v229
    if version.at_least(mv.EVACUATE_NO_SHARED_STORAGE):
        return schema.evacuate_v214
    return schema.evacuate


def _password(req: webob.Request, spec: dict[str, Any]) -> str | None:
    """The admin password answered before 2.14 (None from 2.14 on)."""
    if util.version(req).at_least(mv.EVACUATE_NO_SHARED_STORAGE):
        return None
    shared = strutils.bool_from_string(spec['onSharedStorage'], strict=True)
    if shared and spec.get('adminPass'):
        raise webob.exc.HTTPBadRequest(
            explanation="admin password can't be changed on existing disk"
        )
    return spec.get('adminPass') or secrets.token_urlsafe(9)


def _check_computes_stop_evacuated(req: webob.Request) -> None:
    """From 2.95 every compute agent (not forced down) must be one that
    ends an evacuation stopped, or the server could end ACTIVE where
    2.95 promises SHUTOFF: a 400 during a rolling upgrade, as
    upstream."""
    oldest = service_db.service_min_version(
        util.context(req), service_obj.COMPUTE_BINARY
    )
    wanted = service_obj.EVACUATE_STOPPED_SERVICE_VERSION
    if oldest < wanted:
        raise webob.exc.HTTPBadRequest(
            explanation='Starting with microversion 2.95, evacuate API will '
            'stop instance on destination. To evacuate before upgrades are '
            'complete please use an older microversion. Required version '
            f'for compute {wanted}, current version {oldest}'
        )


def _evacuate(
    req: webob.Request, inst: dict[str, Any], body: dict[str, Any]
) -> webob.Response:
    util.authorize(
        req, 'os_compute_api:os-evacuate', {'project_id': inst['project_id']}
    )
    util.validate(_evacuate_schema(req), body)
    spec = body['evacuate']
    version = util.version(req)
    host, force = spec.get('host'), spec.get('force', False)
    if force and host is None:
        raise webob.exc.HTTPBadRequest(
            explanation='force is only allowed with a target host.'
        )
    password = _password(req, spec)
    # Before 2.29 a host is taken as it is (upstream bypasses the
    # scheduler); from 2.29 only with force, which 2.68 removed.
    forced = host is not None and (
        force or not version.at_least(mv.EVACUATE_FORCE)
    )
    # 2.95: the instance ends stopped on its destination.
    target_state = None
    if version.at_least(mv.EVACUATE_STOPPED):
        _check_computes_stop_evacuated(req)
        target_state = states.STOPPED
    util.deps(req).compute_api.evacuate(
        util.context(req), inst, host, bool(forced), target_state
    )
    if password is None:
        return webob.Response(status=200)
    return util.json_response({'adminPass': password})


def _reset_state(
    req: webob.Request, inst: dict[str, Any], body: dict[str, Any]
) -> webob.Response:
    util.authorize(
        req,
        'os_compute_api:os-admin-actions:reset_state',
        {'project_id': inst['project_id']},
    )
    util.validate(schema.reset_state, body)
    util.deps(req).compute_api.reset_state(
        util.context(req), inst, body['os-resetState']['state']
    )
    return webob.Response(status=202)


ACTIONS = {
    'evacuate': _evacuate,
    'os-resetState': _reset_state,
    **move_actions.ACTIONS,
    **power_actions.ACTIONS,
    **image_actions.ACTIONS,
    **deferred_delete.ACTIONS,
    **rescue_actions.ACTIONS,
    **console_actions.ACTIONS,
}


def server_action(req: webob.Request) -> webob.Response:
    body = util.read_json(req)
    if not isinstance(body, dict) or len(body) != 1:
        raise webob.exc.HTTPBadRequest(
            explanation='The body must be an object with one action.'
        )
    name = next(iter(body))
    action = ACTIONS.get(name)
    if action is None:
        raise webob.exc.HTTPBadRequest(
            explanation=f'There is no such action: {name}'
        )
    return action(req, servers.get_server(req), body)
