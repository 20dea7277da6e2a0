"""Policies of the Compute and Image API resources.

Defaults: services, hypervisors, flavor management and migrations are
admin-only; servers are project-scoped; images are readable by anyone
authenticated and managed by their owner or an admin.
"""

from nova_lite.policies.base import ADMIN
from nova_lite.policies.base import ANY_AUTHENTICATED
from nova_lite.policies.base import PROJECT_MEMBER_OR_ADMIN
from nova_lite.policies.base import PROJECT_READER_OR_ADMIN
from nova_lite.policies.base import rule

SERVERS = 'os_compute_api:servers:%s'
CREATE_BACKUP = 'os_compute_api:os-create-backup'

servers = [
    rule(
        SERVERS % 'index',
        PROJECT_READER_OR_ADMIN,
        'List servers.',
        [('GET', '/servers')],
    ),
    rule(
        SERVERS % 'detail',
        PROJECT_READER_OR_ADMIN,
        'List servers with details.',
        [('GET', '/servers/detail')],
    ),
    rule(
        SERVERS % 'index:get_all_tenants',
        ADMIN,
        'List the servers of every project (all_tenants).',
        [('GET', '/servers'), ('GET', '/servers/detail')],
    ),
    rule(
        SERVERS % 'allow_all_filters',
        ADMIN,
        'Filter the server list by every filter: host and node, and '
        'before 2.83 availability_zone, config_drive, key_name, '
        'created_at, launched_at, terminated_at, power_state, '
        'task_state, vm_state, progress and user_id (ignored for '
        'others).',
        [('GET', '/servers'), ('GET', '/servers/detail')],
    ),
    rule(
        SERVERS % 'show',
        PROJECT_READER_OR_ADMIN,
        'Show a server.',
        [('GET', '/servers/{server_id}')],
    ),
    rule(
        SERVERS % 'show:host_status',
        ADMIN,
        'Show host_status of a server (2.16+).',
        [('GET', '/servers/{server_id}')],
    ),
    rule(
        SERVERS % 'create',
        PROJECT_MEMBER_OR_ADMIN,
        'Create a server.',
        [('POST', '/servers')],
    ),
    rule(
        SERVERS % 'create:forced_host',
        ADMIN,
        'Create a server on a given host or node (availability_zone '
        '``zone:host``, ``zone:host:node`` or ``zone::node``).',
        [('POST', '/servers')],
    ),
    rule(
        'compute:servers:create:requested_destination',
        ADMIN,
        'Create a server on a requested host or node that the scheduler '
        'still checks (2.74+ ``host`` / ``hypervisor_hostname``).',
        [('POST', '/servers')],
    ),
    rule(
        SERVERS % 'create:trusted_certs',
        PROJECT_MEMBER_OR_ADMIN,
        'Create a server with trusted image certificate IDs (2.63+).',
        [('POST', '/servers')],
    ),
    rule(
        SERVERS % 'delete',
        PROJECT_MEMBER_OR_ADMIN,
        'Delete a server.',
        [('DELETE', '/servers/{server_id}')],
    ),
    rule(
        SERVERS % 'update',
        PROJECT_MEMBER_OR_ADMIN,
        'Rename a server, set its access IPs or description.',
        [('PUT', '/servers/{server_id}')],
    ),
    rule(
        'os_compute_api:ips:index',
        PROJECT_READER_OR_ADMIN,
        'List the addresses of a server.',
        [('GET', '/servers/{server_id}/ips')],
    ),
    rule(
        'os_compute_api:ips:show',
        PROJECT_READER_OR_ADMIN,
        'Show the addresses of a server on one network.',
        [('GET', '/servers/{server_id}/ips/{network_label}')],
    ),
    rule(
        SERVERS % 'rebuild',
        PROJECT_MEMBER_OR_ADMIN,
        'Rebuild a server with an image.',
        [('POST', '/servers/{server_id}/action (rebuild)')],
    ),
    rule(
        SERVERS % 'rebuild:trusted_certs',
        PROJECT_MEMBER_OR_ADMIN,
        'Rebuild a server with trusted image certificate IDs (2.63+).',
        [('POST', '/servers/{server_id}/action (rebuild)')],
    ),
    rule(
        SERVERS % 'create_image',
        PROJECT_MEMBER_OR_ADMIN,
        'Create an image (snapshot) of a server.',
        [('POST', '/servers/{server_id}/action (createImage)')],
    ),
    rule(
        CREATE_BACKUP,
        PROJECT_MEMBER_OR_ADMIN,
        'Create a backup (a rotated snapshot) of a server.',
        [('POST', '/servers/{server_id}/action (createBackup)')],
    ),
    rule(
        SERVERS % 'resize',
        PROJECT_MEMBER_OR_ADMIN,
        'Resize a server to another flavor.',
        [('POST', '/servers/{server_id}/action (resize)')],
    ),
    rule(
        SERVERS % 'confirm_resize',
        PROJECT_MEMBER_OR_ADMIN,
        'Confirm a resize or cold migration.',
        [('POST', '/servers/{server_id}/action (confirmResize)')],
    ),
    rule(
        SERVERS % 'revert_resize',
        PROJECT_MEMBER_OR_ADMIN,
        'Revert a resize or cold migration.',
        [('POST', '/servers/{server_id}/action (revertResize)')],
    ),
    rule(
        'os_compute_api:os-extended-server-attributes',
        ADMIN,
        'See the OS-EXT-SRV-ATTR host, node and instance name.',
        [('GET', '/servers/{server_id}')],
    ),
]

