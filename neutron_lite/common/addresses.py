"""Subnet arithmetic, with no I/O: CIDRs, allocation pools, gateways
and MAC addresses, checked as upstream Neutron checks them.

Addresses are kept in their canonical text (``ipaddress``'s ``str``:
IPv6 compressed, lower case), so that equal addresses compare equal
in the database.
"""

from collections.abc import Iterator
import dataclasses
import ipaddress
import random
from typing import Any

from neutron_lite import exception

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def _invalid(message: str) -> exception.InvalidInput:
    return exception.InvalidInput(error_message=message)


def parse_cidr(cidr: Any, ip_version: int | None = None) -> Network:
    """The network ``cidr`` names; host bits are dropped
    (``10.5.0.7/24`` is ``10.5.0.0/24``), as upstream does."""
    text = str(cidr)
    try:
        if '/' not in text:
            raise ValueError(text)
        network = ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise _invalid(f'{cidr} is not in a CIDR format') from None
    if ip_version is not None and network.version != ip_version:
        raise _invalid(
            f"cidr '{network}' does not match the ip_version '{ip_version}'"
        )
    return network


def parse_address(value: Any, what: str = 'IP address') -> Address:
    try:
        return ipaddress.ip_address(str(value))
    except ValueError:
        raise _invalid(f"'{value}' is not a valid IP address") from None


def canonical(value: Any) -> str:
    return str(parse_address(value))


@dataclasses.dataclass(frozen=True)
class Pool:
    """The addresses ``first`` to ``last`` (both included)."""

    first: Address
    last: Address

    def __contains__(self, address: Address) -> bool:
        return address.version == self.first.version and int(
            self.first
        ) <= int(address) <= int(self.last)

    def as_dict(self) -> dict[str, str]:
        return {'start': str(self.first), 'end': str(self.last)}

    @property
    def size(self) -> int:
        return int(self.last) - int(self.first) + 1

    def addresses(self) -> Iterator[str]:
        """Every address of the pool, in order, as text."""
        kind = type(self.first)
        for number in range(int(self.first), int(self.last) + 1):
            yield str(kind(number))


def _usable(network: Network) -> tuple[Address, Address]:
    """The first and last address a port may have: IPv4 leaves out the
    network and broadcast addresses (but /31 and /32 keep all), IPv6
    the subnet-router anycast address."""
    first, last = network[0], network[-1]
    if network.version == 4 and network.prefixlen < 31:
        return first + 1, last - 1
    if network.version == 6 and network.prefixlen < 127:
        return first + 1, last
    return first, last


def default_gateway(network: Network) -> Address:
    return _usable(network)[0]


def default_pools(network: Network, gateway: Address | None) -> list[Pool]:
    """Every usable address but the gateway, as upstream's pools."""
    first, last = _usable(network)
    whole = Pool(first, last)
    if gateway is None or gateway not in whole:
        return [whole]
    pools = []
    if int(gateway) > int(first):
        pools.append(Pool(first, gateway - 1))
    if int(gateway) < int(last):
        pools.append(Pool(gateway + 1, last))
    return pools


def parse_pools(
    network: Network, given: list[dict[str, Any]], gateway: Address | None
) -> list[Pool]:
    """The requested pools: inside the subnet, ordered, disjoint, not
    holding the gateway (upstream's messages)."""
    pools = []
    for item in given:
        first = parse_address(item.get('start'))
        last = parse_address(item.get('end'))
        if first.version != network.version or last.version != (
            network.version
        ):
            raise _invalid(f'Invalid allocation pool {first}-{last}')
        if int(first) > int(last):
            raise exception.BadRequest(
                resource='subnets',
                msg=f'Invalid allocation pool {first}-{last}',
            )
        if first not in network or last not in network:
            raise exception.BadRequest(
                resource='subnets',
                msg=f'The allocation pool {first}-{last} spans beyond the '
                f'subnet cidr {network}',
            )
        pools.append(Pool(first, last))
    pools.sort(key=lambda p: int(p.first))
    for before, after in zip(pools, pools[1:], strict=False):
        if int(after.first) <= int(before.last):
            raise exception.BadRequest(
                resource='subnets',
                msg=f'Found overlapping allocation pools: '
                f'{before.first}-{before.last} and {after.first}-{after.last}',
            )
    if gateway is not None:
        for pool in pools:
            if gateway in pool:
                raise exception.BadRequest(
                    resource='subnets',
                    msg=f'Gateway ip {gateway} conflicts with allocation '
                    f'pool {pool.first}-{pool.last}',
                )
    return pools


def pools_from(stored: list[dict[str, str]]) -> list[Pool]:
    return [
        Pool(ipaddress.ip_address(p['start']), ipaddress.ip_address(p['end']))
        for p in stored
    ]


def candidates(
    pools: list[Pool], taken: set[str], rng: random.Random, window: int = 16
) -> Iterator[str]:
    """Free addresses of ``pools``: a random one of the first ``window``
    free ones first (concurrent creates then rarely pick the same), then
    every other in order."""
    free: list[str] = []
    for pool in pools:
        for text in pool.addresses():
            if text not in taken:
                free.append(text)
                if len(free) >= window:
                    break
        if len(free) >= window:
            break
    rng.shuffle(free)
    yield from free
    seen = set(free)
    for pool in pools:
        for text in pool.addresses():
            if text not in taken and text not in seen:
                yield text


def random_mac(base_mac: str, rng: random.Random) -> str:
    """A MAC address of ``base_mac``'s first three octets (and any other
    octet it sets), the rest random (upstream's rule)."""
    octets = base_mac.lower().split(':')
    return ':'.join(
        f'{rng.randrange(256):02x}' if i >= 3 and octet == '00' else octet
        for i, octet in enumerate(octets)
    )
