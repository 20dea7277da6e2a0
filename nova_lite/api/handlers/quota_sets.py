"""os-quota-sets: show, defaults, detail, update and delete (revert to
the defaults) a project's quotas, as upstream Nova.

Which resources a response holds depends on the microversion, as
upstream: from 2.36 the nova-network ones are gone, from 2.57 the
injected-file ones. ``?user_id=`` (per-user quotas) is not supported:
quotas here are per project.
"""

from typing import Any
from typing import cast

from oslo_utils import strutils
import webob
import webob.exc

from lite_common.wsgi import microversion
from nova_lite.api import microversion as mv
from nova_lite.api import util
from nova_lite.api.schemas import quota_sets as schema
from nova_lite.db import quotas as db

POLICY = 'os_compute_api:os-quota-sets:%s'
FILTERED_V236 = frozenset(db.NETWORK)
FILTERED_V257 = FILTERED_V236 | {
    'injected_files',
    'injected_file_content_bytes',
    'injected_file_path_bytes',
}


def shown_resources(req: webob.Request) -> list[str]:
    """The resources the request's microversion shows."""
    return resources_at(util.version(req))


def resources_at(version: microversion.APIVersion) -> list[str]:
    """The resources a microversion shows (and lets an admin set)."""
    if version.at_least(mv.NO_PERSONALITY):
        hidden = FILTERED_V257
    elif version.at_least(mv.NO_NETWORK_QUOTAS):
        hidden = FILTERED_V236
    else:
        hidden = frozenset()
    return [name for name in db.RESOURCES if name not in hidden]


def _quota_set(
    req: webob.Request, values: dict[str, Any], project_id: str | None
) -> webob.Response:
    body: dict[str, Any] = {}
    if project_id is not None:
        body['id'] = project_id
    for name in shown_resources(req):
        body[name] = values[name]
    return util.json_response({'quota_set': body})


def _project(req: webob.Request, action: str) -> str:
    project_id = req.urlvars['quota_project_id']
    util.authorize(req, POLICY % action, {'project_id': project_id})
    return cast(str, project_id)


def show_quota_set(req: webob.Request) -> webob.Response:
    util.reject_unknown_query(req, ('user_id',))
    project_id = _project(req, 'show')
    return _quota_set(
        req, db.project_quotas(util.context(req), project_id), project_id
    )


def show_defaults(req: webob.Request) -> webob.Response:
    project_id = _project(req, 'defaults')
    # [quota] with the quota class "default" over it, as upstream.
    return _quota_set(
        req, db.project_quotas(util.context(req), None), project_id
    )


def show_detail(req: webob.Request) -> webob.Response:
    util.reject_unknown_query(req, ('user_id',))
    project_id = _project(req, 'detail')
    ctx = util.context(req)
    limits = db.project_quotas(ctx, project_id)
    used = db.project_usage(ctx, project_id)
    detail = {
        name: {'in_use': used.get(name, 0), 'limit': limit, 'reserved': 0}
        for name, limit in limits.items()
    }
    return _quota_set(req, detail, project_id)


def checked_limit(name: str, value: int | str) -> int:
    """A limit from -1 to 2**31 - 1 (the schema checks only the range
    of JSON integers, not of strings of digits)."""
    limit = int(value)
    if not db.UNLIMITED <= limit <= schema.MAX_LIMIT:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Invalid quota limit {str(value)[:20]} for {name}: '
            f'it must be an integer from -1 (unlimited) to '
            f'{schema.MAX_LIMIT}.'
        )
    return limit


def _check_not_below_usage(
    limits: dict[str, int], used: dict[str, int]
) -> None:
    for name, limit in sorted(limits.items()):
        if name in used and limit != db.UNLIMITED and limit < used[name]:
            raise webob.exc.HTTPBadRequest(
                explanation=f'Quota limit {limit} for {name} must be '
                f'greater than or equal to already used and reserved '
                f'{used[name]}.'
            )


def update_quota_set(req: webob.Request) -> webob.Response:
    """Admin only. A limit below what the project uses is a 400 unless
    ``force`` is true."""
    util.reject_unknown_query(req, ('user_id',))
    project_id = _project(req, 'update')
    ctx = util.context(req)
    body = util.read_body(req, schema.update(shown_resources(req)))
    wanted = dict(body['quota_set'])
    force = strutils.bool_from_string(wanted.pop('force', False))
    limits = {
        name: checked_limit(name, value) for name, value in wanted.items()
    }
    if not force:
        _check_not_below_usage(limits, db.project_usage(ctx, project_id))
    db.quota_set(ctx, project_id, limits)
    # As upstream, the update response has no ``id``.
    return _quota_set(req, db.project_quotas(ctx, project_id), None)


def delete_quota_set(req: webob.Request) -> webob.Response:
    """Admin only: the project's limits go back to the defaults."""
    util.reject_unknown_query(req, ('user_id',))
    project_id = _project(req, 'delete')
    db.quota_destroy_all(util.context(req), project_id)
    return webob.Response(status=202)
