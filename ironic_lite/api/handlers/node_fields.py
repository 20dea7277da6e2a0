"""Checks of the node fields a request sends, by microversion.

What the JSON schema cannot say: the version each field needs (a 406
below it, as upstream), the node name rules of each version, the
values that stand for null, and the parent node a node may link to.
"""

import re
from typing import Any

from oslo_utils import strutils
from oslo_utils import uuidutils
import webob
import webob.exc

from ironic_lite import exception
from ironic_lite.api import microversion as mv
from ironic_lite.api import util
from ironic_lite.api.handlers import node_access
from ironic_lite.api.schemas import nodes as schemas
from ironic_lite.api.views import nodes as views
from ironic_lite.db import chassis as db_chassis

#: Fields a client may only send from the version that introduced them.
VERSIONED_INPUT = {
    name: since
    for name, since in views.FIELD_VERSIONS.items()
    if name in schemas.WRITABLE and since != '1.1'
}

#: Node names before 1.10: host names (upstream's old check).
_HOSTNAME = re.compile(
    r"""^
[a-z0-9]([a-z0-9\-]{0,61}[a-z0-9])?  # host
(\.[a-z0-9\-_]{0,62}[a-z0-9])*       # domain
\.?                                  # trailing dot
$""",
    re.X,
)
_LOGICAL_NAME = re.compile(schemas.NAME_PATTERN)


def check_input_versions(req: webob.Request, body: dict[str, Any]) -> None:
    """406 for a field newer than the version used, as upstream: unless
    it is null (or the empty conductor group), what an older client
    means by leaving it out."""
    version = util.version(req)
    for name, value in body.items():
        since = VERSIONED_INPUT.get(name)
        if since is None or not version.below(since):
            continue
        if value is None or (name == 'conductor_group' and value == ''):
            continue
        raise webob.exc.HTTPNotAcceptable(
            explanation=f'The field {name!r} needs API version '
            f'{since} or later; this request uses {version}.'
        )


def check_name(req: webob.Request, name: Any, creating: bool) -> None:
    """400 for a name this version does not accept: a UUID; before
    1.10, anything but a host name (RFC 952/1123), from 1.10 anything
    but RFC 3986 unreserved characters (the schema checks those)."""
    if not isinstance(name, str):
        return
    if uuidutils.is_uuid_like(name):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Cannot use a UUID as a node name: {name}.'
        )
    old = util.version(req).below(mv.RFC3986_NAMES)
    valid = _HOSTNAME if old else _LOGICAL_NAME
    if len(name) > 255 or valid.match(name) is None:
        what = (
            'Cannot create node with invalid name'
            if creating
            else 'Cannot change name to invalid name'
        )
        raise webob.exc.HTTPBadRequest(explanation=f"{what} '{name}'")


def as_boolean(name: str, text: str) -> bool:
    """``text`` as upstream reads a boolean (400 if it is none)."""
    try:
        return strutils.bool_from_string(text, strict=True)
    except ValueError:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Invalid value for {name}: {text!r}; expected a '
            'boolean.'
        )


def normalize(values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with null replaced where the column has none, and the
    conductor group in lower case (it is case insensitive)."""
    result = dict(values)
    for name in schemas.BOOLEAN_FIELDS:
        if isinstance(result.get(name), str):
            result[name] = as_boolean(name, result[name])
    for name, value in schemas.NULL_MEANS.items():
        if name in result and result[name] is None:
            result[name] = value
    if result.get('conductor_group'):
        result['conductor_group'] = result['conductor_group'].lower()
    return result


def sync_instance_name(row: dict[str, Any], values: dict[str, Any]) -> None:
    """An update of ``instance_info`` with a ``display_name`` names
    the instance of a node that has no ``instance_name`` yet (upstream's
    bridge from the older field)."""
    info = values.get('instance_info')
    if not isinstance(info, dict) or not info.get('display_name'):
        return
    if values.get('instance_name', row.get('instance_name')):
        return
    values['instance_name'] = str(info['display_name'])[:255]


def resolve_parent(
    req: webob.Request, values: dict[str, Any], owner: str | None
) -> None:
    """Replace ``parent_node`` (a name or uuid) by the parent's uuid.

    The parent must be a node the caller may see, with the same owner
    as the child; else a 400 that does not tell whether it exists, as
    upstream.
    """
    ident = values.get('parent_node')
    if not ident:
        return
    refused = webob.exc.HTTPBadRequest(
        explanation=f"Unable to apply the requested parent_node '{ident}'. "
        'Requested value was invalid.'
    )
    try:
        parent = node_access.get_node(req, ident)
        node_access.check_visible(req, parent, ident)
    except (webob.exc.HTTPException, exception.NodeNotFound):
        raise refused
    if parent['owner'] != owner:
        raise refused
    values['parent_node'] = parent['uuid']


def resolve_chassis(
    req: webob.Request, values: dict[str, Any], creating: bool
) -> None:
    """Replace ``chassis_uuid`` by the chassis' id (``chassis_id``).

    Null is no chassis: at creation always (upstream accepts it), by a
    patch (taking a node out of its chassis) from 1.25 only (406
    before, as upstream). An unknown chassis is a 400.
    """
    if 'chassis_uuid' not in values:
        return
    uuid = values.pop('chassis_uuid')
    if uuid is None:
        if not creating and util.version(req).below(mv.UNSET_CHASSIS):
            raise webob.exc.HTTPNotAcceptable(
                explanation='Removing the chassis of a node needs API '
                f'version {mv.UNSET_CHASSIS} or later.'
            )
        values['chassis_id'] = None
        return
    try:
        chassis = db_chassis.chassis_get(
            util.context(req), util.canonical_uuid(uuid)
        )
    except exception.ChassisNotFound as exc:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Invalid chassis_uuid: {exc}'
        )
    values['chassis_id'] = chassis['id']
