"""``/v2.0/{networks,subnets,ports}/{id}/tags``: tags of a resource
(standard-attr-tag): replace them all, add one, check one, remove one
or all. Changing tags needs the resource's update policy."""

from typing import Any

import webob

from neutron_lite import exception
from neutron_lite.api import crud
from neutron_lite.api import util
from neutron_lite.api.handlers import networks
from neutron_lite.api.handlers import ports
from neutron_lite.api.handlers import security_groups
from neutron_lite.api.handlers import subnets
from neutron_lite.db import api as db_api
from neutron_lite.db import resources
from neutron_lite.db import tags as db

RESOURCES = {
    'networks': networks.RESOURCE,
    'subnets': subnets.RESOURCE,
    'ports': ports.RESOURCE,
    'security-groups': security_groups.RESOURCE,
}
MAX_TAG = 255


def _resource(req: webob.Request) -> tuple[crud.Resource, dict[str, Any]]:
    resource = RESOURCES[req.urlvars['collection']]
    row = crud.one(req, resource, req.urlvars['resource_id'])
    return resource, row


def _changeable(req: webob.Request) -> tuple[crud.Resource, dict[str, Any]]:
    resource, row = _resource(req)
    util.authorize(req, f'update_{resource.name}', resource.target(req, row))
    return resource, row


def _tag(value: Any) -> str:
    if not isinstance(value, str) or not value or len(value) > MAX_TAG:
        raise exception.HTTPBadRequest(
            msg=f"Invalid input for tags. Reason: '{value}' is not a valid "
            'string or exceeds maximum length of 255.'
        )
    return value


def _write(
    req: webob.Request,
    resource: crud.Resource,
    row: dict[str, Any],
    change: Any,
) -> None:
    """Change the tags and count up the resource's revision."""
    with db_api.context_manager.writer.using(util.context(req)) as session:
        change(session)
        resources.bump(
            session,
            resource.db.MODEL,
            row['id'],
            {},
            None,
            resource.db.not_found(row['id']),
        )


def list_tags(req: webob.Request) -> webob.Response:
    _resource_, row = _resource(req)
    return util.json_response({'tags': row['tags']})


def replace_tags(req: webob.Request) -> webob.Response:
    resource, row = _changeable(req)
    body = util.body(req)
    if not isinstance(body, dict) or not isinstance(body.get('tags'), list):
        raise exception.HTTPBadRequest(
            msg="Invalid input for tags: a list of 'tags' is required."
        )
    wanted = sorted({_tag(t) for t in body['tags']})
    _write(
        req,
        resource,
        row,
        lambda s: db.replace(s, resource.name, row['id'], wanted),
    )
    return util.json_response({'tags': wanted})


def check_tag(req: webob.Request) -> webob.Response:
    resource, row = _resource(req)
    tag = req.urlvars['tag']
    if tag not in row['tags']:
        raise exception.TagNotFound(
            tag=tag, resource=resource.name, resource_id=row['id']
        )
    return webob.Response(status=204)


def add_tag(req: webob.Request) -> webob.Response:
    resource, row = _changeable(req)
    tag = _tag(req.urlvars['tag'])
    _write(
        req, resource, row, lambda s: db.add(s, resource.name, row['id'], tag)
    )
    return webob.Response(status=201)


def remove_tag(req: webob.Request) -> webob.Response:
    resource, row = _changeable(req)
    tag = req.urlvars['tag']
    if tag not in row['tags']:
        raise exception.TagNotFound(
            tag=tag, resource=resource.name, resource_id=row['id']
        )
    _write(
        req,
        resource,
        row,
        lambda s: db.remove(s, resource.name, row['id'], tag),
    )
    return webob.Response(status=204)


def remove_tags(req: webob.Request) -> webob.Response:
    resource, row = _changeable(req)
    _write(
        req,
        resource,
        row,
        lambda s: db.remove_all(s, resource.name, row['id']),
    )
    return webob.Response(status=204)
