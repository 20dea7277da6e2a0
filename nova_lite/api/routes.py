"""Every route of nova-lite-api, in one table.

Compute API v2.1 under ``/v2.1`` (and, as upstream allows, with the
project id after it), the Image API v2 subset under ``/image``.

A Compute operation that only some microversions serve is a
``Versioned(handler, since=..., until=...)`` (both included): the
router answers the others 404, as upstream answers for a resource its
version does not have.
"""

from lite_common.wsgi.router import RouteTable
from lite_common.wsgi.router import Versioned
from nova_lite.api import microversion as mv
from nova_lite.api.handlers import aggregate_images
from nova_lite.api.handlers import aggregates
from nova_lite.api.handlers import audit_log
from nova_lite.api.handlers import availability_zones
from nova_lite.api.handlers import consoles
from nova_lite.api.handlers import flavor_access
from nova_lite.api.handlers import flavor_extra_specs
from nova_lite.api.handlers import flavors
from nova_lite.api.handlers import hypervisors
from nova_lite.api.handlers import image_data
from nova_lite.api.handlers import images
from nova_lite.api.handlers import instance_actions
from nova_lite.api.handlers import keypairs
from nova_lite.api.handlers import limits
from nova_lite.api.handlers import migrations
from nova_lite.api.handlers import projects
from nova_lite.api.handlers import quota_classes
from nova_lite.api.handlers import quota_sets
from nova_lite.api.handlers import server_actions
from nova_lite.api.handlers import server_diagnostics
from nova_lite.api.handlers import server_external_events
from nova_lite.api.handlers import server_groups
from nova_lite.api.handlers import server_metadata
from nova_lite.api.handlers import server_password
from nova_lite.api.handlers import server_shares
from nova_lite.api.handlers import server_tags
from nova_lite.api.handlers import server_topology
from nova_lite.api.handlers import servers
from nova_lite.api.handlers import services
from nova_lite.api.handlers import tenant_usage
from nova_lite.api.handlers import versions
from nova_lite.api.handlers import volume_attachment_update
from nova_lite.api.handlers import volume_attachments

#: Server tags (2.26) and shares (2.97).
TAGS = mv.SERVER_TAGS
SHARES = server_shares.SINCE

