"""Who may see and act on which node: upstream's project-scoped rules.

A node's ``owner`` (1.50) and ``lessee`` (1.65) are projects; the
policy rules of :mod:`ironic_lite.policies.node` match them against the
request's project (``project_id:%(node.owner)s``). As upstream:

- a node the caller may not see (``baremetal:node:get``) is a 404 for a
  project-scoped caller, who must not learn that it exists;
- a node list without ``baremetal:node:list_all`` holds only the nodes
  the caller's project owns or leases (``?project=`` another project
  is a 403);
- a caller who does not pass ``baremetal:node:get:filter_threshold``
  sees ``last_error``, ``reservation``, ``driver_internal_info`` and
  ``driver_info`` redacted unless the per-field rule allows them.
"""

from collections.abc import Callable
from typing import Any

from oslo_utils import strutils
from oslo_utils import uuidutils
import webob
import webob.exc

from ironic_lite import exception
from ironic_lite.api import json_suffix
from ironic_lite.api import microversion as mv
from ironic_lite.api import util
from ironic_lite.db import nodes as db_nodes
from lite_common import policy as lite_policy

GET = 'baremetal:node:get'

#: (path prefix, rule) of a JSON patch, first match wins (upstream's).
PATCH_RULES = (
    ('/instance_info', 'baremetal:node:update_instance_info'),
    ('/extra', 'baremetal:node:update_extra'),
    ('/driver_info', 'baremetal:node:update:driver_info'),
    ('/properties', 'baremetal:node:update:properties'),
    ('/chassis_uuid', 'baremetal:node:update:chassis_uuid'),
    ('/instance_uuid', 'baremetal:node:update:instance_uuid'),
    ('/instance_name', 'baremetal:node:update_instance_info'),
    ('/lessee', 'baremetal:node:update:lessee'),
    ('/owner', 'baremetal:node:update:owner'),
    ('/driver', 'baremetal:node:update:driver_interfaces'),
    ('/network_data', 'baremetal:node:update:network_data'),
    ('/conductor_group', 'baremetal:node:update:conductor_group'),
    ('/name', 'baremetal:node:update:name'),
    ('/retired', 'baremetal:node:update:retired'),
    ('/shard', 'baremetal:node:update:shard'),
    ('/parent_node', 'baremetal:node:update:parent_node'),
    ('/disable_power_off', 'baremetal:node:update:disable_power_off'),
)

#: Field -> (rule that shows it, what it shows instead).
REDACTED: dict[str, tuple[str, Any]] = {
    'last_error': (
        'baremetal:node:get:last_error',
        '** Value Redacted - Requires baremetal:node:get:'
        'last_error permission. **',
    ),
    'reservation': (
        'baremetal:node:get:reservation',
        '** Redacted - requires baremetal:node:get:reservation permission. **',
    ),
    'driver_internal_info': (
        'baremetal:node:get:driver_internal_info',
        {
            'content': '** Redacted - Requires baremetal:node:get:'
            'driver_internal_info permission. **'
        },
    ),
    'driver_info': (
        'baremetal:node:get:driver_info',
        {
            'content': '** Redacted - requires baremetal:node:'
            'get:driver_info permission. **'
        },
    ),
}

Redactor = Callable[[dict[str, Any], dict[str, Any]], None]


def get_node(req: webob.Request, ident: str) -> dict[str, Any]:
    """The node named by uuid (or by name from 1.5), else a 404; no
    policy check (see :func:`authorized_node`)."""
    if uuidutils.is_uuid_like(ident):
        ident = util.canonical_uuid(ident)
    elif util.version(req).below(mv.NAME):
        raise webob.exc.HTTPNotFound(
            explanation=f'Node {ident} could not be found.'
        )
    try:
        return db_nodes.node_get(util.context(req), ident)
    except exception.NodeNotFound:
        if not json_suffix.had_suffix(req.environ):
            raise
        # Below 1.91 "x.json" was taken for "x": it may be the name.
        return db_nodes.node_get(util.context(req), ident + json_suffix.SUFFIX)


