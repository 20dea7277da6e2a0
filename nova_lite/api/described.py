"""What the Compute API's OpenAPI document says of each operation
beyond its path and request body: the query parameters its handler
reads and its success answers (status -> body schema, None for no
body), from nova_lite/api/schemas/responses.

An operation missing here is in :data:`NOT_YET_DESCRIBED` (the test of
the document checks that every operation is in one or the other).
"""

from typing import Any

from lite_common.wsgi import openapi
from lite_common.wsgi.router import Handler
from nova_lite.api import microversion as mv
from nova_lite.api import server_query
from nova_lite.api.handlers import aggregate_images
from nova_lite.api.handlers import aggregates
from nova_lite.api.handlers import audit_log
from nova_lite.api.handlers import availability_zones
from nova_lite.api.handlers import consoles
from nova_lite.api.handlers import flavor_access
from nova_lite.api.handlers import flavor_extra_specs
from nova_lite.api.handlers import flavors
from nova_lite.api.handlers import hypervisors
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
from nova_lite.api.schemas.responses import admin
from nova_lite.api.schemas.responses import flavors as flavor_bodies
from nova_lite.api.schemas.responses import keypairs as keypair_bodies
from nova_lite.api.schemas.responses import quotas
from nova_lite.api.schemas.responses import server_parts as parts
from nova_lite.api.schemas.responses import servers as server_bodies
from nova_lite.api.schemas.responses import versions as version_bodies

Query = dict[str, dict[str, Any]]

_TEXT: dict[str, Any] = {'type': 'string'}
_COUNT: dict[str, Any] = {
    'type': 'integer',
    'minimum': 0,
    'maximum': 2**31 - 1,
}
_BOOL_TEXT: dict[str, Any] = {
    'type': 'string',
    'description': 'a boolean (true, 1, yes...)',
}


