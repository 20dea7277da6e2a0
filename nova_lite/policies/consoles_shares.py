"""Policies of remote consoles, console auth tokens and server shares
(upstream Nova's names and defaults)."""

from nova_lite.policies.base import ADMIN
from nova_lite.policies.base import PROJECT_MEMBER_OR_ADMIN
from nova_lite.policies.base import PROJECT_READER_OR_ADMIN
from nova_lite.policies.base import rule

REMOTE_CONSOLES = 'os_compute_api:os-remote-consoles'
CONSOLE_OUTPUT = 'os_compute_api:os-console-output'
CONSOLE_AUTH_TOKENS = 'os_compute_api:os-console-auth-tokens'
SHARES = 'os_compute_api:os-server-shares:%s'
_SHARES = '/servers/{server_id}/shares'

rules = [
    rule(
        REMOTE_CONSOLES,
        PROJECT_MEMBER_OR_ADMIN,
        "Generate a URL to a server's remote console (2.6).",
        [('POST', '/servers/{server_id}/remote-consoles')],
    ),
    rule(
        CONSOLE_OUTPUT,
        PROJECT_MEMBER_OR_ADMIN,
        'Show the console output of a server.',
        [('POST', '/servers/{server_id}/action (os-getConsoleOutput)')],
    ),
    rule(
        CONSOLE_AUTH_TOKENS,
        ADMIN,
        'Show the connection information of a console auth token.',
        [('GET', '/os-console-auth-tokens/{console_token}')],
    ),
    rule(
        SHARES % 'index',
        PROJECT_READER_OR_ADMIN,
        'List the shares attached to a server (2.97).',
        [('GET', _SHARES)],
    ),
    rule(
        SHARES % 'create',
        PROJECT_MEMBER_OR_ADMIN,
        'Attach a share to a server (2.97).',
        [('POST', _SHARES)],
    ),
    rule(
        SHARES % 'show',
        PROJECT_READER_OR_ADMIN,
        'Show a share attached to a server (2.97).',
        [('GET', _SHARES + '/{share_id}')],
    ),
    rule(
        SHARES % 'delete',
        PROJECT_MEMBER_OR_ADMIN,
        'Detach a share from a server (2.97).',
        [('DELETE', _SHARES + '/{share_id}')],
    ),
]
