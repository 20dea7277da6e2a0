"""/servers/{server_id}/tags[/{tag}] (2.26), as upstream: list, replace
all, check one (204 / 404), add one (201 with a Location, 204 when the
server has it already), delete one or all. Changes need the server
ACTIVE, PAUSED, SUSPENDED or SHUTOFF (409); a tag is 1 to 60 characters
without ``/`` or ``,``; a server has at most 50 tags (400)."""

from typing import Any

import jsonschema
import webob
import webob.exc

from nova_lite.api import util
from nova_lite.api.handlers import server_metadata
from nova_lite.api.handlers import servers
from nova_lite.db import tags as db

POLICY = 'os_compute_api:os-server-tags:%s'
TAG = {
    'type': 'string',
    'pattern': '^[^,/]*$',
    'minLength': 1,
    'maxLength': 60,
}
TAGS_BODY = {
    'type': 'object',
    'properties': {
        'tags': {'type': 'array', 'items': TAG, 'maxItems': db.MAX_TAGS}
    },
    'required': ['tags'],
    'additionalProperties': False,
}


def _server(
    req: webob.Request, action: str, change: str | None = None
) -> dict[str, Any]:
    inst = servers.get_server(req)
    util.authorize(req, POLICY % action, {'project_id': inst['project_id']})
    if change is not None and inst['vm_state'] not in (
        server_metadata.AT_REST
    ):
        raise webob.exc.HTTPConflict(
            explanation=f"Cannot '{change}' instance {inst['uuid']} while "
            f'it is in vm_state {inst["vm_state"]}'
        )
    return inst


def list_tags(req: webob.Request) -> webob.Response:
    inst = _server(req, 'index')
    tags = db.for_servers(util.context(req), [inst['uuid']])[inst['uuid']]
    return util.json_response({'tags': tags})


def replace_tags(req: webob.Request) -> webob.Response:
    inst = _server(req, 'update_all', 'update tags')
    body = util.read_body(req, TAGS_BODY)
    return util.json_response(
        {'tags': db.replace(util.context(req), inst['uuid'], body['tags'])}
    )


def delete_tags(req: webob.Request) -> webob.Response:
    inst = _server(req, 'delete_all', 'delete tags')
    db.delete(util.context(req), inst['uuid'])
    return webob.Response(status=204)


def check_tag(req: webob.Request) -> webob.Response:
    inst = _server(req, 'show')
    tag = req.urlvars['tag']
    if (
        tag
        not in db.for_servers(util.context(req), [inst['uuid']])[inst['uuid']]
    ):
        raise webob.exc.HTTPNotFound(
            explanation=f"Server {inst['uuid']} has no tag '{tag}'"
        )
    return webob.Response(status=204)


def add_tag(req: webob.Request) -> webob.Response:
    inst = _server(req, 'update', 'update tag')
    tag = req.urlvars['tag']
    try:
        jsonschema.validate(tag, TAG)
    except jsonschema.ValidationError as exc:
        raise webob.exc.HTTPBadRequest(
            explanation=f"Tag '{tag}' is invalid. It must be a non empty "
            f"string without characters '/' and ','. Validation error "
            f'message: {exc.message}'
        ) from None
    if not db.add(util.context(req), inst['uuid'], tag):
        return webob.Response(status=204)
    response = webob.Response(status=201)
    response.headers['Location'] = (
        f'{util.base_url(req)}/v2.1/servers/{inst["uuid"]}/tags/{tag}'
    )
    return response


def delete_tag(req: webob.Request) -> webob.Response:
    inst = _server(req, 'delete', 'delete tag')
    db.delete(util.context(req), inst['uuid'], req.urlvars['tag'])
    return webob.Response(status=204)
