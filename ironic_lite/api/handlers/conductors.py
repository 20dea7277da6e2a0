"""Conductors (API 1.49): ``GET /v1/conductors`` and
``GET /v1/conductors/{hostname}``.

Every conductor that ever registered, with ``alive`` as the hash ring
judges it (online, and a heartbeat younger than
``[conductor]heartbeat_timeout``) and the hardware types it loads as
``drivers``. Below 1.49 the resource does not exist (404), as upstream.
"""

import datetime
from typing import Any

import webob
import webob.exc

from ironic_lite import exception
from ironic_lite.api import listing
from ironic_lite.api import util
from ironic_lite.db import conductors as db_conductors
from lite_common import db as lite_db

POLICY = 'baremetal:conductor:get'
FIELDS = (
    'hostname',
    'conductor_group',
    'alive',
    'drivers',
    'created_at',
    'updated_at',
    'links',
)
LIST_FIELDS = ('hostname', 'conductor_group', 'alive', 'links')


def _require(req: webob.Request) -> None:
    util.authorize(req, POLICY)


def _fields(req: webob.Request, detail: bool | None) -> tuple[str, ...]:
    text = req.GET.get('fields')
    if text is None:
        return FIELDS if detail or detail is None else LIST_FIELDS
    if detail:
        raise webob.exc.HTTPBadRequest(
            explanation="Can't fetch a subset of fields with 'detail' set"
        )
    return listing.selected_fields(text, FIELDS)


class _View:
    """Renders conductors for one request."""

    def __init__(self, req: webob.Request, fields: tuple[str, ...]):
        self.base = util.base_url(req)
        self.fields = fields
        timeout = util.deps(req).heartbeat_timeout
        self.cutoff = lite_db.utcnow() - datetime.timedelta(seconds=timeout)

    def render(self, row: dict[str, Any]) -> dict[str, Any]:
        values = {
            'hostname': row['hostname'],
            'conductor_group': row['conductor_group'] or '',
            'alive': bool(
                row['online'] and row['heartbeat_at'] >= self.cutoff
            ),
            'drivers': sorted(row['hardware_types'] or []),
            'created_at': util.isotime(row['created_at']),
            'updated_at': util.isotime(row['updated_at']),
            'links': util.links_at(self.base, 'conductors', row['hostname']),
        }
        return {name: values[name] for name in self.fields}


def list_conductors(req: webob.Request) -> webob.Response:
    _require(req)
    detail = util.query_bool(req, 'detail')
    fields = _fields(req, bool(detail))
    limit = listing.page_limit(req)
    try:
        rows = db_conductors.conductor_list(
            util.context(req),
            limit=limit,
            marker=req.GET.get('marker'),
            sort_key=req.GET.get('sort_key', 'id'),
            sort_dir=req.GET.get('sort_dir', 'asc'),
        )
    except exception.ConductorNotFound as exc:
        raise webob.exc.HTTPBadRequest(explanation=str(exc))
    view = _View(req, fields)
    body: dict[str, Any] = {'conductors': [view.render(r) for r in rows]}
    if rows and len(rows) == limit:
        body['next'] = util.next_url(
            req, 'conductors', rows[-1]['hostname'], limit
        )
    return util.json_response(body)


def show_conductor(req: webob.Request) -> webob.Response:
    _require(req)
    fields = _fields(req, None)
    row = db_conductors.get(util.context(req), req.urlvars['hostname'])
    return util.json_response(_View(req, fields).render(row))
