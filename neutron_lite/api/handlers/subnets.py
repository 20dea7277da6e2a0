"""``/v2.0/subnets``: IPv4 and IPv6 subnets of a network, with their
allocation pools, gateway, DNS servers and host routes.

Upstream's defaults: the gateway is the first usable address (``null``
asks for none), the pools every other usable address. The network's
owner (or an administrator) creates subnets on it; a subnet's CIDR must
not overlap another of its network (409 raced creates included:
:mod:`neutron_lite.db.subnets`). Subnet pools are not implemented: a
``subnetpool_id`` is refused.
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
from neutron_lite.db import subnets as db

Row = dict[str, Any]
_IPV6_MODES = ('ipv6_ra_mode', 'ipv6_address_mode')


target = crud.on_its_network


RESOURCE = crud.Resource(
    'subnet', 'subnets', db, definitions.SUBNET, views.subnet, target
)


def _gateway(
    values: Row, network: addresses.Network, given: bool
) -> addresses.Address | None:
    if not given:
        return addresses.default_gateway(network)
    if values['gateway_ip'] is None:
        return None
    gateway = addresses.parse_address(values['gateway_ip'])
    if gateway.version != network.version or (
        network.version == 4
        and network.prefixlen < 31
        and gateway in (network[0], network[-1])
    ):
        raise exception.BadRequest(
            resource='subnets',
            msg='Gateway is not valid on subnet',
        )
    return gateway


def _dns(values: list[str]) -> list[str]:
    found = [addresses.canonical(v) for v in values]
    if len(set(found)) != len(found):
        raise exception.InvalidInput(
            error_message='Duplicate nameserver in dns_nameservers'
        )
    return found


def _routes(values: list[Row], version: int) -> list[Row]:
    routes = []
    for route in values:
        if set(route) != {'destination', 'nexthop'}:
            raise exception.InvalidInput(
                error_message=f'Invalid data format for hostroute: {route}'
            )
        destination = addresses.parse_cidr(route['destination'])
        nexthop = addresses.parse_address(route['nexthop'])
        if destination.version != version or nexthop.version != version:
            raise exception.InvalidInput(
                error_message=f'Invalid data format for hostroute: {route}'
            )
        routes.append(
            {'destination': str(destination), 'nexthop': str(nexthop)}
        )
    return routes


def _check_ipv6(values: Row, version: int) -> None:
    for name in _IPV6_MODES:
        if values.get(name) and version != 6:
            raise exception.InvalidInput(
                error_message=f"{name} set to '{values[name]}' with "
                "ip_version set to '4' is not valid. Valid values are None "
                'and 6'
            )
    ra, address = values.get('ipv6_ra_mode'), values.get('ipv6_address_mode')
    if ra and address and ra != address:
        raise exception.InvalidInput(
            error_message=f"ipv6_ra_mode set to '{ra}' with "
            f"ipv6_address_mode set to '{address}' is not valid. If both "
            'attributes are set, they must be the same value'
        )


def create_subnet(req: webob.Request) -> webob.Response:
    values = crud.parse(req, RESOURCE, create=True)
    project = crud.project_of(req, values)
    network = networks_db.get(util.context(req), values['network_id'])
    crud.check_attributes(
        req, RESOURCE, 'create', values, crud.on_network(project, network)
    )
    quotas.check(req, project, 'subnet')
    if values.pop('subnetpool_id', None) is not None:
        raise exception.BadRequest(
            resource='subnets', msg='subnet pools are not implemented'
        )
    if not values.get('cidr'):
        raise exception.BadRequest(
            resource='subnets',
            msg='a subnetpool must be specified in the absence of a cidr',
        )
    version = values['ip_version']
    network_cidr = addresses.parse_cidr(values['cidr'], version)
    _check_ipv6(values, version)
    gateway = _gateway(values, network_cidr, 'gateway_ip' in values)
    given_pools = values.pop('allocation_pools', None)
    pools = (
        addresses.parse_pools(network_cidr, given_pools, gateway)
        if given_pools
        else addresses.default_pools(network_cidr, gateway)
    )
    columns = {
        **values,
        'project_id': project,
        'cidr': str(network_cidr),
        'gateway_ip': None if gateway is None else str(gateway),
        'allocation_pools': [p.as_dict() for p in pools],
        'dns_nameservers': _dns(values.get('dns_nameservers', [])),
        'host_routes': _routes(values.get('host_routes', []), version),
    }
    row = db.create(util.context(req), columns)
    return crud.created(req, RESOURCE, row)


def update_subnet(req: webob.Request) -> webob.Response:
    subnet_id = req.urlvars['subnet_id']
    values = crud.parse(req, RESOURCE, create=False)
    row = crud.one(req, RESOURCE, subnet_id)
    crud.check_attributes(req, RESOURCE, 'update', values, target(req, row))
    network_cidr = addresses.parse_cidr(row['cidr'])
    if 'gateway_ip' in values:
        gateway = _gateway(values, network_cidr, True)
        values['gateway_ip'] = None if gateway is None else str(gateway)
    else:
        gateway = (
            None
            if row['gateway_ip'] is None
            else addresses.parse_address(row['gateway_ip'])
        )
    if 'allocation_pools' in values:
        values['allocation_pools'] = [
            p.as_dict()
            for p in addresses.parse_pools(
                network_cidr, values['allocation_pools'], gateway
            )
        ]
    if 'dns_nameservers' in values:
        values['dns_nameservers'] = _dns(values['dns_nameservers'])
    if 'host_routes' in values:
        values['host_routes'] = _routes(
            values['host_routes'], row['ip_version']
        )
    row = db.update(
        util.context(req), subnet_id, values, util.expected_revision(req)
    )
    return crud.updated(req, RESOURCE, row)


def list_subnets(req: webob.Request) -> webob.Response:
    return crud.list_items(req, RESOURCE)


def show_subnet(req: webob.Request) -> webob.Response:
    return crud.show(req, RESOURCE, req.urlvars['subnet_id'])


def delete_subnet(req: webob.Request) -> webob.Response:
    return crud.delete(req, RESOURCE, req.urlvars['subnet_id'])