_COMPUTE: RouteTable = {
    '/servers': {'GET': servers.list_servers, 'POST': servers.create_server},
    '/servers/detail': {'GET': servers.list_servers_detail},
    '/servers/{server_id}': {
        'GET': servers.show_server,
        'PUT': servers.update_server,
        'DELETE': servers.delete_server,
    },
    '/servers/{server_id}/ips': {'GET': servers.list_ips},
    '/servers/{server_id}/ips/{network_label}': {'GET': servers.show_ips},
    '/servers/{server_id}/action': {'POST': server_actions.server_action},
    '/servers/{server_id}/os-volume_attachments': {
        'GET': volume_attachments.list_attachments
    },
    '/servers/{server_id}/os-volume_attachments/{volume_id}': {
        'GET': volume_attachments.show_attachment,
        'PUT': volume_attachment_update.update_attachment,
    },
    '/servers/{server_id}/metadata': {
        'GET': server_metadata.list_metadata,
        'POST': server_metadata.merge_metadata,
        'PUT': server_metadata.replace_metadata,
    },
    '/servers/{server_id}/metadata/{key}': {
        'GET': server_metadata.show_item,
        'PUT': server_metadata.set_item,
        'DELETE': server_metadata.delete_item,
    },
    '/servers/{server_id}/tags': {
        'GET': Versioned(server_tags.list_tags, since=TAGS),
        'PUT': Versioned(server_tags.replace_tags, since=TAGS),
        'DELETE': Versioned(server_tags.delete_tags, since=TAGS),
    },
    '/servers/{server_id}/tags/{tag}': {
        'GET': Versioned(server_tags.check_tag, since=TAGS),
        'PUT': Versioned(server_tags.add_tag, since=TAGS),
        'DELETE': Versioned(server_tags.delete_tag, since=TAGS),
    },
    '/servers/{server_id}/diagnostics': {
        'GET': server_diagnostics.show_diagnostics
    },
    '/servers/{server_id}/topology': {
        'GET': Versioned(
            server_topology.show_topology, since=server_topology.SINCE
        )
    },
    '/servers/{server_id}/os-server-password': {
        'GET': server_password.show_password,
        'DELETE': server_password.clear_password,
    },
    '/os-server-external-events': {
        'POST': server_external_events.create_events
    },
    '/servers/{server_id}/shares': {
        'GET': Versioned(server_shares.list_shares, since=SHARES),
        'POST': Versioned(server_shares.attach_share, since=SHARES),
    },
    '/servers/{server_id}/shares/{share_id}': {
        'GET': Versioned(server_shares.show_share, since=SHARES),
        'DELETE': Versioned(server_shares.detach_share, since=SHARES),
    },
    '/servers/{server_id}/remote-consoles': {
        'POST': Versioned(
            consoles.create_remote_console,
            since=consoles.REMOTE_CONSOLES_SINCE,
        )
    },
    # Before 2.31 the handler answers 400, as upstream.
    '/os-console-auth-tokens/{console_token}': {
        'GET': Versioned(
            consoles.show_console_token,
            since=consoles.TOKENS_SINCE,
            answers_outside=True,
        )
    },
    '/servers/{server_id}/os-instance-actions': {
        'GET': instance_actions.list_actions
    },
    '/servers/{server_id}/os-instance-actions/{request_id}': {
        'GET': instance_actions.show_action
    },
    '/flavors': {'GET': flavors.list_flavors, 'POST': flavors.create_flavor},
    '/flavors/detail': {'GET': flavors.list_flavors_detail},
    '/flavors/{flavor_id}': {
        'GET': flavors.show_flavor,
        'PUT': Versioned(flavors.update_flavor, since=mv.FLAVOR_DESCRIPTION),
        'DELETE': flavors.delete_flavor,
    },
    '/os-keypairs': {
        'GET': keypairs.list_keypairs,
        'POST': keypairs.create_keypair,
    },
    '/os-keypairs/{keypair_name}': {
        'GET': keypairs.show_keypair,
        'DELETE': keypairs.delete_keypair,
    },
    '/flavors/{flavor_id}/os-flavor-access': {
        'GET': flavor_access.list_access
    },
    '/flavors/{flavor_id}/action': {'POST': flavor_access.flavor_action},
    '/flavors/{flavor_id}/os-extra_specs': {
        'GET': flavor_extra_specs.list_specs,
        'POST': flavor_extra_specs.create_specs,
    },
    '/flavors/{flavor_id}/os-extra_specs/{key}': {
        'GET': flavor_extra_specs.show_spec,
        'PUT': flavor_extra_specs.update_spec,
        'DELETE': flavor_extra_specs.delete_spec,
    },
    '/os-availability-zone': {'GET': availability_zones.list_zones},
    '/os-availability-zone/detail': {
        'GET': availability_zones.list_zones_detail
    },
    '/os-simple-tenant-usage': {'GET': tenant_usage.list_usages},
    '/os-simple-tenant-usage/{tenant_id}': {'GET': tenant_usage.show_usage},
    '/os-services': {'GET': services.list_services},
    # Before 2.53: PUT /os-services/{enable,disable,...} with host+binary;
    # from 2.53 PUT /os-services/{uuid}. Outside their ranges the handler
    # answers, as upstream: from 2.53 an action name is an invalid uuid
    # (400), before it any other name an unknown action (404, after the
    # body is checked).
    '/os-services/{service_action:'
    'enable|disable|disable-log-reason|force-down}': {
        'PUT': Versioned(
            services.legacy_service_action,
            until=services.LAST_LEGACY,
            answers_outside=True,
        )
    },
    '/os-services/{service_id}': {
        'PUT': Versioned(
            services.update_service,
            since=services.UUID_FOR_ID,
            answers_outside=True,
        ),
        'DELETE': services.delete_service,
    },
    '/os-hypervisors': {'GET': hypervisors.list_hypervisors},
    '/os-hypervisors/detail': {'GET': hypervisors.list_hypervisors_detail},
    # Before {hypervisor_id}: the first route that matches wins.
    '/os-hypervisors/statistics': {
        'GET': Versioned(
            hypervisors.show_statistics, until=hypervisors.LAST_WITH_USAGE
        )
    },
    '/os-hypervisors/{hypervisor_id}': {'GET': hypervisors.show_hypervisor},
    '/os-hypervisors/{hypervisor_id}/uptime': {
        'GET': Versioned(
            hypervisors.show_hypervisor_uptime,
            until=hypervisors.LAST_WITH_USAGE,
        )
    },
    # Before 2.53 (then the list's hypervisor_hostname_pattern).
    '/os-hypervisors/{hypervisor_hostname_pattern}/search': {
        'GET': Versioned(
            hypervisors.search_hypervisors, until=hypervisors.LAST_INTEGER_ID
        )
    },
    '/os-hypervisors/{hypervisor_hostname_pattern}/servers': {
        'GET': Versioned(
            hypervisors.list_hypervisor_servers,
            until=hypervisors.LAST_INTEGER_ID,
        )
    },
    '/os-aggregates': {
        'GET': aggregates.list_aggregates,
        'POST': aggregates.create_aggregate,
    },
    '/os-aggregates/{aggregate_id}': {
        'GET': aggregates.show_aggregate,
        'PUT': aggregates.update_aggregate,
        'DELETE': aggregates.delete_aggregate,
    },
    '/os-aggregates/{aggregate_id}/action': {
        'POST': aggregates.aggregate_action
    },
    '/os-aggregates/{aggregate_id}/images': {
        'POST': Versioned(
            aggregate_images.cache_images, since=aggregate_images.SINCE
        )
    },
    '/os-server-groups': {
        'GET': server_groups.list_server_groups,
        'POST': server_groups.create_server_group,
    },
    '/os-server-groups/{server_group_id}': {
        'GET': server_groups.show_server_group,
        'DELETE': server_groups.delete_server_group,
    },
    '/os-migrations': {'GET': migrations.list_migrations},
    '/os-quota-sets/{quota_project_id}': {
        'GET': quota_sets.show_quota_set,
        'PUT': quota_sets.update_quota_set,
        'DELETE': quota_sets.delete_quota_set,
    },
    '/os-quota-sets/{quota_project_id}/defaults': {
        'GET': quota_sets.show_defaults
    },
    '/os-quota-sets/{quota_project_id}/detail': {
        'GET': quota_sets.show_detail
    },
    '/os-quota-class-sets/{quota_class}': {
        'GET': quota_classes.show_quota_class,
        'PUT': quota_classes.update_quota_class,
    },
    '/os-instance_usage_audit_log': {'GET': audit_log.list_audit_logs},
    '/os-instance_usage_audit_log/{before_timestamp}': {
        'GET': audit_log.show_audit_log
    },
    '/limits': {'GET': limits.show_limits},
}


