"""Server actions that move a server: migrate, resize, confirmResize,
revertResize (POST /servers/{server_id}/action).

The rules (states, records, casts) are in :mod:`nova_lite.compute_api.moves`;
these handlers authorize, validate and call it.
"""

from typing import Any

import webob

from nova_lite.api import microversion as mv
from nova_lite.api import util
from nova_lite.api.schemas import server_actions as schema
from nova_lite.compute_api import servers as servers_api


def migrate(
    req: webob.Request, inst: dict[str, Any], body: dict[str, Any]
) -> webob.Response:
    util.authorize(
        req,
        'os_compute_api:os-migrate-server:migrate',
        {'project_id': inst['project_id']},
    )
    at_256 = util.version(req).at_least(mv.MIGRATE_HOST)
    util.validate(schema.migrate_v256 if at_256 else schema.migrate, body)
    # Before 2.56 the body is not read (a host in it is ignored).
    host = (body['migrate'] or {}).get('host') if at_256 else None
    if host is not None:
        util.authorize(
            req,
            'os_compute_api:os-migrate-server:migrate:host',
            {'project_id': inst['project_id']},
        )
    util.deps(req).compute_api.migrate(util.context(req), inst, host)
    return webob.Response(status=202)


def resize(
    req: webob.Request, inst: dict[str, Any], body: dict[str, Any]
) -> webob.Response:
    util.authorize(
        req,
        'os_compute_api:servers:resize',
        {'project_id': inst['project_id']},
    )
    util.validate(schema.resize, body)
    ctx = util.context(req)
    flavor = servers_api.find_flavor(ctx, body['resize']['flavorRef'])
    util.deps(req).compute_api.resize(
        ctx, inst, servers_api.flavor_snapshot(flavor)
    )
    return webob.Response(status=202)


def confirm_resize(
    req: webob.Request, inst: dict[str, Any], body: dict[str, Any]
) -> webob.Response:
    util.authorize(
        req,
        'os_compute_api:servers:confirm_resize',
        {'project_id': inst['project_id']},
    )
    util.validate(schema.confirm_resize, body)
    util.deps(req).compute_api.confirm_resize(util.context(req), inst)
    return webob.Response(status=204)


def revert_resize(
    req: webob.Request, inst: dict[str, Any], body: dict[str, Any]
) -> webob.Response:
    util.authorize(
        req,
        'os_compute_api:servers:revert_resize',
        {'project_id': inst['project_id']},
    )
    util.validate(schema.revert_resize, body)
    util.deps(req).compute_api.revert_resize(util.context(req), inst)
    return webob.Response(status=202)


ACTIONS = {
    'migrate': migrate,
    'resize': resize,
    'confirmResize': confirm_resize,
    'revertResize': revert_resize,
}
