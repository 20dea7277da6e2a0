"""Security group rules, checked and made canonical as upstream
Neutron does (its messages), with no I/O: the protocols it knows, port
ranges for the protocols that have ports, ICMP type and code, a remote
prefix of the rule's ethertype (``normalized_cidr``), and the
fingerprint that makes two rules of one meaning equal."""

import ipaddress
from typing import Any

from neutron_lite import exception

#: Upstream's protocol names (and 'any', which means every protocol).
PROTOCOLS = (
    'ah',
    'dccp',
    'egp',
    'esp',
    'gre',
    'hopopt',
    'icmp',
    'igmp',
    'ip',
    'ipip',
    'ipv6-encap',
    'ipv6-frag',
    'ipv6-icmp',
    'icmpv6',
    'ipv6-nonxt',
    'ipv6-opts',
    'ipv6-route',
    'ospf',
    'pgm',
    'rsvp',
    'sctp',
    'tcp',
    'udp',
    'udplite',
    'vrrp',
)
WITH_PORTS = ('tcp', 'udp', 'udplite', 'sctp', 'dccp', '6', '17', '132', '33')
ICMP = ('icmp', 'ipv6-icmp', 'icmpv6', '1', '58')
ETHERTYPES = ('IPv4', 'IPv6')
DIRECTIONS = ('ingress', 'egress')


def protocol(value: Any) -> str | None:
    """The rule's protocol: a name, a number 0-255 as text, or None."""
    if value is None or value == 'any':
        return None
    text = str(value).lower()
    if text in PROTOCOLS:
        return text
    if text.isdigit() and 0 <= int(text) <= 255:
        return text
    names = ', '.join(repr(p) for p in ('any', *PROTOCOLS))
    raise exception.SecurityGroupRuleInvalidProtocol(
        protocol=value, values=f'(None, {names})'
    )


def _ports(rule: dict[str, Any], proto: str | None) -> None:
    low, high = rule.get('port_range_min'), rule.get('port_range_max')
    if low is None and high is None:
        return
    if proto in ICMP:
        for field, attr, value in (
            ('type', 'port_range_min', low),
            ('code', 'port_range_max', high),
        ):
            if value is not None and not 0 <= value <= 255:
                raise exception.SecurityGroupInvalidIcmpValue(
                    field=field, attr=attr, value=value
                )
        if low is None and high is not None:
            raise exception.SecurityGroupInvalidPortRange(
                msg=f'ICMP code (port-range-max) {high} is provided but '
                'ICMP type (port-range-min) is missing.'
            )
        return
    if proto not in WITH_PORTS:
        raise exception.SecurityGroupInvalidPortRange(
            msg='Port range requires a protocol with ports (tcp, udp, '
            'udplite, sctp, dccp)'
        )
    given = [p for p in (low, high) if p is not None]
    first = int(low if low is not None else given[0])
    last = int(high if high is not None else given[0])
    rule['port_range_min'], rule['port_range_max'] = first, last
    for port in (first, last):
        if not 1 <= port <= 65535:
            raise exception.SecurityGroupInvalidPortValue(port=port)
    if first > last:
        raise exception.SecurityGroupInvalidPortRange(
            msg='For TCP/UDP protocols, port_range_min must be <= '
            'port_range_max'
        )


def normalized(rule: dict[str, Any]) -> dict[str, Any]:
    """The rule checked, with ``protocol`` canonical and
    ``remote_ip_prefix`` a network of the rule's ethertype.

    :raises: the SecurityGroup* 400s with upstream's messages.
    """
    rule = dict(rule)
    rule['protocol'] = protocol(rule.get('protocol'))
    _ports(rule, rule['protocol'])
    prefix = rule.get('remote_ip_prefix')
    if prefix is not None and rule.get('remote_group_id'):
        raise exception.SecurityGroupRemoteGroupAndRemoteIpPrefix()
    if prefix is not None:
        try:
            network = ipaddress.ip_network(str(prefix), strict=False)
        except ValueError:
            raise exception.InvalidInput(
                error_message=f'{prefix} is not in a CIDR format'
            ) from None
        if f'IPv{network.version}' != rule['ethertype']:
            raise exception.SecurityGroupRuleParameterConflict(
                ethertype=rule['ethertype'], cidr=prefix
            )
        rule['remote_ip_prefix'] = str(prefix)
    return rule


def normalized_cidr(prefix: str | None) -> str | None:
    if prefix is None:
        return None
    return str(ipaddress.ip_network(prefix, strict=False))


def fingerprint(rule: dict[str, Any]) -> str:
    """What the rule means, as one string (equal rules, equal prints)."""
    return (
        '|'.join(
            str(rule.get(key))
            for key in (
                'direction',
                'ethertype',
                'protocol',
                'port_range_min',
                'port_range_max',
                'remote_group_id',
            )
        )
        + '|'
        + str(normalized_cidr(rule.get('remote_ip_prefix')))
    )
