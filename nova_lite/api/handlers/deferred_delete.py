"""Deferred delete actions: ``restore`` and ``forceDelete`` (POST
/servers/{server_id}/action), 202 with no body, as upstream.

The rules are in :mod:`nova_lite.compute_api.deferred_delete`; a soft delete
itself is DELETE /servers/{id} with ``reclaim_instance_interval`` > 0.
"""

from typing import Any

import webob

from nova_lite.api import server_ops
from nova_lite.api import util
from nova_lite.api.schemas import server_actions as schema
from nova_lite.compute_api import power as power_api
from nova_lite.policies import server_actions as policies


def restore(
    req: webob.Request, inst: dict[str, Any], body: dict[str, Any]
) -> webob.Response:
    """409 unless SOFT_DELETED; 403 when the project's quota has no room
    for it any more."""
    util.authorize(
        req,
        policies.DEFERRED_DELETE % 'restore',
        {'project_id': inst['project_id']},
    )
    util.validate(schema.restore, body)
    util.deps(req).compute_api.restore(util.context(req), inst)
    return webob.Response(status=202)


def force_delete(
    req: webob.Request, inst: dict[str, Any], body: dict[str, Any]
) -> webob.Response:
    """Delete the server now, whatever its state (as upstream: not only
    a soft-deleted one); 409 when locked."""
    util.authorize(
        req,
        policies.DEFERRED_DELETE % 'force',
        {'project_id': inst['project_id'], 'user_id': inst['user_id']},
    )
    util.validate(schema.force_delete, body)
    ctx = util.context(req)
    power_api.check_lock(ctx, inst)
    util.deps(req).compute_api.confirm_before_delete(ctx, inst)
    server_ops.delete(req, inst)
    return webob.Response(status=202)


ACTIONS = {'restore': restore, 'forceDelete': force_delete}