def _since(version: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {**schema, 'description': f'since {version}'}


_PAGE: Query = {'limit': _COUNT, 'marker': _TEXT}
_SERVER_QUERY: Query = {
    name: _TEXT for name in sorted(server_query.LIST_QUERY)
}
_SERVER_QUERY['limit'] = _COUNT
_SERVER_QUERY['sort_dir'] = {'type': 'string', 'enum': ['asc', 'desc']}
_FLAVOR_QUERY: Query = {
    **_PAGE,
    'is_public': _TEXT,
    'minRam': _COUNT,
    'minDisk': _COUNT,
    'sort_key': _TEXT,
    'sort_dir': {'type': 'string', 'enum': ['asc', 'desc']},
}
_ACTION_QUERY: Query = {
    'limit': _since(mv.ACTION_PAGING, _COUNT),
    'marker': _since(mv.ACTION_PAGING, _TEXT),
    'changes-since': _since(mv.ACTION_PAGING, _TEXT),
    'changes-before': _since(mv.CHANGES_BEFORE, _TEXT),
}
_HYPERVISOR_QUERY: Query = {
    'limit': _since(mv.HYPERVISOR_PAGING, _COUNT),
    'marker': _since(mv.HYPERVISOR_PAGING, _TEXT),
    'hypervisor_hostname_pattern': _since(mv.SERVICE_UUIDS, _TEXT),
    'with_servers': _since(mv.SERVICE_UUIDS, _BOOL_TEXT),
}
_MIGRATION_QUERY: Query = {
    **{
        name: _TEXT
        for name in (
            'host',
            'status',
            'migration_type',
            'instance_uuid',
            'source_compute',
        )
    },
    'hidden': _since(mv.MIGRATION_PAGING, _TEXT),
    'limit': _since(mv.MIGRATION_PAGING, _COUNT),
    'marker': _since(mv.MIGRATION_PAGING, _TEXT),
    'changes-since': _since(mv.MIGRATION_PAGING, _TEXT),
    'changes-before': _since(mv.CHANGES_BEFORE, _TEXT),
    'user_id': _since(mv.MIGRATION_OWNER, _TEXT),
    'project_id': _since(mv.MIGRATION_OWNER, _TEXT),
}
_USAGE_QUERY: Query = {
    'start': _TEXT,
    'end': _TEXT,
    'limit': _since(mv.USAGE_PAGING, _COUNT),
    'marker': _since(mv.USAGE_PAGING, _TEXT),
}
_USER: Query = {'user_id': _since(mv.KEYPAIR_USER_ID, _TEXT)}


def _d(
    responses: dict[int, Any], query: Query | None = None
) -> openapi.Described:
    return openapi.Described(query=query or {}, responses=responses)


def _servers() -> dict[Handler, openapi.Described]:
    answer = server_bodies
    return {
        servers.list_servers: _d({200: answer.LIST}, _SERVER_QUERY),
        servers.list_servers_detail: _d({200: answer.DETAIL}, _SERVER_QUERY),
        servers.show_server: _d({200: answer.SHOW}),
        servers.create_server: _d({202: answer.CREATE}),
        servers.update_server: _d({200: answer.UPDATE}),
        servers.delete_server: _d({204: None}),
        servers.list_ips: _d({200: answer.IPS}),
        servers.show_ips: _d({200: {'type': 'object'}}),
        server_actions.server_action: _d(
            {200: answer.ACTION_200, 202: answer.ACTION_202, 204: None}
        ),
        volume_attachments.list_attachments: _d(
            {200: parts.VOLUME_ATTACHMENTS},
            {'limit': _COUNT, 'offset': _COUNT},
        ),
        volume_attachments.show_attachment: _d({200: {'type': 'object'}}),
        volume_attachment_update.update_attachment: _d({202: None}),
        server_metadata.list_metadata: _d({200: parts.METADATA}),
        server_metadata.merge_metadata: _d({200: parts.METADATA}),
        server_metadata.replace_metadata: _d({200: parts.METADATA}),
        server_metadata.show_item: _d({200: parts.META}),
        server_metadata.set_item: _d({200: parts.META}),
        server_metadata.delete_item: _d({204: None}),
        server_tags.list_tags: _d({200: parts.TAGS}),
        server_tags.replace_tags: _d({200: parts.TAGS}),
        server_tags.delete_tags: _d({204: None}),
        server_tags.check_tag: _d({204: None}),
        server_tags.add_tag: _d({201: None, 204: None}),
        server_tags.delete_tag: _d({204: None}),
        server_diagnostics.show_diagnostics: _d({200: parts.DIAGNOSTICS}),
        server_topology.show_topology: _d({200: parts.TOPOLOGY}),
        server_password.show_password: _d({200: parts.PASSWORD}),
        server_password.clear_password: _d({204: None}),
        server_external_events.create_events: _d(
            {200: parts.EXTERNAL_EVENTS, 207: parts.EXTERNAL_EVENTS}
        ),
        server_shares.list_shares: _d({200: parts.SHARES}),
        server_shares.attach_share: _d({201: parts.SHARE}),
        server_shares.show_share: _d({200: parts.SHARE}),
        server_shares.detach_share: _d({200: None}),
        consoles.create_remote_console: _d({200: parts.REMOTE_CONSOLE}),
        consoles.show_console_token: _d({200: parts.CONSOLE_TOKEN}),
        instance_actions.list_actions: _d(
            {200: parts.INSTANCE_ACTIONS}, _ACTION_QUERY
        ),
        instance_actions.show_action: _d({200: parts.INSTANCE_ACTION}),
    }


def _flavors_and_keys() -> dict[Handler, openapi.Described]:
    answer = flavor_bodies
    return {
        flavors.list_flavors: _d({200: answer.LIST}, _FLAVOR_QUERY),
        flavors.list_flavors_detail: _d({200: answer.DETAIL}, _FLAVOR_QUERY),
        flavors.show_flavor: _d({200: answer.SHOW}),
        flavors.create_flavor: _d({200: answer.SHOW}),
        flavors.update_flavor: _d({200: answer.SHOW}),
        flavors.delete_flavor: _d({202: None}),
        flavor_access.list_access: _d({200: answer.ACCESS}),
        flavor_access.flavor_action: _d({200: answer.ACCESS}),
        flavor_extra_specs.list_specs: _d({200: answer.EXTRA_SPECS}),
        flavor_extra_specs.create_specs: _d({200: answer.EXTRA_SPECS}),
        flavor_extra_specs.show_spec: _d({200: answer.EXTRA_SPEC}),
        flavor_extra_specs.update_spec: _d({200: answer.EXTRA_SPEC}),
        flavor_extra_specs.delete_spec: _d({200: None}),
        keypairs.list_keypairs: _d(
            {200: keypair_bodies.LIST},
            {
                **_USER,
                'limit': _since(mv.KEYPAIR_PAGING, _COUNT),
                'marker': _since(mv.KEYPAIR_PAGING, _TEXT),
            },
        ),
        keypairs.create_keypair: _d(
            {200: keypair_bodies.CREATE, 201: keypair_bodies.CREATE}
        ),
        keypairs.show_keypair: _d({200: keypair_bodies.SHOW}, _USER),
        keypairs.delete_keypair: _d({202: None, 204: None}, _USER),
    }


def _operators() -> dict[Handler, openapi.Described]:
    return {
        availability_zones.list_zones: _d({200: admin.ZONES}),
        availability_zones.list_zones_detail: _d({200: admin.ZONES}),
        tenant_usage.list_usages: _d(
            {200: parts.USAGES},
            {
                **_USAGE_QUERY,
                'detailed': {'type': 'string', 'enum': ['0', '1']},
            },
        ),
        tenant_usage.show_usage: _d({200: parts.USAGE}, _USAGE_QUERY),
        services.list_services: _d(
            {200: admin.SERVICES}, {'host': _TEXT, 'binary': _TEXT}
        ),
        services.legacy_service_action: _d({200: admin.SERVICE_ACTION}),
        services.update_service: _d({200: admin.SERVICE_UPDATE}),
        services.delete_service: _d({204: None}),
        hypervisors.list_hypervisors: _d(
            {200: admin.HYPERVISORS}, _HYPERVISOR_QUERY
        ),
        hypervisors.list_hypervisors_detail: _d(
            {200: admin.HYPERVISORS_DETAIL}, _HYPERVISOR_QUERY
        ),
        hypervisors.show_statistics: _d({200: admin.STATISTICS}),
        hypervisors.show_hypervisor: _d(
            {200: admin.HYPERVISOR_SHOW},
            {'with_servers': _since(mv.SERVICE_UUIDS, _BOOL_TEXT)},
        ),
        hypervisors.show_hypervisor_uptime: _d({200: admin.HYPERVISOR_UPTIME}),
        hypervisors.search_hypervisors: _d({200: admin.HYPERVISORS}),
        hypervisors.list_hypervisor_servers: _d({200: admin.HYPERVISORS}),
        aggregates.list_aggregates: _d({200: admin.AGGREGATES}),
        aggregates.create_aggregate: _d({200: admin.AGGREGATE_CREATE}),
        aggregates.show_aggregate: _d({200: admin.AGGREGATE_SHOW}),
        aggregates.update_aggregate: _d({200: admin.AGGREGATE_SHOW}),
        aggregates.delete_aggregate: _d({200: None}),
        aggregates.aggregate_action: _d({200: admin.AGGREGATE_SHOW}),
        aggregate_images.cache_images: _d({202: None}),
        migrations.list_migrations: _d(
            {200: admin.MIGRATIONS}, _MIGRATION_QUERY
        ),
        audit_log.list_audit_logs: _d({200: parts.AUDIT_LOGS}),
        audit_log.show_audit_log: _d({200: parts.AUDIT_LOG}),
    }


def _projects() -> dict[Handler, openapi.Described]:
    user = {'user_id': _TEXT}
    return {
        server_groups.list_server_groups: _d(
            {200: parts.SERVER_GROUPS},
            {'all_projects': _TEXT, 'limit': _COUNT, 'offset': _COUNT},
        ),
        server_groups.create_server_group: _d({200: parts.SERVER_GROUP_SHOW}),
        server_groups.show_server_group: _d({200: parts.SERVER_GROUP_SHOW}),
        server_groups.delete_server_group: _d({204: None}),
        quota_sets.show_quota_set: _d({200: quotas.QUOTA_SET}, user),
        quota_sets.update_quota_set: _d({200: quotas.QUOTA_SET}, user),
        quota_sets.delete_quota_set: _d({202: None}, user),
        quota_sets.show_defaults: _d({200: quotas.QUOTA_SET}),
        quota_sets.show_detail: _d({200: quotas.QUOTA_SET_DETAIL}, user),
        quota_classes.show_quota_class: _d({200: quotas.QUOTA_CLASS_SET}),
        quota_classes.update_quota_class: _d({200: quotas.QUOTA_CLASS_SET}),
        limits.show_limits: _d({200: quotas.LIMITS}, {'tenant_id': _TEXT}),
        versions.list_versions: _d({200: version_bodies.VERSIONS}),
        versions.show_version: _d({200: version_bodies.VERSION}),
        versions.show_v20_version: _d({200: version_bodies.VERSION}),
        versions.identity_version: _d({200: version_bodies.IDENTITY}),
        projects.list_projects: _d(
            {200: version_bodies.PROJECTS}, {'name': _TEXT}
        ),
        projects.show_project: _d({200: version_bodies.PROJECT}),
        versions.show_openapi: _d(
            {200: {'type': 'object', 'required': ['openapi', 'paths']}}
        ),
    }


def descriptions() -> dict[Handler, openapi.Described]:
    return {**_servers(), **_flavors_and_keys(), **_operators(), **_projects()}


#: Operations (``'GET /path'``) of the Compute document not described
#: yet: none.
NOT_YET_DESCRIBED: frozenset[str] = frozenset()
