"""Rows as the Networking API shows them (Neutron's attribute names and
timestamps), before the per-attribute read policies and ``fields``."""

import datetime
from typing import Any

from neutron_lite.common import rules


def _time(value: datetime.datetime | None) -> str | None:
    return None if value is None else value.strftime('%Y-%m-%dT%H:%M:%SZ')


def _standard(row: dict[str, Any]) -> dict[str, Any]:
    return {
        'id': row['id'],
        'name': row['name'],
        'tenant_id': row['project_id'],
        'project_id': row['project_id'],
        'description': row['description'],
        'tags': row.get('tags', []),
        'created_at': _time(row['created_at']),
        'updated_at': _time(row['updated_at']),
        'revision_number': row['revision_number'],
    }


def network(row: dict[str, Any]) -> dict[str, Any]:
    return {
        **_standard(row),
        'admin_state_up': row['admin_state_up'],
        'status': row['status'],
        'subnets': row.get('subnets', []),
        'shared': row['shared'],
        'router:external': row['external'],
        'mtu': row['mtu'],
        'port_security_enabled': row['port_security_enabled'],
        'provider:network_type': row['network_type'],
        'provider:physical_network': row['physical_network'],
        'provider:segmentation_id': row['segmentation_id'],
        'availability_zone_hints': [],
        'availability_zones': [],
        'ipv4_address_scope': None,
        'ipv6_address_scope': None,
        'l2_adjacency': True,
    }


def subnet(row: dict[str, Any]) -> dict[str, Any]:
    return {
        **_standard(row),
        'network_id': row['network_id'],
        'ip_version': row['ip_version'],
        'cidr': row['cidr'],
        'gateway_ip': row['gateway_ip'],
        'allocation_pools': row['allocation_pools'],
        'dns_nameservers': row['dns_nameservers'],
        'host_routes': row['host_routes'],
        'enable_dhcp': row['enable_dhcp'],
        'ipv6_ra_mode': row['ipv6_ra_mode'],
        'ipv6_address_mode': row['ipv6_address_mode'],
        'subnetpool_id': None,
    }


def port(row: dict[str, Any]) -> dict[str, Any]:
    return {
        **_standard(row),
        'network_id': row['network_id'],
        'admin_state_up': row['admin_state_up'],
        'mac_address': row['mac_address'],
        'fixed_ips': row.get('fixed_ips', []),
        'device_id': row['device_id'],
        'device_owner': row['device_owner'],
        'status': row['status'],
        'port_security_enabled': row['port_security_enabled'],
        'allowed_address_pairs': row['allowed_address_pairs'],
        'security_groups': row.get('security_groups', []),
        'binding:host_id': row['binding_host_id'],
        'binding:vnic_type': row['binding_vnic_type'],
        'binding:profile': row['binding_profile'],
        'binding:vif_type': row['binding_vif_type'],
        'binding:vif_details': row['binding_vif_details'],
    }


def security_group_rule(row: dict[str, Any]) -> dict[str, Any]:
    return {
        'id': row['id'],
        'project_id': row['project_id'],
        'security_group_id': row['security_group_id'],
        'ethertype': row['ethertype'],
        'direction': row['direction'],
        'protocol': row['protocol'],
        'port_range_min': row['port_range_min'],
        'port_range_max': row['port_range_max'],
        'remote_ip_prefix': row['remote_ip_prefix'],
        'remote_address_group_id': None,
        'normalized_cidr': rules.normalized_cidr(row['remote_ip_prefix']),
        'remote_group_id': row['remote_group_id'],
        'belongs_to_default_sg': row.get('belongs_to_default_sg', False),
        'description': row['description'],
        'created_at': _time(row['created_at']),
        'updated_at': _time(row['updated_at']),
        'revision_number': row['revision_number'],
        'tenant_id': row['project_id'],
    }


def security_group(row: dict[str, Any]) -> dict[str, Any]:
    return {
        **_standard(row),
        'stateful': row['stateful'],
        'shared': False,
        'security_group_rules': [
            security_group_rule(r) for r in row.get('security_group_rules', [])
        ],
    }
