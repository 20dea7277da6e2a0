"""os-quota-class-sets: show and update a quota class (administrators),
as upstream. The class ``default`` gives every project's defaults
(os-quota-sets and the quota checks read it); other classes are stored
and shown only, as upstream.

Which resources a body holds depends on the microversion (upstream's
rules, not those of os-quota-sets): before 2.50 no ``server_groups`` /
``server_group_members``; from 2.50 those, and no nova-network
resources; from 2.57 no injected-file resources.
"""

from typing import Any

import webob
import webob.exc

from lite_common.wsgi import microversion
from nova_lite.api import microversion as mv
from nova_lite.api import util
from nova_lite.api.handlers import quota_sets
from nova_lite.api.schemas import quota_sets as schema
from nova_lite.db import quotas as db

POLICY = 'os_compute_api:os-quota-class-sets:%s'
SERVER_GROUPS = frozenset(('server_groups', 'server_group_members'))
FILTERED_V250 = frozenset(db.NETWORK)
FILTERED_V257 = FILTERED_V250 | {
    'injected_files',
    'injected_file_content_bytes',
    'injected_file_path_bytes',
}


def resources_at(version: microversion.APIVersion) -> list[str]:
    if version.at_least(mv.NO_PERSONALITY):
        hidden = FILTERED_V257
    elif version.at_least(mv.QUOTA_CLASS_SERVER_GROUPS):
        hidden = FILTERED_V250
    else:
        hidden = SERVER_GROUPS
    return [name for name in db.RESOURCES if name not in hidden]


def _body(
    req: webob.Request, values: dict[str, int], name: str | None
) -> webob.Response:
    body: dict[str, Any] = {} if name is None else {'id': name}
    body.update(
        {
            resource: values[resource]
            for resource in resources_at(util.version(req))
        }
    )
    return util.json_response({'quota_class_set': body})


def show_quota_class(req: webob.Request) -> webob.Response:
    util.authorize(req, POLICY % 'show')
    name = req.urlvars['quota_class']
    return _body(req, db.class_quotas(util.context(req), name), name)


def update_quota_class(req: webob.Request) -> webob.Response:
    """The response has no ``id``, as upstream's."""
    util.authorize(req, POLICY % 'update')
    name = req.urlvars['quota_class']
    if not 1 <= len(name) <= 255:
        raise webob.exc.HTTPBadRequest(
            explanation='quota_class_name has a length of 1 to 255.'
        )
    body = util.read_body(
        req, schema.update_class(resources_at(util.version(req)))
    )
    limits = {
        resource: quota_sets.checked_limit(resource, value)
        for resource, value in body['quota_class_set'].items()
    }
    ctx = util.context(req)
    db.quota_set(ctx, db.class_key(name), limits)
    return _body(req, db.class_quotas(ctx, name), None)
