"""``/v2.0/ports``: ports of a network, with a MAC address and fixed
IPs from the subnets' pools (:mod:`neutron_lite.db.ipam`), and the
port binding attributes.

Nothing is plugged anywhere: a port bound to a host
(``binding:host_id``) is ``ACTIVE`` with ``binding:vif_type`` ``other``
(no mechanism driver behind it), an unbound one ``DOWN`` with
``unbound``.
"""

from typing import Any

import webob

from neutron_lite import exception
from neutron_lite.api import crud
from neutron_lite.api import definitions
from neutron_lite.api import util
from neutron_lite.api import views
from neutron_lite.api.handlers import quotas
from neutron_lite.common import addresses
from neutron_lite.db import networks as networks_db
from neutron_lite.db import ports as db

Row = dict[str, Any]
#: The columns of the binding attributes.
_BINDING = {
    'binding:host_id': 'binding_host_id',
    'binding:vnic_type': 'binding_vnic_type',
    'binding:profile': 'binding_profile',
}
BOUND_VIF_TYPE = 'other'


target = crud.on_its_network


RESOURCE = crud.Resource(
    'port',
    'ports',
    db,
    definitions.PORT,
    views.port,
    target,
    extra_filters=('fixed_ips',),
)


def _check_fixed_ips(
    req: webob.Request, action: str, values: Row, target_: Row
) -> None:
    fixed = values.get('fixed_ips')
    if fixed is None:
        return
    limit = util.deps(req).conf.max_fixed_ips_per_port
    if len(fixed) > limit:
        raise exception.InvalidInput(
            error_message=f'Exceeded maximum amount of fixed ips per port. '
            f'Maximum is {limit}'
        )
    for item in fixed:
        if item.get('ip_address'):
            item['ip_address'] = addresses.canonical(item['ip_address'])
            util.authorize(req, f'{action}_port:fixed_ips:ip_address', target_)


def _groups(values: Row, secured: bool) -> list[str] | None:
    """The port's security groups: those asked for, else its project's
    default group (None) when port security is on; none when it is off
    or the port is the network's own (``network:*``).

    :raises PortSecurityAndIPRequiredForSecurityGroups: groups asked
        for a port without port security.
    """
    asked = values.get('security_groups')
    if not secured:
        if asked:
            raise exception.PortSecurityAndIPRequiredForSecurityGroups()
        return []
    if asked is None and str(values.get('device_owner', '')).startswith(
        'network:'
    ):
        return []
    return None if asked is None else list(asked)


def _columns(values: Row) -> Row:
    """API names to columns; the binding's result."""
    columns = {
        k: v
        for k, v in values.items()
        if k not in _BINDING and k != 'security_groups'
    }
    for name, column in _BINDING.items():
        if name in values:
            columns[column] = values[name]
    if 'binding_host_id' in columns:
        bound = bool(columns['binding_host_id'])
        columns['binding_vif_type'] = BOUND_VIF_TYPE if bound else 'unbound'
        columns['status'] = 'ACTIVE' if bound else 'DOWN'
    columns.pop('fixed_ips', None)
    return columns


def create_port(req: webob.Request) -> webob.Response:
    values = crud.parse(req, RESOURCE, create=True)
    project = crud.project_of(req, values)
    network = networks_db.get(util.context(req), values['network_id'])
    target_ = crud.on_network(project, network)
    crud.check_attributes(req, RESOURCE, 'create', values, target_)
    quotas.check(req, project, 'port')
    _check_fixed_ips(req, 'create', values, target_)
    if values.get('port_security_enabled') is None:
        values['port_security_enabled'] = network['port_security_enabled']
    groups = _groups(values, values['port_security_enabled'])
    columns = {
        'status': 'DOWN',
        'binding_vif_type': 'unbound',
        **_columns(values),
        'project_id': project,
    }
    row = db.create(
        util.context(req),
        columns,
        values.get('fixed_ips'),
        util.deps(req).conf.base_mac,
        groups,
    )
    return crud.created(req, RESOURCE, row)


def update_port(req: webob.Request) -> webob.Response:
    port_id = req.urlvars['port_id']
    values = crud.parse(req, RESOURCE, create=False)
    row = crud.one(req, RESOURCE, port_id)
    target_ = target(req, row)
    crud.check_attributes(req, RESOURCE, 'update', values, target_)
    _check_fixed_ips(req, 'update', values, target_)
    if values.get('port_security_enabled') is None:
        values.pop('port_security_enabled', None)
    secured = bool(
        values.get('port_security_enabled', row['port_security_enabled'])
    )
    groups = values.get('security_groups')
    if groups is None and secured is False and row['security_groups']:
        groups = []
    if groups is not None:
        groups = _groups(values, secured)
    row = db.update(
        util.context(req),
        port_id,
        _columns(values),
        values.get('fixed_ips'),
        util.expected_revision(req),
        groups,
    )
    return crud.updated(req, RESOURCE, row)


def list_ports(req: webob.Request) -> webob.Response:
    return crud.list_items(
        req, RESOURCE, fixed_ips=req.GET.getall('fixed_ips') or None
    )


def show_port(req: webob.Request) -> webob.Response:
    return crud.show(req, RESOURCE, req.urlvars['port_id'])


def delete_port(req: webob.Request) -> webob.Response:
    return crud.delete(req, RESOURCE, req.urlvars['port_id'])