flavors = [
    rule(
        'os_compute_api:flavors:index',
        ANY_AUTHENTICATED,
        'List flavors.',
        [
            ('GET', '/flavors'),
            ('GET', '/flavors/detail'),
            ('GET', '/flavors/{flavor_id}'),
        ],
    ),
    rule(
        'os_compute_api:os-flavor-manage:create',
        ADMIN,
        'Create a flavor.',
        [('POST', '/flavors')],
    ),
    rule(
        'os_compute_api:os-flavor-manage:update',
        ADMIN,
        'Change the description of a flavor (2.55).',
        [('PUT', '/flavors/{flavor_id}')],
    ),
    rule(
        'os_compute_api:os-flavor-manage:delete',
        ADMIN,
        'Delete a flavor.',
        [('DELETE', '/flavors/{flavor_id}')],
    ),
    rule(
        'os_compute_api:os-flavor-access',
        ADMIN,
        'List the projects that see a private flavor.',
        [('GET', '/flavors/{flavor_id}/os-flavor-access')],
    ),
    rule(
        'os_compute_api:os-flavor-access:add_tenant_access',
        ADMIN,
        'Give a project access to a private flavor.',
        [('POST', '/flavors/{flavor_id}/action (addTenantAccess)')],
    ),
    rule(
        'os_compute_api:os-flavor-access:remove_tenant_access',
        ADMIN,
        "Take a project's access to a private flavor away.",
        [('POST', '/flavors/{flavor_id}/action (removeTenantAccess)')],
    ),
    rule(
        'os_compute_api:os-flavor-extra-specs:index',
        PROJECT_READER_OR_ADMIN,
        'List the extra specs of a flavor.',
        [('GET', '/flavors/{flavor_id}/os-extra_specs')],
    ),
    rule(
        'os_compute_api:os-flavor-extra-specs:show',
        PROJECT_READER_OR_ADMIN,
        'Show one extra spec of a flavor.',
        [('GET', '/flavors/{flavor_id}/os-extra_specs/{key}')],
    ),
    rule(
        'os_compute_api:os-flavor-extra-specs:create',
        ADMIN,
        'Add extra specs to a flavor.',
        [('POST', '/flavors/{flavor_id}/os-extra_specs')],
    ),
    rule(
        'os_compute_api:os-flavor-extra-specs:update',
        ADMIN,
        'Set one extra spec of a flavor.',
        [('PUT', '/flavors/{flavor_id}/os-extra_specs/{key}')],
    ),
    rule(
        'os_compute_api:os-flavor-extra-specs:delete',
        ADMIN,
        'Delete one extra spec of a flavor.',
        [('DELETE', '/flavors/{flavor_id}/os-extra_specs/{key}')],
    ),
]

