"""Address allocation (IPAM) inside a port's transaction.

An address is taken by inserting its ``ip_allocations`` row, whose
primary key is ``(subnet_id, ip_address)``: of two transactions that try
one address, one insert fails (at once, or when the other commits) and
that port tries another address. Each insert runs in a savepoint, so
that a lost race costs one statement, not the port's transaction. No
address is ever held twice, on SQLite, MariaDB or PostgreSQL, and none
leaks: a port's rows go with the port in one transaction.

Which addresses a port gets (upstream's rules):

- ``fixed_ips`` entries with an ``ip_address`` take that address (in a
  named subnet, or in the subnet of the network that holds it); with a
  ``subnet_id`` only, any free address of that subnet's pools;
- none given: one address of the first IPv4 subnet with a free one, one
  SLAAC (EUI-64, from the MAC) address of each IPv6 ``slaac`` or
  ``dhcpv6-stateless`` subnet, and one address of the first other IPv6
  subnet with a free one.
"""

import ipaddress
import random
from typing import Any

from oslo_db import exception as db_exc
import sqlalchemy as sa

from neutron_lite import exception
from neutron_lite.common import addresses
from neutron_lite.db import models

A = models.IPAllocation
AUTO_MODES = ('slaac', 'dhcpv6-stateless')
_rng = random.SystemRandom()


def _taken(session: Any, subnet_id: str) -> set[str]:
    return set(
        session.execute(
            sa.select(A.ip_address).where(A.subnet_id == subnet_id)
        ).scalars()
    )


def _insert(
    session: Any, port_id: str, subnet: dict[str, Any], ip: str
) -> bool:
    """Whether ``ip`` was free and is now the port's."""
    try:
        with session.begin_nested():
            session.add(
                A(
                    subnet_id=subnet['id'],
                    ip_address=ip,
                    port_id=port_id,
                    network_id=subnet['network_id'],
                )
            )
    except db_exc.DBDuplicateEntry:
        return False
    return True


def _any_of(session: Any, port_id: str, subnet: dict[str, Any]) -> str | None:
    """A free address of ``subnet``'s pools, now the port's."""
    pools = addresses.pools_from(subnet['allocation_pools'])
    for ip in addresses.candidates(pools, _taken(session, subnet['id']), _rng):
        if _insert(session, port_id, subnet, ip):
            return ip
    return None


def _eui64(subnet: dict[str, Any], mac: str) -> str:
    network = ipaddress.IPv6Network(subnet['cidr'])
    octets = [int(o, 16) for o in mac.split(':')]
    octets[0] ^= 0x02
    interface = octets[:3] + [0xFF, 0xFE] + octets[3:]
    suffix = int.from_bytes(bytes(interface), 'big')
    return str(network[0] + suffix)


def _specific(
    session: Any,
    port_id: str,
    subnets: list[dict[str, Any]],
    network_id: str,
    request: dict[str, Any],
) -> tuple[str, str]:
    ip = addresses.parse_address(request['ip_address'])
    if request.get('subnet_id'):
        subnet = _named(subnets, request['subnet_id'])
        network = addresses.parse_cidr(subnet['cidr'])
        usable = ip in network and (
            network.version == 6
            or network.prefixlen >= 31
            or ip not in (network[0], network[-1])
        )
        if not usable:
            raise exception.InvalidIpForSubnet(ip_address=str(ip))
    else:
        holding = [s for s in subnets if ip in addresses.parse_cidr(s['cidr'])]
        if not holding:
            raise exception.InvalidIpForNetwork(ip_address=str(ip))
        subnet = holding[0]
    if not _insert(session, port_id, subnet, str(ip)):
        raise exception.IpAddressAlreadyAllocated(
            ip=str(ip), subnet_id=subnet['id']
        )
    return subnet['id'], str(ip)


def _named(subnets: list[dict[str, Any]], subnet_id: str) -> dict[str, Any]:
    for subnet in subnets:
        if subnet['id'] == subnet_id:
            return subnet
    raise exception.InvalidInput(
        error_message=f'Failed to create port on network, because '
        f'fixed_ips included invalid subnet {subnet_id}'
    )


def allocate(
    session: Any,
    port_id: str,
    mac: str,
    network_id: str,
    subnets: list[dict[str, Any]],
    requests: list[dict[str, Any]] | None,
) -> list[tuple[str, str]]:
    """The port's (subnet id, address) pairs, inserted.

    :raises IpAddressAlreadyAllocated: a requested address is taken.
    :raises IpAddressGenerationFailure: a subnet asked for is full.
    :raises InvalidIpForSubnet, InvalidIpForNetwork, InvalidInput:
    """
    if requests is not None:
        return [
            _requested(session, port_id, mac, network_id, subnets, r)
            for r in requests
        ]
    return _default(session, port_id, mac, network_id, subnets)


def _requested(
    session: Any,
    port_id: str,
    mac: str,
    network_id: str,
    subnets: list[dict[str, Any]],
    request: dict[str, Any],
) -> tuple[str, str]:
    if request.get('ip_address'):
        return _specific(session, port_id, subnets, network_id, request)
    subnet = _named(subnets, request['subnet_id'])
    if subnet.get('ipv6_address_mode') in AUTO_MODES:
        ip = _eui64(subnet, mac)
        if not _insert(session, port_id, subnet, ip):
            raise exception.IpAddressAlreadyAllocated(
                ip=ip, subnet_id=subnet['id']
            )
        return subnet['id'], ip
    found = _any_of(session, port_id, subnet)
    if found is None:
        raise exception.IpAddressGenerationFailure(net_id=network_id)
    return subnet['id'], found


def _default(
    session: Any,
    port_id: str,
    mac: str,
    network_id: str,
    subnets: list[dict[str, Any]],
) -> list[tuple[str, str]]:
    taken: list[tuple[str, str]] = []
    v4 = [s for s in subnets if s['ip_version'] == 4]
    v6 = [s for s in subnets if s['ip_version'] == 6]
    for family in (
        v4,
        [s for s in v6 if s['ipv6_address_mode'] not in AUTO_MODES],
    ):
        for subnet in family:
            found = _any_of(session, port_id, subnet)
            if found is not None:
                taken.append((subnet['id'], found))
                break
        else:
            if family:
                raise exception.IpAddressGenerationFailure(net_id=network_id)
    for subnet in v6:
        if subnet['ipv6_address_mode'] in AUTO_MODES:
            ip = _eui64(subnet, mac)
            if not _insert(session, port_id, subnet, ip):
                raise exception.IpAddressAlreadyAllocated(
                    ip=ip, subnet_id=subnet['id']
                )
            taken.append((subnet['id'], ip))
    return taken


def release(session: Any, port_id: str) -> None:
    session.execute(sa.delete(A).where(A.port_id == port_id))


def of_ports(
    session: Any, port_ids: list[str]
) -> dict[str, list[dict[str, str]]]:
    """Each port's ``fixed_ips``, in one query."""
    found: dict[str, list[dict[str, str]]] = {p: [] for p in port_ids}
    if not port_ids:
        return found
    rows = session.execute(
        sa.select(A.port_id, A.subnet_id, A.ip_address)
        .where(A.port_id.in_(port_ids))
        .order_by(A.subnet_id, A.ip_address)
    )
    for port_id, subnet_id, ip in rows:
        found[port_id].append({'subnet_id': subnet_id, 'ip_address': ip})
    return found
