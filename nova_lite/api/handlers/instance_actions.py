"""GET /servers/{server_id}/os-instance-actions[/{request_id}]: the
requests that acted on a server and the events of each, per
microversion as upstream:

* 2.21: the actions of a deleted server stay readable;
* 2.51: the events are shown to whoever may see the action, their
  tracebacks only to administrators (before: events for admins only);
* 2.58: ``updated_at``; paging with ``limit`` / ``marker`` (a request
  id) and ``links``; ``changes-since``; unknown query parameters are a
  400;
* 2.62: each event's ``hostId`` (hashed with the project) for all,
  its ``host`` for whoever may see the tracebacks;
* 2.66: ``changes-before``;
* 2.84: each event's ``details`` (the message of a failure, null
  otherwise) for whoever the ``events:details`` policy lets see them.
"""

from typing import Any

import webob
import webob.exc

from nova_lite import exception
from nova_lite.api import microversion as mv
from nova_lite.api import util
from nova_lite.api.views import servers as views
from nova_lite.db import instance_actions as db
from nova_lite.db import instances as instance_db
from nova_lite.policies import server_actions as policies

_ACTION_KEYS = (
    'action',
    'instance_uuid',
    'request_id',
    'user_id',
    'project_id',
    'start_time',
    'message',
)
_QUERY_V258 = frozenset(('limit', 'marker', 'changes-since'))
_QUERY_V266 = _QUERY_V258 | {'changes-before'}


def _server(req: webob.Request) -> dict[str, Any]:
    ctx = util.context(req)
    uuid = req.urlvars['server_id']
    deleted = util.version(req).at_least(mv.DELETED_SERVER_ACTIONS)
    try:
        inst = instance_db.instance_get_by_uuid(
            ctx, uuid, read_deleted=deleted
        )
    except exception.InstanceNotFound:
        raise webob.exc.HTTPNotFound(
            explanation=f'Instance {uuid} could not be found.'
        ) from None
    if not ctx.is_admin and inst['project_id'] != ctx.project_id:
        raise webob.exc.HTTPNotFound(
            explanation=f'Instance {uuid} could not be found.'
        )
    return inst


def _action(row: dict[str, Any], v258: bool) -> dict[str, Any]:
    body = {key: row[key] for key in _ACTION_KEYS}
    body['start_time'] = util.microsecond_time(row['start_time'])
    if v258:
        body['updated_at'] = util.microsecond_time(row['updated_at'])
    return body


def _paging(req: webob.Request) -> tuple[int | None, str | None, Any]:
    v266 = util.version(req).at_least(mv.CHANGES_BEFORE)
    unknown = sorted(set(req.GET) - (_QUERY_V266 if v266 else _QUERY_V258))
    if unknown:
        raise webob.exc.HTTPBadRequest(
            explanation='Additional properties are not allowed '
            f'({", ".join(repr(name) for name in unknown)} '
            f'{"was" if len(unknown) == 1 else "were"} unexpected)'
        )
    window = (
        util.changes_window(req) if v266 else (util.changes_since(req), None)
    )
    return util.page_limit(req), req.GET.get('marker'), window


def list_actions(req: webob.Request) -> webob.Response:
    inst = _server(req)
    util.authorize(
        req, policies.ACTIONS % 'list', {'project_id': inst['project_id']}
    )
    v258 = util.version(req).at_least(mv.ACTION_PAGING)
    limit, marker, (since, before) = (
        _paging(req) if v258 else (None, None, (None, None))
    )
    try:
        rows = db.actions_get(
            util.context(req),
            inst['uuid'],
            limit=limit,
            marker=marker,
            changes_since=since,
            changes_before=before,
        )
    except exception.MarkerNotFound as exc:
        raise webob.exc.HTTPBadRequest(
            explanation=exc.format_message()
        ) from None
    body: dict[str, Any] = {
        'instanceActions': [_action(row, v258) for row in rows]
    }
    if v258 and limit is not None:
        links = util.next_link(
            req,
            f'servers/{inst["uuid"]}/os-instance-actions',
            rows,
            limit,
            rows[-1]['request_id'] if rows else '',
        )
        if links:
            body['links'] = links
    return util.json_response(body)


def _event(
    row: dict[str, Any],
    project_id: str,
    admin: bool,
    v262: bool,
    details: bool,
) -> dict[str, Any]:
    body = {
        'event': row['event'],
        'start_time': util.microsecond_time(row['start_time']),
        'finish_time': util.microsecond_time(row['finish_time']),
        'result': row['result'],
    }
    if admin:
        body['traceback'] = row['traceback']
        if v262:
            body['host'] = row['host']
    if v262:
        body['hostId'] = views.host_id(project_id, row['host'])
    if details:
        body['details'] = row['details']
    return body


def show_action(req: webob.Request) -> webob.Response:
    inst = _server(req)
    target = {'project_id': inst['project_id']}
    util.authorize(req, policies.ACTIONS % 'show', target)
    ctx = util.context(req)
    request_id = req.urlvars['request_id']
    row = db.action_get(ctx, inst['uuid'], request_id)
    if row is None:
        raise webob.exc.HTTPNotFound(
            explanation=f'Action {request_id} not found'
        )
    version = util.version(req)
    body = _action(row, version.at_least(mv.ACTION_PAGING))
    admin_events = util.check(req, policies.ACTIONS % 'events', target)
    if admin_events or version.at_least(mv.ACTION_EVENTS_FOR_ALL):
        project_id = row['project_id'] or inst['project_id']
        v262 = version.at_least(mv.ACTION_EVENT_HOST)
        details = version.at_least(mv.ACTION_EVENT_DETAILS) and util.check(
            req, policies.ACTIONS % 'events:details', target
        )
        body['events'] = [
            _event(event, project_id, admin_events, v262, details)
            for event in db.events_get(ctx, row['id'])
        ]
    return util.json_response({'instanceAction': body})
