"""Identity v3 project look-up, for ``openstack quota show/set PROJECT``.

There is no identity service here: a project is the id requests carry
(http_basic: the user's name; noauth: ``X-Project-Id``), and nova, as
upstream without keystone to ask, accepts any project id. The CLI
resolves the project through identity before it calls the compute API
(``GET /identity/v3/projects/{id}``, then ``?name=``); this answers
with the project as its id names it: the caller's own project, or any
project for an admin (the only ones who may read or set another
project's quotas). A member asking for another project gets a 403,
as from keystone.
"""

from typing import Any

import webob
import webob.exc

from nova_lite.api import util


def _project(req: webob.Request, project_id: str) -> dict[str, Any]:
    base = util.base_url(req)
    return {
        'id': project_id,
        'name': project_id,
        'domain_id': 'default',
        'enabled': True,
        'is_domain': False,
        'parent_id': 'default',
        'description': '',
        'tags': [],
        'links': {'self': f'{base}/identity/v3/projects/{project_id}'},
    }


def _may_see(req: webob.Request, project_id: str) -> bool:
    ctx = util.context(req)
    return bool(ctx.is_admin) or project_id == ctx.project_id


def show_project(req: webob.Request) -> webob.Response:
    project_id = req.urlvars['identity_project_id']
    if not _may_see(req, project_id):
        raise webob.exc.HTTPForbidden(
            explanation='You are not authorized to perform the requested '
            'action: identity:get_project.'
        )
    return util.json_response({'project': _project(req, project_id)})


def list_projects(req: webob.Request) -> webob.Response:
    """``?name=`` (what the CLI sends): that project if the caller may
    see it; without a name, the caller's own project."""
    name = req.GET.get('name')
    if name is None:
        name = util.context(req).project_id
    found = [_project(req, name)] if name and _may_see(req, name) else []
    return util.json_response(
        {
            'projects': found,
            'links': {
                'self': f'{util.base_url(req)}/identity/v3/projects',
                'previous': None,
                'next': None,
            },
        }
    )
