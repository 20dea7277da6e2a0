"""Ports and portgroups as the API shows them (fields by version and
``?fields=``: only ``links`` is always there)."""

from ironic_lite.api.handlers import port_values
from ironic_lite.api.handlers import portgroups
from ironic_lite.api.schemas.responses import common as c
from ironic_lite.api.views import ports as port_views

_S = c.STRING_OR_NULL
_PORT_TYPES: dict[str, c.Schema] = {
    'uuid': c.STRING,
    'address': c.STRING,
    'extra': c.OBJECT,
    'internal_info': c.OBJECT,
    'is_smartnic': c.BOOLEAN_OR_NULL,
    'local_link_connection': c.OBJECT,
    'pxe_enabled': c.BOOLEAN_OR_NULL,
    'available_for_dynamic_portgroup': c.BOOLEAN_OR_NULL,
    'created_at': c.TIME,
    'updated_at': c.TIME_OR_NULL,
    'links': c.LINKS,
}
PORT = c.resource(
    {name: _PORT_TYPES.get(name, _S) for name in port_views.FIELDS},
    port_values.SINCE,
    required=['links'],
    title='Port',
)
PORTS = c.page('ports', PORT)

_GROUP_TYPES: dict[str, c.Schema] = {
    'uuid': c.STRING,
    'address': _S,
    'extra': c.OBJECT,
    'internal_info': c.OBJECT,
    'properties': c.OBJECT,
    'standalone_ports_supported': c.BOOLEAN_OR_NULL,
    'dynamic_portgroup': c.BOOLEAN_OR_NULL,
    'created_at': c.TIME,
    'updated_at': c.TIME_OR_NULL,
    'links': c.LINKS,
    'ports': c.LINKS,
}
PORTGROUP = c.resource(
    {name: _GROUP_TYPES.get(name, _S) for name in portgroups.FIELDS},
    portgroups.SINCE,
    required=['links'],
    title='Portgroup',
)
PORTGROUPS = c.page('portgroups', PORTGROUP)
