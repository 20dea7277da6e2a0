"""Every route of neutron-lite-server, in one table.

A path that exists with another method is a 405 with ``Allow``; an
unknown path a 404 (both in the Networking API's error format). The
API has no microversions: what it serves is listed by
``/v2.0/extensions``.
"""

from neutron_lite.api.handlers import extensions
from neutron_lite.api.handlers import networks
from neutron_lite.api.handlers import ports
from neutron_lite.api.handlers import quotas
from neutron_lite.api.handlers import root
from neutron_lite.api.handlers import security_groups
from neutron_lite.api.handlers import subnets
from neutron_lite.api.handlers import tags

_TAGGABLE = '{collection:networks|subnets|ports|security-groups}'

ROUTES = {
    '/': {'GET': root.versions},
    '/v2.0': {'GET': root.resources},
    '/v2.0/extensions': {'GET': extensions.list_extensions},
    '/v2.0/extensions/{alias}': {'GET': extensions.show_extension},
    '/v2.0/networks': {
        'GET': networks.list_networks,
        'POST': networks.create_network,
    },
    '/v2.0/networks/{network_id}': {
        'GET': networks.show_network,
        'PUT': networks.update_network,
        'DELETE': networks.delete_network,
    },
    '/v2.0/subnets': {
        'GET': subnets.list_subnets,
        'POST': subnets.create_subnet,
    },
    '/v2.0/subnets/{subnet_id}': {
        'GET': subnets.show_subnet,
        'PUT': subnets.update_subnet,
        'DELETE': subnets.delete_subnet,
    },
    '/v2.0/ports': {'GET': ports.list_ports, 'POST': ports.create_port},
    '/v2.0/ports/{port_id}': {
        'GET': ports.show_port,
        'PUT': ports.update_port,
        'DELETE': ports.delete_port,
    },
    '/v2.0/security-groups': {
        'GET': security_groups.list_groups,
        'POST': security_groups.create_group,
    },
    '/v2.0/security-groups/{security_group_id}': {
        'GET': security_groups.show_group,
        'PUT': security_groups.update_group,
        'DELETE': security_groups.delete_group,
    },
    '/v2.0/security-group-rules': {
        'GET': security_groups.list_rules,
        'POST': security_groups.create_rule,
    },
    '/v2.0/security-group-rules/{rule_id}': {
        'GET': security_groups.show_rule,
        'DELETE': security_groups.delete_rule,
    },
    '/v2.0/quotas': {'GET': quotas.list_quotas},
    '/v2.0/quotas/{project_id}': {
        'GET': quotas.show_quota,
        'PUT': quotas.update_quota,
        'DELETE': quotas.delete_quota,
    },
    '/v2.0/quotas/{project_id}/details': {'GET': quotas.show_details},
    '/v2.0/quotas/{project_id}/default': {'GET': quotas.show_defaults},
    f'/v2.0/{_TAGGABLE}/{{resource_id}}/tags': {
        'GET': tags.list_tags,
        'PUT': tags.replace_tags,
        'DELETE': tags.remove_tags,
    },
    f'/v2.0/{_TAGGABLE}/{{resource_id}}/tags/{{tag}}': {
        'GET': tags.check_tag,
        'PUT': tags.add_tag,
        'DELETE': tags.remove_tag,
    },
}
