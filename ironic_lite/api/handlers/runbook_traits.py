"""Runbook traits (API 1.112): ``/v1/runbooks/{runbook_ident}/traits``.

From 1.112 a node may run a runbook when it has one of the runbook's
traits (before: the runbook's name). ``GET`` lists them
(``baremetal:runbook:get``); ``PUT`` with ``{"traits": [...]}``
replaces them, ``PUT .../traits/{trait}`` (no body) adds one,
``DELETE .../traits/{trait}`` removes one (one that is not there too)
and ``DELETE .../traits`` every one (``baremetal:runbook:update``).
From 1.92 to 1.111 every one of them is a 404, as upstream answers.
"""

from typing import Any

import webob
import webob.exc

from ironic_lite.api import microversion as mv
from ironic_lite.api import util
from ironic_lite.api.handlers import node_traits
from ironic_lite.api.handlers import runbooks
from ironic_lite.db import runbooks as db_runbooks


def _runbook(req: webob.Request, action: str) -> dict[str, Any]:
    runbooks.require(req)
    if util.version(req).below(mv.RUNBOOK_TRAITS):
        raise webob.exc.HTTPNotFound(
            explanation='The API version does not allow runbook traits'
        )
    return runbooks.retrieve(req, req.urlvars['runbook_ident'], action)


def list_traits(req: webob.Request) -> webob.Response:
    row = _runbook(req, 'get')
    return util.json_response({'traits': row['traits']})


def set_traits(req: webob.Request) -> webob.Response:
    row = _runbook(req, 'update')
    body = util.read_body(req, node_traits.BODY_SCHEMA)
    traits = [node_traits.check_trait(t) for t in body['traits']]
    db_runbooks.set_traits(util.context(req), row['id'], traits, replace=True)
    return webob.Response(status=204)


def add_trait(req: webob.Request) -> webob.Response:
    row = _runbook(req, 'update')
    if req.body.strip():
        raise webob.exc.HTTPBadRequest(
            explanation='No body should be provided when adding a trait'
        )
    trait = node_traits.check_trait(req.urlvars['trait'])
    db_runbooks.set_traits(
        util.context(req), row['id'], [trait], replace=False
    )
    location = (
        f'{util.base_url(req)}/v1/runbooks/'
        f'{req.urlvars["runbook_ident"]}/traits/{trait}'
    )
    return webob.Response(status=204, headers={'Location': location})


def remove_trait(req: webob.Request) -> webob.Response:
    row = _runbook(req, 'update')
    db_runbooks.remove_traits(
        util.context(req), row['id'], [req.urlvars['trait']]
    )
    return webob.Response(status=204)


def remove_all_traits(req: webob.Request) -> webob.Response:
    row = _runbook(req, 'update')
    db_runbooks.remove_traits(util.context(req), row['id'], None)
    return webob.Response(status=204)
