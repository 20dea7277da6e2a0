"""``/v2.0/quotas``: a project's limits (its own, else ``[quotas]``'s
defaults), their usage (``/details``), the defaults (``/default``);
administrators set and reset them. Creates beyond a limit are 409
``OverQuota`` (:func:`check`)."""

from typing import Any

import webob

from neutron_lite import exception
from neutron_lite.api import attributes
from neutron_lite.api import util
from neutron_lite.conf import quotas as quota_conf
from neutron_lite.db import quotas as db


def defaults(req: webob.Request) -> dict[str, int]:
    conf = util.deps(req).conf.quotas
    return {r: int(conf[f'quota_{r}']) for r in quota_conf.DEFAULTS}


def check(req: webob.Request, project_id: str, resource: str) -> None:
    """:raises OverQuota: the project is at its limit of ``resource``."""
    db.check(util.context(req), project_id, resource, defaults(req))


def _target(project_id: str) -> dict[str, Any]:
    return {'project_id': project_id, 'tenant_id': project_id}


def list_quotas(req: webob.Request) -> webob.Response:
    util.authorize(req, 'get_quota', _target(''))
    own = db.projects_with_own(util.context(req))
    base = defaults(req)
    return util.json_response(
        {
            'quotas': [
                {**base, **limits, 'project_id': p, 'tenant_id': p}
                for p, limits in sorted(own.items())
            ]
        }
    )


def show_quota(req: webob.Request) -> webob.Response:
    project = req.urlvars['project_id']
    util.authorize(req, 'get_quota', _target(project))
    limits = db.limits(util.context(req), project, defaults(req))
    return util.json_response({'quota': limits})


def show_details(req: webob.Request) -> webob.Response:
    project = req.urlvars['project_id']
    util.authorize(req, 'get_quota', _target(project))
    return util.json_response(
        {'quota': db.details(util.context(req), project, defaults(req))}
    )


def show_defaults(req: webob.Request) -> webob.Response:
    project = req.urlvars['project_id']
    util.authorize(req, 'get_quota', _target(project))
    return util.json_response({'quota': defaults(req)})


def _limits(body: Any) -> tuple[dict[str, int], bool]:
    if not isinstance(body, dict) or not isinstance(body.get('quota'), dict):
        raise exception.HTTPBadRequest(
            msg="Unable to find 'quota' in request body"
        )
    given = dict(body['quota'])
    check_limit = attributes.to_boolean(given.pop('check_limit', False))
    unknown = sorted(set(given) - set(quota_conf.DEFAULTS))
    if unknown:
        raise exception.HTTPBadRequest(
            msg="Unrecognized attribute(s) '" + ', '.join(unknown) + "'"
        )
    limits = {}
    for resource, value in given.items():
        try:
            limit = attributes.to_int(-1)(value)
        except attributes.Unconvertible as exc:
            raise exception.InvalidInput(error_message=str(exc)) from None
        except attributes.Invalid as exc:
            raise exception.HTTPBadRequest(
                msg=f'Invalid input for {resource}. Reason: {exc}.'
            ) from None
        limits[resource] = limit
    return limits, check_limit


def update_quota(req: webob.Request) -> webob.Response:
    project = req.urlvars['project_id']
    util.authorize(req, 'update_quota', _target(project))
    try:
        limits, check_limit = _limits(util.body(req))
    except attributes.Unconvertible as exc:
        raise exception.InvalidInput(error_message=str(exc)) from None
    db.update(util.context(req), project, limits, check_limit)
    limits = db.limits(util.context(req), project, defaults(req))
    return util.json_response({'quota': limits})


def delete_quota(req: webob.Request) -> webob.Response:
    project = req.urlvars['project_id']
    util.authorize(req, 'delete_quota', _target(project))
    db.reset(util.context(req), project)
    return webob.Response(status=204)
