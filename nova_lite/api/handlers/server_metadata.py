"""/servers/{server_id}/metadata[/{key}]: a server's metadata, as
upstream: list, merge (POST), replace all (PUT), show, set and delete
one key. Changes need the server at rest (ACTIVE, PAUSED, SUSPENDED or
SHUTOFF, no task; 409 otherwise), unlocked (for anyone but an
administrator), and within the ``metadata_items`` quota (403)."""

from collections.abc import Callable
from typing import Any

import webob
import webob.exc

from nova_lite import exception
from nova_lite.api import util
from nova_lite.api.handlers import servers
from nova_lite.api.schemas import servers as server_schemas
from nova_lite.common import states
from nova_lite.compute_api import power as power_api
from nova_lite.db import server_metadata as db
from nova_lite.policies import server_actions as policies

POLICY = policies.METADATA
AT_REST = (states.ACTIVE, states.PAUSED, states.SUSPENDED, states.STOPPED)

METADATA_BODY = {
    'type': 'object',
    'properties': {'metadata': server_schemas.METADATA},
    'required': ['metadata'],
    'additionalProperties': False,
}
META_BODY = {
    'type': 'object',
    'properties': {
        'meta': {
            **server_schemas.METADATA,
            'minProperties': 1,
            'maxProperties': 1,
        }
    },
    'required': ['meta'],
    'additionalProperties': False,
}


def _server(req: webob.Request, action: str) -> dict[str, Any]:
    inst = servers.get_server(req)
    util.authorize(req, POLICY % action, {'project_id': inst['project_id']})
    return inst


def _change(
    req: webob.Request,
    inst: dict[str, Any],
    what: str,
    new: Callable[[dict[str, str]], dict[str, str]],
) -> dict[str, str]:
    ctx = util.context(req)

    def check(row: dict[str, Any]) -> None:
        power_api.check_lock(ctx, row)
        if row['vm_state'] not in AT_REST or row['task_state'] is not None:
            raise exception.InstanceStateConflict(
                action=what,
                instance_uuid=row['uuid'],
                vm_state=row['vm_state'],
                task_state=row['task_state'],
            )

    return db.change(ctx, inst['uuid'], new, check)


def list_metadata(req: webob.Request) -> webob.Response:
    inst = _server(req, 'index')
    return util.json_response({'metadata': inst['metadata'] or {}})


def merge_metadata(req: webob.Request) -> webob.Response:
    inst = _server(req, 'create')
    given = util.read_body(req, METADATA_BODY)['metadata']
    written = _change(
        req, inst, 'update metadata', lambda current: {**current, **given}
    )
    return util.json_response({'metadata': written})


def replace_metadata(req: webob.Request) -> webob.Response:
    inst = _server(req, 'update_all')
    given = util.read_body(req, METADATA_BODY)['metadata']
    written = _change(req, inst, 'update metadata', lambda current: given)
    return util.json_response({'metadata': written})


def show_item(req: webob.Request) -> webob.Response:
    inst = _server(req, 'show')
    key = req.urlvars['key']
    metadata = inst['metadata'] or {}
    if key not in metadata:
        raise webob.exc.HTTPNotFound(explanation='Metadata item was not found')
    return util.json_response({'meta': {key: metadata[key]}})


def set_item(req: webob.Request) -> webob.Response:
    inst = _server(req, 'update')
    meta = util.read_body(req, META_BODY)['meta']
    key = req.urlvars['key']
    if key not in meta:
        raise webob.exc.HTTPBadRequest(
            explanation='Request body and URI mismatch'
        )
    _change(req, inst, 'update metadata', lambda current: {**current, **meta})
    return util.json_response({'meta': meta})


def delete_item(req: webob.Request) -> webob.Response:
    inst = _server(req, 'delete')
    key = req.urlvars['key']

    def without(current: dict[str, str]) -> dict[str, str]:
        if key not in current:
            raise exception.MetadataItemNotFound()
        return {k: v for k, v in current.items() if k != key}

    _change(req, inst, 'delete metadata', without)
    return webob.Response(status=204)
