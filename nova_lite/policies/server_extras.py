"""Policies of server diagnostics, server passwords and external events
(upstream Nova's names and defaults)."""

from nova_lite.policies.base import ADMIN
from nova_lite.policies.base import PROJECT_MEMBER_OR_ADMIN
from nova_lite.policies.base import PROJECT_READER_OR_ADMIN
from nova_lite.policies.base import SERVICE_OR_ADMIN
from nova_lite.policies.base import rule

DIAGNOSTICS = 'os_compute_api:os-server-diagnostics'
PASSWORD = 'os_compute_api:os-server-password:%s'
EXTERNAL_EVENTS = 'os_compute_api:os-server-external-events:%s'
_PASSWORD_PATH = '/servers/{server_id}/os-server-password'

rules = [
    rule(DIAGNOSTICS, ADMIN, 'Show the usage data of a server.',
         [('GET', '/servers/{server_id}/diagnostics')]),
    rule(PASSWORD % 'show', PROJECT_READER_OR_ADMIN,
         'Show the encrypted administrative password of a server.',
         [('GET', _PASSWORD_PATH)]),
    rule(PASSWORD % 'clear', PROJECT_MEMBER_OR_ADMIN,
         'Clear the encrypted administrative password of a server.',
         [('DELETE', _PASSWORD_PATH)]),
    rule(EXTERNAL_EVENTS % 'create', SERVICE_OR_ADMIN,
         'Create one or more external events (sent by other services).',
         [('POST', '/os-server-external-events')]),
]
