"""The attribute maps of the resources served (neutron-lib's definitions
of the core resources and of the extensions in
:data:`neutron_lite.api.handlers.extensions.EXTENSIONS`)."""

from typing import Any

from neutron_lite.api import attributes as a
from neutron_lite.api.attributes import Attribute

NAME = a.string(255)
DESCRIPTION = a.string(255)


def _standard() -> list[Attribute]:
    """What every resource has (standard-attr-*, project-id)."""
    return [
        Attribute('id', convert=a.uuid_string),
        Attribute(
            'name', allow_post=True, allow_put=True, convert=NAME, default=''
        ),
        Attribute(
            'description',
            allow_post=True,
            allow_put=True,
            convert=DESCRIPTION,
            default='',
        ),
        Attribute('tenant_id', allow_post=True, convert=a.string(255)),
        Attribute('project_id', allow_post=True, convert=a.string(255)),
        Attribute('revision_number'),
        Attribute('created_at'),
        Attribute('updated_at'),
        Attribute('tags'),
    ]


def _map(*attributes: Attribute) -> dict[str, Attribute]:
    return {x.name: x for x in (*_standard(), *attributes)}


NETWORK = _map(
    Attribute(
        'admin_state_up',
        allow_post=True,
        allow_put=True,
        convert=a.to_boolean,
        default=True,
    ),
    Attribute('status'),
    Attribute('subnets'),
    Attribute(
        'shared',
        allow_post=True,
        allow_put=True,
        convert=a.to_boolean,
        default=False,
        enforce_policy=True,
    ),
    Attribute(
        'router:external',
        allow_post=True,
        allow_put=True,
        convert=a.to_boolean,
        default=False,
        enforce_policy=True,
    ),
    Attribute('mtu', allow_post=True, allow_put=True, convert=a.to_int(68)),
    Attribute(
        'port_security_enabled',
        allow_post=True,
        allow_put=True,
        convert=a.to_boolean,
        default=True,
    ),
    Attribute(
        'provider:network_type',
        allow_post=True,
        convert=a.string(255),
        enforce_policy=True,
        admin_read=True,
    ),
    Attribute(
        'provider:physical_network',
        allow_post=True,
        convert=a.optional_string(64),
        enforce_policy=True,
        admin_read=True,
    ),
    Attribute(
        'provider:segmentation_id',
        allow_post=True,
        convert=a.to_int(),
        enforce_policy=True,
        admin_read=True,
    ),
    Attribute(
        'availability_zone_hints',
        allow_post=True,
        convert=a.to_list(NAME),
        default=[],
    ),
    Attribute('availability_zones'),
    Attribute('ipv4_address_scope'),
    Attribute('ipv6_address_scope'),
    Attribute('l2_adjacency'),
)

_POOL = a.to_list(a.to_dict)

SUBNET = _map(
    Attribute(
        'network_id', allow_post=True, convert=a.uuid_string, required=True
    ),
    Attribute(
        'ip_version', allow_post=True, convert=a.one_of(4, 6), required=True
    ),
    Attribute('cidr', allow_post=True, convert=a.string(64)),
    Attribute(
        'gateway_ip',
        allow_post=True,
        allow_put=True,
        convert=a.optional_string(64),
    ),
    Attribute(
        'allocation_pools', allow_post=True, allow_put=True, convert=_POOL
    ),
    Attribute(
        'dns_nameservers',
        allow_post=True,
        allow_put=True,
        convert=a.to_list(a.string(64)),
        default=[],
    ),
    Attribute(
        'host_routes',
        allow_post=True,
        allow_put=True,
        convert=a.to_list(a.to_dict),
        default=[],
    ),
    Attribute(
        'enable_dhcp',
        allow_post=True,
        allow_put=True,
        convert=a.to_boolean,
        default=True,
    ),
    Attribute(
        'ipv6_ra_mode',
        allow_post=True,
        convert=a.one_of('slaac', 'dhcpv6-stateful', 'dhcpv6-stateless', None),
        default=None,
    ),
    Attribute(
        'ipv6_address_mode',
        allow_post=True,
        convert=a.one_of('slaac', 'dhcpv6-stateful', 'dhcpv6-stateless', None),
        default=None,
    ),
    Attribute(
        'subnetpool_id',
        allow_post=True,
        convert=a.optional_string(36),
        default=None,
    ),
)