def _compute_routes() -> RouteTable:
    # Each path without and with the project id (legacy URLs), in order.
    return {
        '/v2.1': {'GET': versions.show_version},
        **{
            prefix + path: methods
            for path, methods in _COMPUTE.items()
            for prefix in ('/v2.1', '/v2.1/{project_id}')
        },
    }


#: What clients ask of an identity service, answered by nova-lite-api
#: itself when there is none (http_basic, noauth): version discovery
#: and project look-ups. Not served with Keystone, which answers them.
IDENTITY_SHIM_ROUTES: RouteTable = {
    '/identity/v3': {'GET': versions.identity_version},
    '/identity/v3/projects': {'GET': projects.list_projects},
    '/identity/v3/projects/{identity_project_id}': {
        'GET': projects.show_project
    },
}

COMPUTE_ROUTES: RouteTable = {
    '/': {'GET': versions.list_versions},
    '/v2': {'GET': versions.show_v20_version},
    **IDENTITY_SHIM_ROUTES,
    '/openapi.json': {'GET': versions.show_openapi},
    **_compute_routes(),
}


def compute_routes(auth_strategy: str) -> RouteTable:
    """The Compute API's routes under ``auth_strategy``."""
    if auth_strategy != 'keystone':
        return COMPUTE_ROUTES
    return {
        path: methods
        for path, methods in COMPUTE_ROUTES.items()
        if path not in IDENTITY_SHIM_ROUTES
    }


IMAGE_ROUTES: RouteTable = {
    '/image': {'GET': images.image_versions},
    '/image/openapi.json': {'GET': images.show_openapi},
    '/image/v2/images': {
        'GET': images.list_images,
        'POST': images.create_image,
    },
    '/image/v2/images/{image_id}': {
        'GET': images.show_image,
        'PATCH': images.update_image,
        'DELETE': images.delete_image,
    },
    '/image/v2/schemas/image': {'GET': images.show_image_schema},
    '/image/v2/schemas/images': {'GET': images.show_images_schema},
    '/image/v2/images/{image_id}/file': {
        'PUT': image_data.upload,
        'GET': image_data.download,
    },
}
