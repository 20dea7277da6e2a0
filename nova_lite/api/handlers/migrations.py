"""os-migrations: list the moves of instances (admin only).

Fields and their microversions follow upstream: ``migration_type`` and
``links`` (only on in-progress live migrations) from 2.23; ``uuid``,
paging by ``limit`` / ``marker`` (a migration uuid) and
``migrations_links`` and ``changes-since`` from 2.59;
``changes-before`` from 2.66 (both bound ``updated_at``); from 2.59 an
unknown query parameter is a 400; ``user_id`` and ``project_id`` (the
requester of the move) as filters and fields from 2.80. Hidden
migrations are never listed.
"""

from typing import Any

import webob
import webob.exc

from nova_lite import exception
from nova_lite.api import microversion as mv
from nova_lite.api import util
from nova_lite.db import flavors as flavor_db
from nova_lite.db import migrations as db

POLICY = 'os_compute_api:os-migrations:index'
_FILTERS = (
    'host',
    'status',
    'migration_type',
    'instance_uuid',
    'source_compute',
)
_LIVE_MIGRATION_IN_PROGRESS = (
    'queued',
    'preparing',
    'running',
    'post-migrating',
)
#: The query of the list per version (upstream's index_query_v259, v266
#: and v280; ``hidden`` is in upstream's schema and ignored).
_QUERY_V259 = _FILTERS + ('hidden', 'limit', 'marker', 'changes-since')
_QUERY_V266 = _QUERY_V259 + ('changes-before',)
_QUERY_V280 = _QUERY_V266 + ('user_id', 'project_id')
_FIELDS = (
    'id',
    'source_compute',
    'dest_compute',
    'source_node',
    'dest_node',
    'dest_host',
    'instance_uuid',
    'status',
)


def _flavor_ids(
    req: webob.Request, rows: list[dict[str, Any]]
) -> dict[str, int]:
    """flavorid -> the flavor's integer id, which upstream shows."""
    if not rows:
        return {}
    flavors = flavor_db.flavor_get_all(util.context(req))
    return {flavor['flavorid']: flavor['id'] for flavor in flavors}


def _flavor_id(flavor_ids: dict[str, int], flavorid: str | None) -> Any:
    if flavorid is None:
        return None
    return flavor_ids.get(flavorid, flavorid)


def _view(
    req: webob.Request, row: dict[str, Any], flavor_ids: dict[str, int]
) -> dict[str, Any]:
    version = util.version(req)
    body = {key: row[key] for key in _FIELDS}
    body.update(
        {
            'old_instance_type_id': _flavor_id(
                flavor_ids, row['old_flavor_id']
            ),
            'new_instance_type_id': _flavor_id(
                flavor_ids, row['new_flavor_id']
            ),
            'created_at': util.microsecond_time(row['created_at']),
            'updated_at': util.microsecond_time(row['updated_at']),
        }
    )
    if version.at_least(mv.MIGRATION_TYPE):
        body['migration_type'] = row['migration_type']
        if (
            row['migration_type'] == 'live-migration'
            and row['status'] in _LIVE_MIGRATION_IN_PROGRESS
        ):
            body['links'] = util.links(
                req, f'servers/{row["instance_uuid"]}/migrations', row['id']
            )
    if version.at_least(mv.MIGRATION_PAGING):
        body['uuid'] = row['uuid']
    if version.at_least(mv.MIGRATION_OWNER):
        body['user_id'] = row['user_id']
        body['project_id'] = row['project_id']
    return body


def _check_query(req: webob.Request) -> None:
    version = util.version(req)
    known: tuple[str, ...]
    if version.at_least(mv.MIGRATION_OWNER):
        known = _QUERY_V280
    else:
        known = (
            _QUERY_V266 if version.at_least(mv.CHANGES_BEFORE) else _QUERY_V259
        )
    util.reject_unknown_query(req, known, since=mv.MIGRATION_PAGING)


def _rows(
    req: webob.Request, paged: bool, limit: int | None
) -> list[dict[str, Any]]:
    filters: dict[str, Any] = {
        key: req.GET[key] for key in _FILTERS if req.GET.get(key)
    }
    filters['hidden'] = False
    version = util.version(req)
    if version.at_least(mv.MIGRATION_OWNER):
        for key in ('user_id', 'project_id'):
            if req.GET.get(key):
                filters[key] = req.GET[key]
    if version.at_least(mv.CHANGES_BEFORE):
        filters['changes_since'], filters['changes_before'] = (
            util.changes_window(req)
        )
    elif version.at_least(mv.MIGRATION_PAGING):
        filters['changes_since'] = util.changes_since(req)
    marker = req.GET.get('marker') if paged else None
    try:
        return db.migration_get_all(
            util.context(req), filters, limit=limit, marker=marker
        )
    except exception.MigrationNotFound:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Marker {marker} could not be found.'
        ) from None


def list_migrations(req: webob.Request) -> webob.Response:
    util.authorize(req, POLICY)
    _check_query(req)
    paged = util.version(req).at_least(mv.MIGRATION_PAGING)
    limit = util.page_limit(req) if paged else None
    rows = _rows(req, paged, limit)
    flavor_ids = _flavor_ids(req, rows)
    body: dict[str, Any] = {
        'migrations': [_view(req, row, flavor_ids) for row in rows]
    }
    if paged and rows and limit is not None:
        links = util.next_link(
            req, 'os-migrations', rows, limit, rows[-1]['uuid']
        )
        if links:
            body['migrations_links'] = links
    return util.json_response(body)
