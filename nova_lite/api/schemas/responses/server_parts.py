"""Bodies of a server's sub-resources and of the other per-project
resources: instance actions, server groups, metadata, tags, volume
attachments, password, shares, consoles, external events, tenant
usage, the usage audit log (nova_lite/api/handlers/...)."""

from nova_lite.api import microversion as mv
from nova_lite.api.schemas.responses import INTEGER
from nova_lite.api.schemas.responses import LINKS
from nova_lite.api.schemas.responses import NULLABLE_STRING
from nova_lite.api.schemas.responses import NULLABLE_TIME
from nova_lite.api.schemas.responses import NUMBER
from nova_lite.api.schemas.responses import STRING
from nova_lite.api.schemas.responses import STRING_MAP
from nova_lite.api.schemas.responses import STRINGS
from nova_lite.api.schemas.responses import TIME
from nova_lite.api.schemas.responses import Schema
from nova_lite.api.schemas.responses import array
from nova_lite.api.schemas.responses import obj
from nova_lite.api.schemas.responses import since
from nova_lite.api.schemas.responses import titled
from nova_lite.api.schemas.responses import until
from nova_lite.api.schemas.responses import wrapped

_ACTION = {
    'action': STRING,
    'instance_uuid': STRING,
    'request_id': STRING,
    'user_id': NULLABLE_STRING,
    'project_id': NULLABLE_STRING,
    'start_time': TIME,
    'message': NULLABLE_STRING,
}
_UPDATED = {'updated_at': since(mv.ACTION_PAGING, NULLABLE_TIME)}
_EVENT = obj(
    {
        'event': STRING,
        'start_time': NULLABLE_TIME,
        'finish_time': NULLABLE_TIME,
        'result': NULLABLE_STRING,
    },
    {
        'traceback': {**NULLABLE_STRING, 'description': 'administrators'},
        'host': since(
            f'{mv.ACTION_EVENT_HOST} (administrators)', NULLABLE_STRING
        ),
        'hostId': since(mv.ACTION_EVENT_HOST, STRING),
        'details': since(mv.ACTION_EVENT_DETAILS, NULLABLE_STRING),
    },
)
INSTANCE_ACTIONS: Schema = wrapped(
    'instanceActions',
    array(obj(_ACTION, _UPDATED)),
    {'links': since(mv.ACTION_PAGING, LINKS)},
)
INSTANCE_ACTION: Schema = wrapped(
    'instanceAction',
    obj(
        _ACTION,
        {
            **_UPDATED,
            'events': {
                **array(_EVENT),
                'description': 'administrators; everyone since 2.51',
            },
        },
    ),
)

SERVER_GROUP: Schema = titled(
    'ServerGroup',
    obj(
        {
            'id': STRING,
            'name': STRING,
            'members': STRINGS,
        },
        {
            'policies': until(mv.before(mv.SERVER_GROUP_POLICY), STRINGS),
            'metadata': until(
                mv.before(mv.SERVER_GROUP_POLICY),
                {'type': 'object', 'maxProperties': 0},
            ),
            'policy': since(mv.SERVER_GROUP_POLICY, STRING),
            'rules': since(mv.SERVER_GROUP_POLICY, {'type': 'object'}),
            'project_id': since(mv.SERVER_GROUP_OWNER, STRING),
            'user_id': since(mv.SERVER_GROUP_OWNER, STRING),
        },
    ),
)
SERVER_GROUPS: Schema = wrapped('server_groups', array(SERVER_GROUP))
SERVER_GROUP_SHOW: Schema = wrapped('server_group', SERVER_GROUP)

METADATA: Schema = wrapped('metadata', STRING_MAP)
META: Schema = wrapped(
    'meta', {**STRING_MAP, 'minProperties': 1, 'maxProperties': 1}
)
TAGS: Schema = wrapped('tags', STRINGS)
VOLUME_ATTACHMENTS: Schema = wrapped(
    'volumeAttachments', array({'type': 'object'})
)
PASSWORD: Schema = obj({'password': STRING})
_SHARE: Schema = obj(
    {'share_id': STRING, 'status': STRING, 'tag': STRING},
    {'uuid': STRING, 'export_location': STRING},
)
SHARES: Schema = wrapped('shares', array(_SHARE))
SHARE: Schema = wrapped('share', _SHARE)
REMOTE_CONSOLE: Schema = wrapped(
    'remote_console', obj({'protocol': STRING, 'type': STRING, 'url': STRING})
)
CONSOLE_TOKEN: Schema = wrapped(
    'console',
    STRING_MAP
    | {'additionalProperties': {'type': ['string', 'integer', 'null']}},
)
EXTERNAL_EVENTS: Schema = wrapped(
    'events',
    array(
        obj(
            {
                'name': STRING,
                'server_uuid': STRING,
                'status': STRING,
                'code': INTEGER,
            },
            {'tag': STRING},
        )
    ),
)

_SERVER_USAGE = obj(
    {
        'instance_id': STRING,
        'name': STRING,
        'hours': NUMBER,
        'memory_mb': INTEGER,
        'local_gb': INTEGER,
        'vcpus': INTEGER,
        'tenant_id': STRING,
        'flavor': STRING,
        'started_at': TIME,
        'ended_at': NULLABLE_TIME,
        'state': STRING,
        'uptime': INTEGER,
    }
)
_USAGE = obj(
    {
        'tenant_id': STRING,
        'total_local_gb_usage': NUMBER,
        'total_vcpus_usage': NUMBER,
        'total_memory_mb_usage': NUMBER,
        'total_hours': NUMBER,
        'start': TIME,
        'stop': TIME,
    },
    {'server_usages': array(_SERVER_USAGE)},
)
_USAGE_PAGE = {'tenant_usages_links': since(mv.USAGE_PAGING, LINKS)}
USAGES: Schema = wrapped('tenant_usages', array(_USAGE), _USAGE_PAGE)
USAGE: Schema = wrapped(
    'tenant_usage',
    {'anyOf': [_USAGE, obj({})]},
    {'tenant_usage_links': since(mv.USAGE_PAGING, LINKS)},
)

_AUDIT_LOG = obj(
    {
        'period_beginning': STRING,
        'period_ending': STRING,
        'num_hosts': INTEGER,
        'num_hosts_done': INTEGER,
        'num_hosts_running': INTEGER,
        'num_hosts_not_run': INTEGER,
        'hosts_not_run': STRINGS,
        'total_instances': INTEGER,
        'total_errors': INTEGER,
        'overall_status': STRING,
        'log': {'type': 'object'},
    }
)
AUDIT_LOGS: Schema = wrapped('instance_usage_audit_logs', _AUDIT_LOG)
AUDIT_LOG: Schema = wrapped('instance_usage_audit_log', _AUDIT_LOG)

TOPOLOGY: Schema = obj(
    {
        'nodes': array({'type': 'object'}),
        'pagesize_kb': {'type': ['integer', 'null']},
    }
)
DIAGNOSTICS: Schema = {
    'type': 'object',
    'description': 'free-form until 2.47, the standard fields since 2.48',
}
