"""The values of a port request, checked and normalized as upstream
does: a MAC address in lower case, booleans from their strings, a
switch id as a MAC address or an OpenFlow datapath id, and a 406 for a
field the request's version does not have yet."""

from collections.abc import Iterable
import re
from typing import Any

import jsonschema
from oslo_utils import netutils
from oslo_utils import strutils
from oslo_utils import uuidutils
import webob
import webob.exc

from ironic_lite import exception
from ironic_lite.api import microversion as mv
from ironic_lite.api import util
from ironic_lite.api.schemas import ports as schemas

#: Field -> the version it appears at (shown, filtered, written).
SINCE = {
    'internal_info': mv.PORT_INTERNAL_INFO,
    'pxe_enabled': mv.PORT_NET_FIELDS,
    'local_link_connection': mv.PORT_NET_FIELDS,
    'portgroup_uuid': mv.PORTGROUP_LINKS,
    'physical_network': mv.PORT_PHYSICAL_NETWORK,
    'is_smartnic': mv.PORT_SMART_NIC,
    'name': mv.PORT_NAME,
    'description': mv.PORT_DESCRIPTION,
    'vendor': mv.PORT_VENDOR,
    'category': mv.PORT_CATEGORY,
    'available_for_dynamic_portgroup': mv.DYNAMIC_PORTGROUP,
}
VTEP_KEYS = ('vtep-logical-switch', 'vtep-physical-switch')
_DATAPATH_ID = re.compile(r'^[0-9a-f]{16}$')
_BOOLEANS = ('pxe_enabled', 'is_smartnic')


def not_acceptable() -> webob.exc.HTTPNotAcceptable:
    return webob.exc.HTTPNotAcceptable(explanation='Request not acceptable.')


def vtep_allowed(req: webob.Request) -> bool:
    """OVN VTEP keys of a link exist from 1.90 until 1.105 removed
    them."""
    version = util.version(req)
    return not version.below(mv.PORT_OVN_VTEP) and version.below(
        mv.PORT_OVN_VTEP_REMOVED
    )


def check_fields(req: webob.Request, fields: Iterable[str]) -> None:
    """A 406 for a field (or ``local_link_connection/network_type``)
    newer than the request."""
    version = util.version(req)
    for name in fields:
        since = (
            mv.PORT_NETWORK_TYPE
            if name == 'local_link_connection/network_type'
            else SINCE.get(name)
        )
        if (
            since is not None
            and name != 'internal_info'
            and version.below(since)
        ):
            raise not_acceptable()


def check_link(req: webob.Request, link: Any) -> None:
    """A 406 for keys of ``local_link_connection`` newer than the
    request."""
    if not isinstance(link, dict):
        return
    if 'network_type' in link and util.version(req).below(
        mv.PORT_NETWORK_TYPE
    ):
        raise not_acceptable()
    if 'vtep-logical-switch' in link and not vtep_allowed(req):
        raise not_acceptable()


def _schema_error(name: str, value: Any, schema: dict[str, Any]) -> None:
    try:
        jsonschema.validate(value, schema)
    except jsonschema.exceptions.ValidationError as exc:
        message = f'Schema error for {name}: {exc.message}'
        cause = None
        current = exc
        while current.context:
            current = jsonschema.exceptions.best_match(current.context)
            cause = current.message
        if cause is not None:
            message += f'. Possible root cause: {cause}'
        raise exception.InvalidParameterValue(err=message)


def validate(name: str, body: dict[str, Any], schema: dict[str, Any]) -> None:
    """``body`` against ``schema``, with upstream's "Schema error"."""
    _schema_error(name, body, schema)


def mac(name: str, value: str) -> str:
    if not netutils.is_valid_mac(value):
        raise exception.InvalidParameterValue(
            err=f'Expected valid MAC address for {name}: {value}'
        )
    return value.lower()


def uuid(name: str, value: Any) -> Any:
    if value is None:
        return None
    if not uuidutils.is_uuid_like(value):
        raise exception.InvalidParameterValue(
            err=f'Expected UUID for {name}: {value}'
        )
    return util.canonical_uuid(value)


def boolean(name: str, value: Any) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError as exc:
        raise exception.InvalidParameterValue(err=f'Invalid {name}: {exc}')


def local_link(value: Any) -> Any:
    """The link checked against upstream's shapes, its ``switch_id``
    in lower case."""
    if not value:
        return value
    _schema_error('local_link_connection', value, schemas.LOCAL_LINK)
    switch_id = value.get('switch_id')
    if switch_id is not None:
        value = dict(value)
        lowered = switch_id.lower()
        if netutils.is_valid_mac(switch_id) or _DATAPATH_ID.match(lowered):
            value['switch_id'] = lowered
        else:
            raise exception.InvalidSwitchID(switch_id=switch_id)
    return value


def normalized(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` (a create, or a patched port) with its values checked and
    normalized (upstream's PORT_VALIDATOR_EXTRA)."""
    body = dict(body)
    if body.get('address') is not None:
        body['address'] = mac('address', body['address'])
    for name in ('node_uuid', 'portgroup_uuid', 'uuid'):
        if name in body:
            body[name] = uuid(name, body[name])
    for name in _BOOLEANS:
        if name in body:
            body[name] = boolean(name, body[name])
    if 'local_link_connection' in body:
        body['local_link_connection'] = local_link(
            body['local_link_connection']
        )
    return body


def check_smart_nic(body: dict[str, Any]) -> None:
    """A Smart NIC port says where the NIC's host is."""
    if not body.get('is_smartnic'):
        return
    try:
        jsonschema.validate(
            body.get('local_link_connection'), schemas.SMART_NIC_LINK
        )
    except jsonschema.exceptions.ValidationError:
        raise exception.Invalid(
            'Smart NIC port must have port_id and hostname in '
            'local_link_connection'
        )


def check_physical_network(value: Any) -> None:
    if value is not None and not value:
        raise exception.Invalid(
            'A non-empty value is required when setting physical_network'
        )
