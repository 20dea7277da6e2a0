"""POST /servers/{server_id}/action: rescue and unrescue.

The rules are in :mod:`nova_lite.compute_api.rescue`. A rescue answers
200 (not 202, as upstream) with the rescue password, the one given as
``adminPass`` or a generated one (``{}`` with
``[api]enable_instance_password = False``); an unrescue answers 202
with no body. From 2.87 upstream may rescue a server booted from a
volume; no server boots from a volume here, so both versions behave
the same.
"""

import secrets
from typing import Any

import webob

from nova_lite import exception
from nova_lite.api import util
from nova_lite.api.schemas import rescue as schema
from nova_lite.compute_api import visibility
from nova_lite.db import images as image_db
from nova_lite.policies import server_actions as policies

Row = dict[str, Any]


def _rescue_image(req: webob.Request, image_id: str) -> str:
    """A rescue image the caller can see (400 otherwise, upstream's
    UnsupportedRescueImage)."""
    ctx = util.context(req)
    try:
        image = image_db.image_get(ctx, image_id)
    except exception.ImageNotFound:
        image = None
    if image is None or not visibility.image_visible(ctx, image):
        raise exception.UnsupportedRescueImage(image=image_id)
    return image_id


def rescue(req: webob.Request, inst: Row, body: Row) -> webob.Response:
    util.authorize(
        req,
        policies.RESCUE,
        {'project_id': inst['project_id'], 'user_id': inst['user_id']},
    )
    util.validate(schema.rescue, body)
    spec = body['rescue'] or {}
    password = spec.get('adminPass') or secrets.token_urlsafe(9)
    api = util.deps(req).compute_api
    ctx = util.context(req)
    api.check_rescuable(ctx, inst)
    image_ref = spec.get('rescue_image_ref')
    if image_ref is not None:
        image_ref = _rescue_image(req, image_ref)
    api.rescue(ctx, inst, password, image_ref)
    if not util.deps(req).conf.api.enable_instance_password:
        return util.json_response({})
    return util.json_response({'adminPass': password})


def unrescue(req: webob.Request, inst: Row, body: Row) -> webob.Response:
    util.authorize(req, policies.UNRESCUE, {'project_id': inst['project_id']})
    util.validate(schema.unrescue, body)
    util.deps(req).compute_api.unrescue(util.context(req), inst)
    return webob.Response(status=202)


ACTIONS = {'rescue': rescue, 'unrescue': unrescue}