def target(req: webob.Request, row: dict[str, Any]) -> dict[str, Any]:
    """The policy target of ``row``: the caller's project and user, and
    the node's owner and lessee."""
    ctx = util.context(req)
    result = {'project_id': ctx.project_id, 'user_id': ctx.user_id}
    # A node without an owner (lessee) matches no project, not even
    # one named "None": the rules of an absent key fail.
    for name in ('owner', 'lessee'):
        if row.get(name):
            result[f'node.{name}'] = row[name]
    return result


def allowed(
    req: webob.Request, action: str, where: dict[str, Any] | None = None
) -> bool:
    ctx = util.context(req)
    return lite_policy.check(util.deps(req).enforcer, ctx, action, where)


def check_visible(
    req: webob.Request, row: dict[str, Any], ident: str
) -> dict[str, Any]:
    """``row``'s target, once the caller may see it: a 404 for a
    project-scoped caller who may not (403 otherwise), as upstream."""
    where = target(req, row)
    if not allowed(req, GET, where):
        if util.context(req).project_id:
            raise webob.exc.HTTPNotFound(
                explanation=f'Node {ident} could not be found.'
            )
        util.authorize(req, GET, where)
    return where


def authorized_node(req: webob.Request, *actions: str) -> dict[str, Any]:
    """The node of the request's path, once ``actions`` are allowed on
    it (after ``baremetal:node:get``)."""
    ident = req.urlvars['node_ident']
    row = get_node(req, ident)
    where = check_visible(req, row, ident)
    for action in actions:
        util.authorize(req, action, where)
    return row


def _is_false(value: Any) -> bool:
    if isinstance(value, str):
        return strutils.bool_from_string(value, default=None) is False
    return value is False


def patch_rules(patch: list[dict[str, Any]]) -> list[str]:
    """The rules a JSON patch needs, as upstream works them out."""
    rules: list[str] = []
    generic = False
    for operation in patch:
        path = operation['path']
        rule = next(
            (name for prefix, name in PATCH_RULES if path.startswith(prefix)),
            None,
        )
        field = path.lstrip('/').split('/')[0]
        if rule is None and field.endswith('_interface'):
            rule = 'baremetal:node:update:driver_interfaces'
        if (
            rule is None
            and field == 'automated_clean'
            and _is_false(operation.get('value'))
        ):
            rule = 'baremetal:node:disable_cleaning'
        if rule is None:
            generic = True
        elif rule not in rules:
            rules.append(rule)
    if generic or not rules:
        rules.append('baremetal:node:update')
    return rules


def list_project(req: webob.Request, requested: str | None) -> str | None:
    """The project a node list is limited to: ``requested`` (the
    ``?project=`` filter) for a caller allowed every node, the caller's
    own project otherwise (a 403 if it requested another)."""
    if allowed(req, 'baremetal:node:list_all'):
        return requested
    project = util.context(req).project_id
    if not project or (requested and requested != project):
        util.authorize(req, 'baremetal:node:list_all')
    util.authorize(req, 'baremetal:node:list')
    return str(project)


def redactor(req: webob.Request) -> Redactor | None:
    """What hides fields from this caller (None: nothing is hidden)."""
    if allowed(req, 'baremetal:node:get:filter_threshold'):
        return None

    def redact(row: dict[str, Any], node: dict[str, Any]) -> None:
        where = target(req, row)
        for name, (rule, shown) in REDACTED.items():
            if name in node and not allowed(req, rule, where):
                node[name] = shown

    return redact


def linked_node(req: webob.Request, ident: Any, what: str) -> dict[str, Any]:
    """The node a patch moves a port or portgroup (``what``) to: a 400
    when it does not exist or the caller may not see it (upstream's
    authorize_node_link)."""
    if not isinstance(ident, str):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Expected UUID for node_uuid: {ident}'
        )
    try:
        node = get_node(req, ident)
    except (exception.NodeNotFound, webob.exc.HTTPNotFound):
        node = None
    if node is None or not allowed(req, GET, target(req, node)):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Cannot associate the {what} with node {ident}, '
            'as it does not exist or is not accessible'
        )
    return node
