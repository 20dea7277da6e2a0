"""Server actions that keep a server where it is: os-stop, os-start,
reboot, pause, unpause, suspend, resume, shelve, shelveOffload,
unshelve, lock and unlock (POST /servers/{server_id}/action).

The rules are in :mod:`nova_lite.compute_api.power`; these handlers
authorize, validate and call it. Each answers 202 with no body.
"""

from typing import Any

import webob

from nova_lite.api import microversion as mv
from nova_lite.api import util
from nova_lite.api.schemas import server_actions as schema
from nova_lite.compute_api import shelve as shelve_api
from nova_lite.policies import server_actions as policies


def _target(inst: dict[str, Any]) -> dict[str, Any]:
    return {'project_id': inst['project_id'], 'user_id': inst['user_id']}


def _power(policy: str, schema_: dict[str, Any], method: str) -> Any:
    """The handler of an action with no arguments (os-stop, os-start,
    pause, ...); ``policy`` is the rule's full name."""

    def handler(
        req: webob.Request, inst: dict[str, Any], body: dict[str, Any]
    ) -> webob.Response:
        util.authorize(req, policy, _target(inst))
        util.validate(schema_, body)
        getattr(util.deps(req).compute_api, method)(util.context(req), inst)
        return webob.Response(status=202)

    return handler


stop = _power(policies.SERVERS % 'stop', schema.stop, 'stop')
start = _power(policies.SERVERS % 'start', schema.start, 'start')
pause = _power(policies.PAUSE % 'pause', schema.pause, 'pause')
unpause = _power(policies.PAUSE % 'unpause', schema.unpause, 'unpause')
suspend = _power(policies.SUSPEND % 'suspend', schema.suspend, 'suspend')
resume = _power(policies.SUSPEND % 'resume', schema.resume, 'resume')
shelve = _power(policies.SHELVE % 'shelve', schema.shelve, 'shelve')
shelve_offload = _power(
    policies.SHELVE % 'shelve_offload', schema.shelve_offload, 'shelve_offload'
)


def unshelve(
    req: webob.Request, inst: dict[str, Any], body: dict[str, Any]
) -> webob.Response:
    """From 2.77 the body may name an ``availability_zone``; from 2.91
    a ``host`` (administrators) and a ``null`` zone (unpin)."""
    util.authorize(req, policies.SHELVE % 'unshelve', _target(inst))
    version = util.version(req)
    zone: Any = shelve_api.KEEP_ZONE
    host = None
    if version.at_least(mv.UNSHELVE_HOST):
        util.validate(schema.unshelve_v291, body)
        spec = body['unshelve'] or {}
        zone = spec.get('availability_zone', shelve_api.KEEP_ZONE)
        host = spec.get('host')
    elif version.at_least(mv.UNSHELVE_ZONE):
        util.validate(schema.unshelve_v277, body)
        zone = (body['unshelve'] or {}).get(
            'availability_zone', shelve_api.KEEP_ZONE
        )
    else:
        util.validate(schema.unshelve, body)

    def authorize_host() -> None:
        util.authorize(
            req, policies.SHELVE % 'unshelve_to_host', _target(inst)
        )

    util.deps(req).compute_api.unshelve(
        util.context(req), inst, zone, host, authorize_host
    )
    return webob.Response(status=202)


def reboot(
    req: webob.Request, inst: dict[str, Any], body: dict[str, Any]
) -> webob.Response:
    util.authorize(req, policies.SERVERS % 'reboot', _target(inst))
    util.validate(schema.reboot, body)
    util.deps(req).compute_api.reboot(
        util.context(req), inst, body['reboot']['type'].upper()
    )
    return webob.Response(status=202)


def lock(
    req: webob.Request, inst: dict[str, Any], body: dict[str, Any]
) -> webob.Response:
    util.authorize(req, policies.LOCK % 'lock', _target(inst))
    reason = None
    if util.version(req).at_least(mv.LOCKED_REASON):
        util.validate(schema.lock_v273, body)
        reason = (body['lock'] or {}).get('locked_reason')
    else:
        util.validate(schema.lock, body)
    util.deps(req).compute_api.lock(
        util.context(req), inst, util.deps(req).conf.host, reason
    )
    return webob.Response(status=202)


def unlock(
    req: webob.Request, inst: dict[str, Any], body: dict[str, Any]
) -> webob.Response:
    util.authorize(
        req, policies.LOCK % 'unlock', {'project_id': inst['project_id']}
    )
    util.validate(schema.unlock, body)
    api = util.deps(req).compute_api
    if not api.locked_by_caller(util.context(req), inst):
        util.authorize(
            req,
            policies.LOCK % 'unlock:unlock_override',
            {'project_id': inst['project_id']},
        )
    api.unlock(util.context(req), inst, util.deps(req).conf.host)
    return webob.Response(status=202)


ACTIONS = {
    'os-stop': stop,
    'os-start': start,
    'reboot': reboot,
    'lock': lock,
    'unlock': unlock,
    'pause': pause,
    'unpause': unpause,
    'suspend': suspend,
    'resume': resume,
    'shelve': shelve,
    'shelveOffload': shelve_offload,
    'unshelve': unshelve,
}
