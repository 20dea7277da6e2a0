"""Policies of server diagnostics, server passwords, external events,
server topology and volume attachment updates (upstream Nova's names
and defaults)."""

from nova_lite.policies.base import ADMIN
from nova_lite.policies.base import PROJECT_MEMBER_OR_ADMIN
from nova_lite.policies.base import PROJECT_READER_OR_ADMIN
from nova_lite.policies.base import SERVICE_OR_ADMIN
from nova_lite.policies.base import rule

DIAGNOSTICS = 'os_compute_api:os-server-diagnostics'
PASSWORD = 'os_compute_api:os-server-password:%s'
EXTERNAL_EVENTS = 'os_compute_api:os-server-external-events:%s'
TOPOLOGY = 'compute:server:topology:%s'
VOLUME_ATTACHMENTS = 'os_compute_api:os-volumes-attachments:%s'
#: Upstream's default of a volume swap: Cinder only (role service).
SERVICE = 'role:service'
_ATTACHMENTS_PATH = '/servers/{server_id}/os-volume_attachments'
_ATTACHMENT_PATH = _ATTACHMENTS_PATH + '/{volume_id}'
_PASSWORD_PATH = '/servers/{server_id}/os-server-password'

rules = [
    rule(
        DIAGNOSTICS,
        ADMIN,
        'Show the usage data of a server.',
        [('GET', '/servers/{server_id}/diagnostics')],
    ),
    rule(
        PASSWORD % 'show',
        PROJECT_READER_OR_ADMIN,
        'Show the encrypted administrative password of a server.',
        [('GET', _PASSWORD_PATH)],
    ),
    rule(
        PASSWORD % 'clear',
        PROJECT_MEMBER_OR_ADMIN,
        'Clear the encrypted administrative password of a server.',
        [('DELETE', _PASSWORD_PATH)],
    ),
    rule(
        EXTERNAL_EVENTS % 'create',
        SERVICE_OR_ADMIN,
        'Create one or more external events (sent by other services).',
        [('POST', '/os-server-external-events')],
    ),
    rule(
        TOPOLOGY % 'index',
        PROJECT_READER_OR_ADMIN,
        'Show the NUMA topology data for a server (2.78).',
        [('GET', '/servers/{server_id}/topology')],
    ),
    rule(
        TOPOLOGY % 'host:index',
        ADMIN,
        'Show the NUMA topology data for a server with host NUMA ID and '
        'CPU pinning information (2.78).',
        [('GET', '/servers/{server_id}/topology')],
    ),
    rule(
        VOLUME_ATTACHMENTS % 'update',
        PROJECT_MEMBER_OR_ADMIN,
        'Update a volume attachment of a server (2.85: '
        'delete_on_termination).',
        [('PUT', _ATTACHMENT_PATH)],
    ),
    rule(
        VOLUME_ATTACHMENTS % 'swap',
        SERVICE,
        'Swap the volume of an attachment (a volume migration, called '
        'by Cinder); before 2.85 every PUT of an attachment is a swap.',
        [('PUT', _ATTACHMENT_PATH)],
    ),
    rule(
        VOLUME_ATTACHMENTS % 'index',
        PROJECT_READER_OR_ADMIN,
        'List the volume attachments of a server (none here).',
        [('GET', _ATTACHMENTS_PATH)],
    ),
    rule(
        VOLUME_ATTACHMENTS % 'show',
        PROJECT_READER_OR_ADMIN,
        'Show a volume attachment of a server (none here: 404).',
        [('GET', _ATTACHMENT_PATH)],
    ),
]
