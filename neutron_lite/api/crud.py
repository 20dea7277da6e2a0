"""The five operations of a resource, the same for each (Neutron's
``api/v2/base.py`` controller): list, show, create, update, delete.

A :class:`Resource` names its database module, attribute map, view and
policy target; its handlers module supplies what differs (the values a
create stores, the checks of an update). Every attribute the caller may
not read is left out of an answer (``get_<resource>:<attribute>``), and
every attribute it may not set is a 403 (``create_``/``update_``).
"""

from collections.abc import Callable
import dataclasses
from typing import Any

import webob

from neutron_lite import exception
from neutron_lite.api import attributes
from neutron_lite.api import listing
from neutron_lite.api import util

Row = dict[str, Any]


@dataclasses.dataclass(frozen=True)
class Resource:
    name: str
    collection: str
    db: Any
    attributes: dict[str, attributes.Attribute]
    view: Callable[[Row], Row]
    #: The policy target of a row (its project, its network's).
    target: Callable[[webob.Request, Row], Row]
    #: What a list can filter on besides the columns.
    extra_filters: tuple[str, ...] = ()

    def show_fields(self, req: webob.Request, row: Row) -> Row:
        """The view with what the caller may read."""
        item = self.view(row)
        target = self.target(req, row)
        for name, attribute in self.attributes.items():
            if attribute.admin_read and not util.allowed(
                req, f'get_{self.name}:{name}', target
            ):
                item.pop(name, None)
        return item


def on_network(project: str, network: Row) -> Row:
    """The policy target of a subnet or port of ``project`` on
    ``network`` (a network's row, or a subnet's or port's with the
    ``network_*`` fields the database adds)."""
    owner = network.get('network_project_id', network.get('project_id'))
    return {
        'project_id': project,
        'tenant_id': project,
        'network:project_id': owner,
        'network:tenant_id': owner,
        'network:shared': network.get('network_shared', network.get('shared')),
        'network:router:external': network.get(
            'network_external', network.get('external')
        ),
    }


def on_its_network(req: webob.Request, row: Row) -> Row:
    """The policy target of a subnet or port row."""
    return on_network(row['project_id'], row)


def check_attributes(
    req: webob.Request,
    resource: Resource,
    action: str,
    values: Row,
    target: Row,
) -> None:
    """``action``: create or update. 403 unless the caller passes the
    action's rule and the rule of each attribute with a policy of its
    own that the request sets (to another value than its default, on
    create), with Neutron's message naming every rule checked."""
    rules = [f'{action}_{resource.name}']
    for name, value in values.items():
        attribute = resource.attributes.get(name)
        if attribute is None or not attribute.enforce_policy:
            continue
        # (Neutron's rule: an attribute set to its default is not set)
        if action == 'create' and value == attribute.default:
            continue
        rules.append(f'{action}_{resource.name}:{name}')
    if all(util.allowed(req, rule, target) for rule in rules):
        return
    described = f'rule:{rules[0]}'
    for rule in rules[1:]:
        described = f'({described} and rule:{rule})'
    raise exception.PolicyNotAuthorized(rule=described)


def list_items(
    req: webob.Request, resource: Resource, **db_args: Any
) -> webob.Response:
    request = listing.parse(
        req,
        resource.db.COLUMNS,
        util.deps(req).max_limit,
        resource.extra_filters,
    )
    rows = resource.db.list_(util.context(req), request, **db_args)
    if request.page_reverse:
        rows.reverse()
    wanted = listing.fields(req)
    items = [
        listing.only(resource.show_fields(req, row), wanted)
        for row in rows
        if util.allowed(req, f'get_{resource.name}', resource.target(req, row))
    ]
    body: Row = {resource.collection: items}
    if request.limit is not None:
        body[f'{resource.collection}_links'] = listing.links(
            req,
            util.base_url(req),
            resource.collection,
            request,
            [{'id': r['id']} for r in rows],
        )
    return util.json_response(body)


def one(req: webob.Request, resource: Resource, item_id: str) -> Row:
    """The row, seen and readable by the caller (404 otherwise, as
    Neutron hides what policy forbids)."""
    row: Row = resource.db.get(util.context(req), item_id)
    if not util.allowed(
        req, f'get_{resource.name}', resource.target(req, row)
    ):
        raise resource.db.not_found(item_id)
    return row


def show(
    req: webob.Request, resource: Resource, item_id: str
) -> webob.Response:
    row = one(req, resource, item_id)
    return util.json_response(
        {
            resource.name: listing.only(
                resource.show_fields(req, row), listing.fields(req)
            )
        }
    )


def created(
    req: webob.Request, resource: Resource, row: Row
) -> webob.Response:
    return util.json_response(
        {resource.name: resource.show_fields(req, row)}, status=201
    )


def updated(
    req: webob.Request, resource: Resource, row: Row
) -> webob.Response:
    return util.json_response({resource.name: resource.show_fields(req, row)})


def delete(
    req: webob.Request, resource: Resource, item_id: str
) -> webob.Response:
    row = one(req, resource, item_id)
    util.authorize(req, f'delete_{resource.name}', resource.target(req, row))
    resource.db.delete(util.context(req), item_id, util.expected_revision(req))
    return webob.Response(status=204)


def project_of(req: webob.Request, values: Row) -> str:
    """The project a create is for: ``project_id`` or ``tenant_id``
    (equal when both are given), else the caller's."""
    project = values.pop('project_id', None)
    tenant = values.pop('tenant_id', None)
    if project and tenant and project != tenant:
        raise exception.HTTPBadRequest(
            msg="'project_id' and 'tenant_id' do not match"
        )
    context = util.context(req)
    chosen = project or tenant or context.project_id or ''
    if chosen != context.project_id and not context.is_admin:
        raise exception.HTTPBadRequest(
            msg="Specifying 'project_id' other than the authenticated "
            'project in request is not allowed for the current user.'
        )
    return str(chosen)


def parse(req: webob.Request, resource: Resource, create: bool) -> Row:
    return attributes.parse(
        resource.name, resource.attributes, util.body(req), create
    )