usage = [
    rule(
        'os_compute_api:os-simple-tenant-usage:list',
        ADMIN,
        'List the usage of every project.',
        [('GET', '/os-simple-tenant-usage')],
    ),
    rule(
        'os_compute_api:os-simple-tenant-usage:show',
        PROJECT_READER_OR_ADMIN,
        'Show the usage of a project.',
        [('GET', '/os-simple-tenant-usage/{tenant_id}')],
    ),
]

availability_zones = [
    rule(
        'os_compute_api:os-availability-zone:list',
        ANY_AUTHENTICATED,
        'List availability zones.',
        [('GET', '/os-availability-zone')],
    ),
    rule(
        'os_compute_api:os-availability-zone:detail',
        ADMIN,
        'List availability zones with their hosts and services.',
        [('GET', '/os-availability-zone/detail')],
    ),
]

admin_apis = [
    rule(
        'os_compute_api:os-services:list',
        ADMIN,
        'List services.',
        [('GET', '/os-services')],
    ),
    rule(
        'os_compute_api:os-services:update',
        ADMIN,
        'Enable, disable or force down a service.',
        [('PUT', '/os-services/{service_id}')],
    ),
    rule(
        'os_compute_api:os-services:delete',
        ADMIN,
        'Delete a service.',
        [('DELETE', '/os-services/{service_id}')],
    ),
    rule(
        'os_compute_api:os-hypervisors:list',
        ADMIN,
        'List hypervisors.',
        [('GET', '/os-hypervisors')],
    ),
    rule(
        'os_compute_api:os-hypervisors:list-detail',
        ADMIN,
        'List hypervisors with details.',
        [('GET', '/os-hypervisors/detail')],
    ),
    rule(
        'os_compute_api:os-hypervisors:show',
        ADMIN,
        'Show a hypervisor.',
        [('GET', '/os-hypervisors/{hypervisor_id}')],
    ),
    rule(
        'os_compute_api:os-hypervisors:uptime',
        ADMIN,
        'Show the uptime of a hypervisor.',
        [('GET', '/os-hypervisors/{hypervisor_id}/uptime')],
    ),
    rule(
        'os_compute_api:os-hypervisors:statistics',
        ADMIN,
        'Show summed statistics of the hypervisors of enabled hosts.',
        [('GET', '/os-hypervisors/statistics')],
    ),
    rule(
        'os_compute_api:os-hypervisors:search',
        ADMIN,
        'Search hypervisors by a hypervisor_hostname pattern (before 2.53).',
        [('GET', '/os-hypervisors/{hypervisor_hostname_pattern}/search')],
    ),
    rule(
        'os_compute_api:os-hypervisors:servers',
        ADMIN,
        'List the servers of the hypervisors matching a '
        'hypervisor_hostname pattern (before 2.53).',
        [('GET', '/os-hypervisors/{hypervisor_hostname_pattern}/servers')],
    ),
    rule(
        'os_compute_api:os-migrations:index',
        ADMIN,
        'List migrations.',
        [('GET', '/os-migrations')],
    ),
    rule(
        'os_compute_api:os-evacuate',
        ADMIN,
        'Evacuate a server from a failed host to a new host.',
        [('POST', '/servers/{server_id}/action (evacuate)')],
    ),
    rule(
        'os_compute_api:os-migrate-server:migrate',
        ADMIN,
        'Cold migrate a server to another host.',
        [('POST', '/servers/{server_id}/action (migrate)')],
    ),
    rule(
        'os_compute_api:os-migrate-server:migrate:host',
        ADMIN,
        'Cold migrate a server to a given host (2.56).',
        [('POST', '/servers/{server_id}/action (migrate)')],
    ),
    rule(
        'os_compute_api:os-admin-actions:reset_state',
        ADMIN,
        'Reset the state of a server (active or error; the task state '
        'is cleared and unfinished evacuations end).',
        [('POST', '/servers/{server_id}/action (os-resetState)')],
    ),
]

