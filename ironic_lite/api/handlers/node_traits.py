"""Node traits (API 1.37): ``/v1/nodes/{node_ident}/traits``.

``GET`` lists them; ``PUT`` with ``{"traits": [...]}`` replaces them;
``PUT .../traits/{trait}`` adds one; ``DELETE .../traits/{trait}``
removes one and ``DELETE .../traits`` all. A trait is a standard one
(os-traits) or ``CUSTOM_`` followed by upper case letters, digits and
underscores; a node has at most 50. Changes are made by the conductor
under the node lock. Below 1.37 a read is a 406, setting or adding a
405 and removing a 404, as upstream answers.
"""

import functools
import re
from typing import Any

import os_traits
import webob
import webob.exc

from ironic_lite.api import microversion as mv
from ironic_lite.api import util
from ironic_lite.api.handlers import node_access
from ironic_lite.db import node_traits as db_traits

_CUSTOM = re.compile(r'^CUSTOM_[A-Z0-9_]+$')
MAX_LENGTH = 255

BODY_SCHEMA = {
    'type': 'object',
    'properties': {
        'traits': {
            'type': 'array',
            'maxItems': 1000,
            'items': {'type': 'string', 'maxLength': MAX_LENGTH},
        }
    },
    'required': ['traits'],
    'additionalProperties': False,
}


@functools.lru_cache(maxsize=1)
def _standard() -> frozenset[str]:
    return frozenset(os_traits.get_traits())


def check_trait(trait: str) -> str:
    if len(trait) <= MAX_LENGTH and (
        _CUSTOM.match(trait) or trait in _standard()
    ):
        return trait
    raise webob.exc.HTTPBadRequest(
        explanation=f'Invalid trait {trait[:100]!r}: use a standard trait '
        '(os-traits) or CUSTOM_ followed by upper case letters, digits '
        f'and underscores, at most {MAX_LENGTH} characters.'
    )


def _node(req: webob.Request, action: str) -> dict[str, Any]:
    if util.version(req).below(mv.TRAITS):
        # Upstream's answers below 1.37: 406 to read, 405 to set or
        # add, 404 to remove.
        if req.method == 'GET':
            raise webob.exc.HTTPNotAcceptable(
                explanation='Request not acceptable.'
            )
        if req.method == 'DELETE':
            raise webob.exc.HTTPNotFound(
                explanation='Resource could not be found.'
            )
        raise webob.exc.HTTPMethodNotAllowed(explanation='Method Not Allowed')
    return node_access.authorized_node(req, action)


def list_traits(req: webob.Request) -> webob.Response:
    node = _node(req, 'baremetal:node:traits:list')
    traits = db_traits.traits_of(util.context(req), [node['id']])
    return util.json_response({'traits': traits[node['id']]})


def set_traits(req: webob.Request) -> webob.Response:
    """``PUT .../traits``: the node's traits become the body's."""
    node = _node(req, 'baremetal:node:traits:set')
    body = util.read_body(req, BODY_SCHEMA)
    traits = [check_trait(t) for t in body['traits']]
    util.deps(req).conductor.add_node_traits(
        util.context(req), node, traits, replace=True
    )
    return webob.Response(status=204)


def add_trait(req: webob.Request) -> webob.Response:
    """``PUT .../traits/{trait}``: one more trait (no body)."""
    node = _node(req, 'baremetal:node:traits:set')
    if req.body.strip():
        raise webob.exc.HTTPBadRequest(
            explanation='No body should be provided when adding a trait'
        )
    trait = check_trait(req.urlvars['trait'])
    util.deps(req).conductor.add_node_traits(
        util.context(req), node, [trait], replace=False
    )
    location = (
        f'{util.base_url(req)}/v1/nodes/'
        f'{req.urlvars["node_ident"]}/traits/{trait}'
    )
    return webob.Response(status=204, headers={'Location': location})


def remove_trait(req: webob.Request) -> webob.Response:
    node = _node(req, 'baremetal:node:traits:delete')
    util.deps(req).conductor.remove_node_traits(
        util.context(req), node, [req.urlvars['trait']]
    )
    return webob.Response(status=204)


def remove_all_traits(req: webob.Request) -> webob.Response:
    node = _node(req, 'baremetal:node:traits:delete')
    util.deps(req).conductor.remove_node_traits(util.context(req), node, None)
    return webob.Response(status=204)