def _fixed_ip(value: Any) -> dict[str, Any]:
    item = a.to_dict(value)
    unknown = set(item) - {'ip_address', 'subnet_id'}
    if unknown or not item:
        raise a.Invalid(f"Invalid data format for fixed IP: '{value}'")
    return item


PORT = _map(
    Attribute(
        'network_id', allow_post=True, convert=a.uuid_string, required=True
    ),
    Attribute(
        'admin_state_up',
        allow_post=True,
        allow_put=True,
        convert=a.to_boolean,
        default=True,
    ),
    Attribute(
        'mac_address',
        allow_post=True,
        allow_put=True,
        convert=a.mac_address,
        enforce_policy=True,
    ),
    Attribute(
        'fixed_ips',
        allow_post=True,
        allow_put=True,
        convert=a.to_list(_fixed_ip),
    ),
    Attribute(
        'device_id',
        allow_post=True,
        allow_put=True,
        convert=a.string(255),
        default='',
    ),
    Attribute(
        'device_owner',
        allow_post=True,
        allow_put=True,
        convert=a.string(255),
        default='',
    ),
    Attribute('status'),
    Attribute(
        'port_security_enabled',
        allow_post=True,
        allow_put=True,
        convert=a.to_boolean,
    ),
    Attribute(
        'security_groups',
        allow_post=True,
        allow_put=True,
        convert=a.to_list(a.uuid_string),
    ),
    Attribute(
        'allowed_address_pairs',
        allow_post=True,
        allow_put=True,
        convert=a.to_list(a.to_dict),
        default=[],
    ),
    Attribute(
        'binding:host_id',
        allow_post=True,
        allow_put=True,
        convert=a.string(255),
        default='',
        enforce_policy=True,
        admin_read=True,
    ),
    Attribute(
        'binding:vnic_type',
        allow_post=True,
        allow_put=True,
        convert=a.one_of(
            'normal',
            'direct',
            'macvtap',
            'baremetal',
            'direct-physical',
            'virtio-forwarder',
            'smart-nic',
            'remote-managed',
            'vdpa',
        ),
        default='normal',
    ),
    Attribute(
        'binding:profile',
        allow_post=True,
        allow_put=True,
        convert=a.to_dict,
        default={},
        enforce_policy=True,
        admin_read=True,
    ),
    Attribute('binding:vif_type', admin_read=True),
    Attribute('binding:vif_details', admin_read=True),
)


SECURITY_GROUP = _map(
    Attribute(
        'stateful',
        allow_post=True,
        allow_put=True,
        convert=a.to_boolean,
        default=True,
    ),
    Attribute('shared'),
    Attribute('security_group_rules'),
)

SECURITY_GROUP_RULE = {
    x.name: x
    for x in (
        Attribute('id', convert=a.uuid_string),
        Attribute('tenant_id', allow_post=True, convert=a.string(255)),
        Attribute('project_id', allow_post=True, convert=a.string(255)),
        Attribute(
            'security_group_id',
            allow_post=True,
            convert=a.uuid_string,
            required=True,
        ),
        Attribute(
            'direction',
            allow_post=True,
            convert=a.one_of('ingress', 'egress'),
            required=True,
        ),
        Attribute(
            'ethertype',
            allow_post=True,
            convert=a.one_of('IPv4', 'IPv6'),
            default='IPv4',
        ),
        Attribute('protocol', allow_post=True, default=None),
        Attribute(
            'port_range_min',
            allow_post=True,
            convert=a.optional_int,
            default=None,
        ),
        Attribute(
            'port_range_max',
            allow_post=True,
            convert=a.optional_int,
            default=None,
        ),
        Attribute(
            'remote_ip_prefix',
            allow_post=True,
            convert=a.optional_string(64),
            default=None,
        ),
        Attribute(
            'remote_group_id',
            allow_post=True,
            convert=a.optional_uuid,
            default=None,
        ),
        Attribute(
            'description',
            allow_post=True,
            convert=DESCRIPTION,
            default='',
        ),
        Attribute('remote_address_group_id'),
        Attribute('normalized_cidr'),
        Attribute('belongs_to_default_sg'),
        Attribute('revision_number'),
        Attribute('created_at'),
        Attribute('updated_at'),
    )
}
