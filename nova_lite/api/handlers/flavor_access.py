"""os-flavor-access: the projects that see a private flavor, as
upstream (administrators): ``GET /flavors/{id}/os-flavor-access`` (404
for a public flavor), and the flavor actions ``addTenantAccess`` (409
when given already) and ``removeTenantAccess`` (404 when not), each
answering the access list."""

from typing import Any

import webob
import webob.exc

from nova_lite import exception
from nova_lite.api import util
from nova_lite.db import flavors as db

POLICY = 'os_compute_api:os-flavor-access'
_TENANT = {
    'type': 'object',
    'properties': {
        'tenant': {'type': 'string', 'minLength': 1, 'maxLength': 255}
    },
    'required': ['tenant'],
    'additionalProperties': False,
}
ACTION_BODY = {
    'type': 'object',
    'properties': {'addTenantAccess': _TENANT, 'removeTenantAccess': _TENANT},
    'minProperties': 1,
    'maxProperties': 1,
    'additionalProperties': False,
}


def _flavor(req: webob.Request) -> dict[str, Any]:
    flavorid = req.urlvars['flavor_id']
    try:
        return db.flavor_get(util.context(req), flavorid)
    except exception.FlavorNotFound:
        raise webob.exc.HTTPNotFound(
            explanation=f'Flavor {flavorid} could not be found.'
        ) from None


def _access(req: webob.Request, flavor: dict[str, Any]) -> webob.Response:
    return util.json_response(
        {
            'flavor_access': [
                {'flavor_id': flavor['flavorid'], 'tenant_id': project}
                for project in db.access_list(util.context(req), flavor['id'])
            ]
        }
    )


def list_access(req: webob.Request) -> webob.Response:
    util.authorize(req, POLICY)
    flavor = _flavor(req)
    if flavor['is_public']:
        raise webob.exc.HTTPNotFound(
            explanation='Access list not available for public flavors.'
        )
    return _access(req, flavor)


def flavor_action(req: webob.Request) -> webob.Response:
    body = util.read_body(req, ACTION_BODY)
    flavor = _flavor(req)
    if 'addTenantAccess' in body:
        util.authorize(req, POLICY + ':add_tenant_access')
        if flavor['is_public']:
            raise webob.exc.HTTPConflict(
                explanation='Can not add access to a public flavor.'
            )
        db.access_add(
            util.context(req), flavor, body['addTenantAccess']['tenant']
        )
    else:
        util.authorize(req, POLICY + ':remove_tenant_access')
        db.access_remove(
            util.context(req), flavor, body['removeTenantAccess']['tenant']
        )
    return _access(req, flavor)
