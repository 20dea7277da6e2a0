"""/flavors/{flavor_id}/os-extra_specs[/{key}]: a flavor's extra specs,
as upstream: anyone who sees the flavor reads them, administrators
change them. Values are strings (a number is taken and stored as its
text, as upstream); create and update answer with the body sent. From
2.86 the known extra specs are validated (:mod:`nova_lite.api.extra_specs`)
before the flavor is looked up, as upstream."""

from typing import Any

import webob
import webob.exc

from nova_lite import exception
from nova_lite.api import extra_specs
from nova_lite.api import microversion as mv
from nova_lite.api import util
from nova_lite.api.handlers import flavors
from nova_lite.db import flavors as db

POLICY = 'os_compute_api:os-flavor-extra-specs:%s'
_VALUE = {'type': ['string', 'number'], 'minLength': 0, 'maxLength': 255}
SPECS = {
    'type': 'object',
    'patternProperties': {'^[a-zA-Z0-9-_:. ]{1,255}$': _VALUE},
    'additionalProperties': False,
}
CREATE_BODY = {
    'type': 'object',
    'properties': {'extra_specs': SPECS},
    'required': ['extra_specs'],
    'additionalProperties': False,
}
UPDATE_BODY = {**SPECS, 'minProperties': 1, 'maxProperties': 1}


def _as_text(req: webob.Request, specs: dict[str, Any]) -> dict[str, str]:
    """The specs as text; from 2.86 the known ones validated."""
    text = {key: str(value) for key, value in specs.items()}
    validated = util.version(req).at_least(mv.EXTRA_SPEC_VALIDATION)
    for key, value in text.items():
        if len(value) > 255:
            raise webob.exc.HTTPBadRequest(
                explanation=f'Invalid input received: extra_specs value of '
                f'{key} has more than 255 characters.'
            )
        if validated:
            try:
                extra_specs.validate(key, value)
            except exception.Invalid as exc:
                raise webob.exc.HTTPBadRequest(
                    explanation=exc.format_message()
                ) from None
    return text


def _merge(req: webob.Request, given: dict[str, str]) -> None:
    db.flavor_change_extra_specs(
        util.context(req),
        flavors.visible_flavor(req)['flavorid'],
        lambda current: {**current, **given},
    )


def list_specs(req: webob.Request) -> webob.Response:
    util.authorize(
        req, POLICY % 'index', {'project_id': util.context(req).project_id}
    )
    flavor = flavors.visible_flavor(req)
    return util.json_response({'extra_specs': flavor['extra_specs'] or {}})


def create_specs(req: webob.Request) -> webob.Response:
    util.authorize(req, POLICY % 'create', {})
    body = util.read_body(req, CREATE_BODY)
    given = _as_text(req, body['extra_specs'])
    _merge(req, given)
    return util.json_response(body)


def show_spec(req: webob.Request) -> webob.Response:
    util.authorize(
        req, POLICY % 'show', {'project_id': util.context(req).project_id}
    )
    flavor, key = flavors.visible_flavor(req), req.urlvars['key']
    specs = flavor['extra_specs'] or {}
    if key not in specs:
        raise webob.exc.HTTPNotFound(
            explanation=(
                exception.FlavorExtraSpecNotFound(
                    flavor_id=flavor['flavorid'], key=key
                ).format_message()
            )
        )
    return util.json_response({key: specs[key]})


def update_spec(req: webob.Request) -> webob.Response:
    util.authorize(req, POLICY % 'update', {})
    body = util.read_body(req, UPDATE_BODY)
    given = _as_text(req, body)
    if req.urlvars['key'] not in body:
        raise webob.exc.HTTPBadRequest(
            explanation='Request body and URI mismatch'
        )
    _merge(req, given)
    return util.json_response(body)


def delete_spec(req: webob.Request) -> webob.Response:
    util.authorize(req, POLICY % 'delete', {})
    flavorid, key = flavors.visible_flavor(req)['flavorid'], req.urlvars['key']

    def without(current: dict[str, str]) -> dict[str, str]:
        if key not in current:
            raise exception.FlavorExtraSpecNotFound(
                flavor_id=flavorid, key=key
            )
        return {k: v for k, v in current.items() if k != key}

    db.flavor_change_extra_specs(util.context(req), flavorid, without)
    # Upstream answers 200 with no body.
    return webob.Response(status=200)
