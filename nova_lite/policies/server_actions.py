"""Policies of the server power and lock actions and of the instance
action records (upstream Nova's names and defaults)."""

from nova_lite.policies.base import ADMIN
from nova_lite.policies.base import PROJECT_MEMBER_OR_ADMIN
from nova_lite.policies.base import PROJECT_READER_OR_ADMIN
from nova_lite.policies.base import rule

SERVERS = 'os_compute_api:servers:%s'
LOCK = 'os_compute_api:os-lock-server:%s'
ACTIONS = 'os_compute_api:os-instance-actions:%s'
DEFERRED_DELETE = 'os_compute_api:os-deferred-delete:%s'


def _action(name: str) -> list[tuple[str, str]]:
    return [('POST', f'/servers/{{server_id}}/action ({name})')]


power = [
    rule(
        SERVERS % 'stop',
        PROJECT_MEMBER_OR_ADMIN,
        'Stop a server.',
        _action('os-stop'),
    ),
    rule(
        SERVERS % 'start',
        PROJECT_MEMBER_OR_ADMIN,
        'Start a server.',
        _action('os-start'),
    ),
    rule(
        SERVERS % 'reboot',
        PROJECT_MEMBER_OR_ADMIN,
        'Reboot a server (soft or hard).',
        _action('reboot'),
    ),
]

PAUSE = 'os_compute_api:os-pause-server:%s'
SUSPEND = 'os_compute_api:os-suspend-server:%s'
pause_suspend = [
    rule(
        PAUSE % 'pause',
        PROJECT_MEMBER_OR_ADMIN,
        'Pause a server.',
        _action('pause'),
    ),
    rule(
        PAUSE % 'unpause',
        PROJECT_MEMBER_OR_ADMIN,
        'Unpause a server.',
        _action('unpause'),
    ),
    rule(
        SUSPEND % 'suspend',
        PROJECT_MEMBER_OR_ADMIN,
        'Suspend a server.',
        _action('suspend'),
    ),
    rule(
        SUSPEND % 'resume',
        PROJECT_MEMBER_OR_ADMIN,
        'Resume a suspended server.',
        _action('resume'),
    ),
]

SHELVE = 'os_compute_api:os-shelve:%s'
shelve = [
    rule(
        SHELVE % 'shelve',
        PROJECT_MEMBER_OR_ADMIN,
        'Shelve a server.',
        _action('shelve'),
    ),
    rule(
        SHELVE % 'unshelve',
        PROJECT_MEMBER_OR_ADMIN,
        'Unshelve a shelved or offloaded server.',
        _action('unshelve'),
    ),
    rule(
        SHELVE % 'unshelve_to_host',
        ADMIN,
        'Unshelve an offloaded server to a named host (2.91).',
        _action('unshelve'),
    ),
    rule(
        SHELVE % 'shelve_offload',
        ADMIN,
        'Remove a shelved server from its host (offload).',
        _action('shelveOffload'),
    ),
]

RESCUE = 'os_compute_api:os-rescue'
UNRESCUE = 'os_compute_api:os-unrescue'
rescue = [
    rule(
        RESCUE, PROJECT_MEMBER_OR_ADMIN, 'Rescue a server.', _action('rescue')
    ),
    rule(
        UNRESCUE,
        PROJECT_MEMBER_OR_ADMIN,
        'Unrescue a server.',
        _action('unrescue'),
    ),
]

lock = [
    rule(
        LOCK % 'lock',
        PROJECT_MEMBER_OR_ADMIN,
        'Lock a server: then only administrators act on it.',
        _action('lock'),
    ),
    rule(
        LOCK % 'unlock',
        PROJECT_MEMBER_OR_ADMIN,
        'Unlock a server locked by its own project.',
        _action('unlock'),
    ),
    rule(
        LOCK % 'unlock:unlock_override',
        ADMIN,
        'Unlock a server locked by someone else (an administrator).',
        _action('unlock'),
    ),
]

