"""os-server-groups: list, create, show, delete, as upstream.

Until 2.63 a group has ``policies`` (one of them) and an empty
``metadata``; from 2.64 ``policy`` and ``rules``
(``max_server_per_host`` of an anti-affinity group). ``project_id`` and
``user_id`` from 2.13; soft policies from 2.15. ``members`` are the
group's live servers. Create answers 200 and delete 204, as upstream.
"""

from typing import Any

import webob
import webob.exc

from nova_lite import exception
from nova_lite.api import microversion as mv
from nova_lite.api import util
from nova_lite.api.schemas import server_groups as schema
from nova_lite.db import server_groups as db
from nova_lite.policies.server_groups import SERVER_GROUPS as POLICY


def view(group: dict[str, Any], version: Any) -> dict[str, Any]:
    body: dict[str, Any] = {'id': group['uuid'], 'name': group['name']}
    if version.at_least(mv.SERVER_GROUP_POLICY):
        body['policy'] = group['policy']
        body['rules'] = group['rules'] or {}
    else:
        body['policies'] = [group['policy']]
        body['metadata'] = {}
    body['members'] = group['members']
    if version.at_least(mv.SERVER_GROUP_OWNER):
        body['project_id'] = group['project_id']
        body['user_id'] = group['user_id']
    return body


def values_from(spec: dict[str, Any], version: Any) -> dict[str, Any]:
    """Policy and rules of a validated create request (400 for rules
    of a policy other than anti-affinity)."""
    if not version.at_least(mv.SERVER_GROUP_POLICY):
        return {'policy': spec['policies'][0], 'rules': None}
    rules = spec.get('rules') or {}
    if rules and spec['policy'] != 'anti-affinity':
        raise webob.exc.HTTPBadRequest(
            explanation='Only anti-affinity policy supports rules.'
        )
    if 'max_server_per_host' in rules:
        rules = {
            'max_server_per_host': util.bounded_int(
                rules['max_server_per_host'], 'max_server_per_host', 1
            )
        }
    return {'policy': spec['policy'], 'rules': rules}


def _group(req: webob.Request, action: str) -> dict[str, Any]:
    group = db.get(util.context(req), req.urlvars['server_group_id'])
    util.authorize(req, POLICY % action, {'project_id': group['project_id']})
    return group


def list_server_groups(req: webob.Request) -> webob.Response:
    util.reject_unknown_query(req, ('all_projects', 'limit', 'offset'))
    ctx = util.context(req)
    util.authorize(req, POLICY % 'index', {'project_id': ctx.project_id})
    project_id = ctx.project_id
    if 'all_projects' in req.GET and ctx.is_admin:
        util.authorize(
            req, POLICY % 'index:all_projects', {'project_id': ctx.project_id}
        )
        project_id = None
    groups = db.get_all(
        ctx,
        project_id,
        util.page_limit(req),
        util.query_int(req, 'offset') or 0,
    )
    version = util.version(req)
    return util.json_response(
        {'server_groups': [view(group, version) for group in groups]}
    )


def create_server_group(req: webob.Request) -> webob.Response:
    ctx = util.context(req)
    util.authorize(req, POLICY % 'create', {'project_id': ctx.project_id})
    version = util.version(req)
    spec = util.read_body(req, schema.create(version))['server_group']
    values = values_from(spec, version)
    try:
        group = db.create(
            ctx,
            dict(
                values,
                name=spec['name'],
                project_id=ctx.project_id,
                user_id=ctx.user_id,
            ),
        )
    except exception.ServerGroupLimitExceeded as exc:
        raise webob.exc.HTTPForbidden(explanation=exc.format_message())
    return util.json_response({'server_group': view(group, version)})


def show_server_group(req: webob.Request) -> webob.Response:
    return util.json_response(
        {'server_group': view(_group(req, 'show'), util.version(req))}
    )


def delete_server_group(req: webob.Request) -> webob.Response:
    group = _group(req, 'delete')
    db.destroy(util.context(req), group['uuid'])
    return webob.Response(status=204)