QUOTA_SETS = 'os_compute_api:os-quota-sets:%s'

quotas = [
    rule(
        QUOTA_SETS % 'show',
        PROJECT_READER_OR_ADMIN,
        "Show a project's quotas.",
        [('GET', '/os-quota-sets/{tenant_id}')],
    ),
    rule(
        QUOTA_SETS % 'defaults',
        ANY_AUTHENTICATED,
        'Show the default quotas.',
        [('GET', '/os-quota-sets/{tenant_id}/defaults')],
    ),
    rule(
        QUOTA_SETS % 'detail',
        PROJECT_READER_OR_ADMIN,
        "Show a project's quotas with their usage.",
        [('GET', '/os-quota-sets/{tenant_id}/detail')],
    ),
    rule(
        QUOTA_SETS % 'update',
        ADMIN,
        "Change a project's quotas.",
        [('PUT', '/os-quota-sets/{tenant_id}')],
    ),
    rule(
        QUOTA_SETS % 'delete',
        ADMIN,
        "Revert a project's quotas to the defaults.",
        [('DELETE', '/os-quota-sets/{tenant_id}')],
    ),
    rule(
        'os_compute_api:os-quota-class-sets:show',
        ADMIN,
        'Show the limits of a quota class ("default": the defaults).',
        [('GET', '/os-quota-class-sets/{quota_class}')],
    ),
    rule(
        'os_compute_api:os-quota-class-sets:update',
        ADMIN,
        'Change the limits of a quota class.',
        [('PUT', '/os-quota-class-sets/{quota_class}')],
    ),
    rule(
        'os_compute_api:os-instance-usage-audit-log:list',
        ADMIN,
        'List the usage audits of every compute host.',
        [('GET', '/os-instance_usage_audit_log')],
    ),
    rule(
        'os_compute_api:os-instance-usage-audit-log:show',
        ADMIN,
        'Show the usage audits before a time.',
        [('GET', '/os-instance_usage_audit_log/{before_timestamp}')],
    ),
    rule(
        'os_compute_api:limits',
        ANY_AUTHENTICATED,
        "Show the caller's project's absolute limits and usage.",
        [('GET', '/limits')],
    ),
    rule(
        'os_compute_api:limits:other_project',
        ADMIN,
        "Show another project's limits (tenant_id).",
        [('GET', '/limits')],
    ),
]

images = [
    rule(
        'image:get_images',
        ANY_AUTHENTICATED,
        'List images.',
        [('GET', '/image/v2/images')],
    ),
    rule(
        'image:get_image',
        ANY_AUTHENTICATED,
        'Show an image.',
        [('GET', '/image/v2/images/{image_id}')],
    ),
    rule(
        'image:add_image',
        PROJECT_MEMBER_OR_ADMIN,
        'Add an image record.',
        [('POST', '/image/v2/images')],
    ),
    rule(
        'image:publicize_image',
        ADMIN,
        'Make an image public.',
        [('POST', '/image/v2/images')],
    ),
    rule(
        'image:modify_image',
        PROJECT_MEMBER_OR_ADMIN,
        'Update an image record.',
        [('PATCH', '/image/v2/images/{id}')],
    ),
    rule(
        'image:delete_image',
        PROJECT_MEMBER_OR_ADMIN,
        'Delete an image record (and its data).',
        [('DELETE', '/image/v2/images/{id}')],
    ),
    rule(
        'image:upload_image',
        PROJECT_MEMBER_OR_ADMIN,
        "Upload an image's data.",
        [('PUT', '/image/v2/images/{image_id}/file')],
    ),
    rule(
        'image:download_image',
        ANY_AUTHENTICATED,
        "Download an image's data (of an image the caller may see).",
        [('GET', '/image/v2/images/{image_id}/file')],
    ),
]
