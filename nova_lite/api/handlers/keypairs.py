"""os-keypairs: a user's public keys, per microversion as upstream:

* 2.1: create answers 200, delete 202; no ``type``;
* 2.2: ``type`` (``ssh``, ``x509``); create answers 201, delete 204;
* 2.10: an administrator names another user (``user_id`` in the body,
  ``?user_id=`` in the query);
* 2.35: the list is paged with ``limit`` and ``marker`` (a name) and
  ``keypairs_links``;
* 2.92: ``public_key`` is required (no key is generated) and names
  may hold ``@`` and ``.``.

Before 2.92, without ``public_key`` a key pair is generated and its
private key returned once.
"""

from typing import Any

import webob
import webob.exc

from nova_lite import exception
from nova_lite.api import microversion as mv
from nova_lite.api import util
from nova_lite.api.schemas import keypairs as schema
from nova_lite.compute_api import keypairs
from nova_lite.db import keypairs as db
from nova_lite.policies import keypairs as policies

_INDEX = ('name', 'public_key', 'fingerprint')
_CREATE = (*_INDEX, 'user_id')
_SHOW = (*_CREATE, 'created_at', 'deleted', 'deleted_at', 'id', 'updated_at')


def _user(req: webob.Request, given: str | None = None) -> str:
    """The user whose key pairs are meant: ``given`` (2.10) or the
    caller."""
    if util.version(req).at_least(mv.KEYPAIR_USER_ID):
        given = given or req.GET.get('user_id')
    else:
        given = None
    return str(given or util.context(req).user_id)


def _view(
    row: dict[str, Any], keys: tuple[str, ...], with_type: bool
) -> dict[str, Any]:
    body = {key: row[key] for key in keys}
    for key in ('created_at', 'deleted_at', 'updated_at'):
        if key in body:
            body[key] = util.microsecond_time(body[key])
    if 'deleted' in body:
        body['deleted'] = bool(body['deleted'])
    if with_type:
        body['type'] = row['type']
    return body


def create_keypair(req: webob.Request) -> webob.Response:
    version = util.version(req)
    spec = util.read_body(req, schema.create_for(version))['keypair']
    user_id = _user(req, spec.get('user_id'))
    action = policies.KEYPAIRS % 'create'
    util.authorize(req, action, {'user_id': user_id})
    row = keypairs.create(
        util.context(req),
        util.caller_project(req, action),
        user_id,
        spec['name'],
        spec.get('type', keypairs.SSH),
        spec.get('public_key'),
    )
    with_type = version.at_least(mv.KEYPAIR_TYPE)
    body = _view(row, _CREATE, with_type)
    if 'private_key' in row:
        body['private_key'] = row['private_key']
    response = util.json_response({'keypair': body})
    response.status = 201 if with_type else 200
    return response


def list_keypairs(req: webob.Request) -> webob.Response:
    util.reject_unknown_query(req, ('user_id', 'limit', 'marker'))
    version = util.version(req)
    user_id = _user(req)
    util.authorize(req, policies.KEYPAIRS % 'index', {'user_id': user_id})
    paged = version.at_least(mv.KEYPAIR_PAGING)
    limit = util.page_limit(req) if paged else None
    marker = req.GET.get('marker') if paged else None
    try:
        rows = db.list_page(util.context(req), user_id, limit, marker)
    except exception.MarkerNotFound as exc:
        raise webob.exc.HTTPBadRequest(
            explanation=exc.format_message()
        ) from None
    with_type = version.at_least(mv.KEYPAIR_TYPE)
    body: dict[str, Any] = {
        'keypairs': [
            {'keypair': _view(row, _INDEX, with_type)} for row in rows
        ]
    }
    if paged and limit is not None and rows:
        links = util.next_link(
            req, 'os-keypairs', rows, limit, rows[-1]['name']
        )
        if links:
            body['keypairs_links'] = links
    return util.json_response(body)


def show_keypair(req: webob.Request) -> webob.Response:
    util.reject_unknown_query(req, ('user_id',))
    user_id = _user(req)
    util.authorize(req, policies.KEYPAIRS % 'show', {'user_id': user_id})
    row = db.get(util.context(req), user_id, req.urlvars['keypair_name'])
    return util.json_response(
        {
            'keypair': _view(
                row, _SHOW, util.version(req).at_least(mv.KEYPAIR_TYPE)
            )
        }
    )


def delete_keypair(req: webob.Request) -> webob.Response:
    util.reject_unknown_query(req, ('user_id',))
    user_id = _user(req)
    util.authorize(req, policies.KEYPAIRS % 'delete', {'user_id': user_id})
    db.destroy(util.context(req), user_id, req.urlvars['keypair_name'])
    return webob.Response(
        status=204 if util.version(req).at_least(mv.KEYPAIR_TYPE) else 202
    )