deferred_delete = [
    rule(
        DEFERRED_DELETE % 'restore',
        PROJECT_MEMBER_OR_ADMIN,
        'Restore a soft deleted server.',
        _action('restore'),
    ),
    rule(
        DEFERRED_DELETE % 'force',
        PROJECT_MEMBER_OR_ADMIN,
        'Force delete a server before deferred cleanup.',
        _action('forceDelete'),
    ),
]

instance_actions = [
    rule(
        ACTIONS % 'list',
        PROJECT_READER_OR_ADMIN,
        'List the actions of a server.',
        [('GET', '/servers/{server_id}/os-instance-actions')],
    ),
    rule(
        ACTIONS % 'show',
        PROJECT_READER_OR_ADMIN,
        'Show one action of a server.',
        [('GET', '/servers/{server_id}/os-instance-actions/{request_id}')],
    ),
    rule(
        ACTIONS % 'events',
        ADMIN,
        'See the events of an action with their tracebacks (before 2.51 '
        'the events at all).',
        [('GET', '/servers/{server_id}/os-instance-actions/{request_id}')],
    ),
    rule(
        ACTIONS % 'events:details',
        ADMIN,
        'See the "details" of the events of an action (2.84): the '
        'message of a failure, which may tell of the deployment (e.g. '
        'the kind of hypervisor).',
        [('GET', '/servers/{server_id}/os-instance-actions/{request_id}')],
    ),
]

METADATA = 'os_compute_api:server-metadata:%s'
_META_PATH = '/servers/{server_id}/metadata'
metadata = [
    rule(
        METADATA % 'index',
        PROJECT_READER_OR_ADMIN,
        'List the metadata of a server.',
        [('GET', _META_PATH)],
    ),
    rule(
        METADATA % 'show',
        PROJECT_READER_OR_ADMIN,
        'Show one metadata item of a server.',
        [('GET', _META_PATH + '/{key}')],
    ),
    rule(
        METADATA % 'create',
        PROJECT_MEMBER_OR_ADMIN,
        'Add metadata items to a server.',
        [('POST', _META_PATH)],
    ),
    rule(
        METADATA % 'update_all',
        PROJECT_MEMBER_OR_ADMIN,
        'Replace the metadata of a server.',
        [('PUT', _META_PATH)],
    ),
    rule(
        METADATA % 'update',
        PROJECT_MEMBER_OR_ADMIN,
        'Set one metadata item of a server.',
        [('PUT', _META_PATH + '/{key}')],
    ),
    rule(
        METADATA % 'delete',
        PROJECT_MEMBER_OR_ADMIN,
        'Delete one metadata item of a server.',
        [('DELETE', _META_PATH + '/{key}')],
    ),
]

TAGS = 'os_compute_api:os-server-tags:%s'
_TAGS_PATH = '/servers/{server_id}/tags'
tags = [
    rule(
        TAGS % 'index',
        PROJECT_READER_OR_ADMIN,
        'List the tags of a server.',
        [('GET', _TAGS_PATH)],
    ),
    rule(
        TAGS % 'show',
        PROJECT_READER_OR_ADMIN,
        'Check a tag of a server.',
        [('GET', _TAGS_PATH + '/{tag}')],
    ),
    rule(
        TAGS % 'update',
        PROJECT_MEMBER_OR_ADMIN,
        'Add a tag to a server.',
        [('PUT', _TAGS_PATH + '/{tag}')],
    ),
    rule(
        TAGS % 'update_all',
        PROJECT_MEMBER_OR_ADMIN,
        'Replace the tags of a server.',
        [('PUT', _TAGS_PATH)],
    ),
    rule(
        TAGS % 'delete',
        PROJECT_MEMBER_OR_ADMIN,
        'Remove a tag from a server.',
        [('DELETE', _TAGS_PATH + '/{tag}')],
    ),
    rule(
        TAGS % 'delete_all',
        PROJECT_MEMBER_OR_ADMIN,
        'Remove every tag of a server.',
        [('DELETE', _TAGS_PATH)],
    ),
]

rules = (
    power
    + pause_suspend
    + shelve
    + rescue
    + lock
    + deferred_delete
    + instance_actions
    + metadata
    + tags
)
