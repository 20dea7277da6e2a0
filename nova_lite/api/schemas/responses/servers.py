"""Server bodies (nova_lite/api/views/servers.py): list, detail, show,
create, update, and the answers of ``POST /servers/{id}/action``."""

from nova_lite.api import microversion as mv
from nova_lite.api.schemas.responses import BOOLEAN
from nova_lite.api.schemas.responses import INTEGER
from nova_lite.api.schemas.responses import LINKS
from nova_lite.api.schemas.responses import NULLABLE_INTEGER
from nova_lite.api.schemas.responses import NULLABLE_STRING
from nova_lite.api.schemas.responses import NULLABLE_TIME
from nova_lite.api.schemas.responses import STRING
from nova_lite.api.schemas.responses import STRING_MAP
from nova_lite.api.schemas.responses import STRINGS
from nova_lite.api.schemas.responses import TIME
from nova_lite.api.schemas.responses import Schema
from nova_lite.api.schemas.responses import array
from nova_lite.api.schemas.responses import obj
from nova_lite.api.schemas.responses import one_of
from nova_lite.api.schemas.responses import since
from nova_lite.api.schemas.responses import titled
from nova_lite.api.schemas.responses import until
from nova_lite.api.schemas.responses import wrapped

BRIEF: Schema = titled(
    'ServerBrief', obj({'id': STRING, 'name': STRING, 'links': LINKS})
)

_IMAGE: Schema = one_of(
    {'type': 'string', 'maxLength': 0},  # booted from a volume
    obj(
        {'id': STRING, 'links': LINKS},
        {'properties': since(mv.IMAGE_PROPERTIES, STRING_MAP)},
    ),
)

_FLAVOR: Schema = one_of(
    until(mv.before(mv.EMBEDDED_FLAVOR), obj({'id': STRING, 'links': LINKS})),
    since(
        mv.EMBEDDED_FLAVOR,
        obj(
            {
                'vcpus': NULLABLE_INTEGER,
                'ram': NULLABLE_INTEGER,
                'disk': NULLABLE_INTEGER,
                'ephemeral': NULLABLE_INTEGER,
                'swap': NULLABLE_INTEGER,
                'original_name': NULLABLE_STRING,
                'extra_specs': STRING_MAP,
            }
        ),
    ),
)

_FAULT: Schema = obj(
    {'code': INTEGER, 'message': STRING}, {'created': TIME, 'details': STRING}
)

#: Fields every server view has.
_ALWAYS: Schema = {
    'id': STRING,
    'name': STRING,
    'links': LINKS,
    'status': STRING,
    'tenant_id': STRING,
    'user_id': STRING,
    'metadata': STRING_MAP,
    'hostId': STRING,
    'image': _IMAGE,
    'flavor': _FLAVOR,
    'created': TIME,
    'updated': TIME,
    'addresses': {'type': 'object'},
    'accessIPv4': STRING,
    'accessIPv6': STRING,
    'OS-DCF:diskConfig': {'type': 'string', 'enum': ['AUTO', 'MANUAL']},
}

#: Fields of show and detail that update and rebuild leave out before
#: 2.75.
_EXTENDED: Schema = {
    'OS-EXT-AZ:availability_zone': STRING,
    'config_drive': STRING,
    'key_name': NULLABLE_STRING,
    'OS-SRV-USG:launched_at': NULLABLE_TIME,
    'OS-SRV-USG:terminated_at': NULLABLE_TIME,
    'OS-EXT-STS:task_state': NULLABLE_STRING,
    'OS-EXT-STS:vm_state': STRING,
    'OS-EXT-STS:power_state': INTEGER,
    'os-extended-volumes:volumes_attached': array({'type': 'object'}),
}

_OPTIONAL: Schema = {
    'progress': INTEGER,
    'fault': _FAULT,
    # Administrators only.
    'OS-EXT-SRV-ATTR:host': NULLABLE_STRING,
    'OS-EXT-SRV-ATTR:hypervisor_hostname': NULLABLE_STRING,
    'OS-EXT-SRV-ATTR:instance_name': STRING,
    'OS-EXT-SRV-ATTR:reservation_id': since(mv.EXTENDED_SERVER_ATTRS, STRING),
    'OS-EXT-SRV-ATTR:launch_index': since(mv.EXTENDED_SERVER_ATTRS, INTEGER),
    'OS-EXT-SRV-ATTR:hostname': since(
        '2.3 (administrators), 2.90 (everyone)', NULLABLE_STRING
    ),
    'OS-EXT-SRV-ATTR:kernel_id': since(mv.EXTENDED_SERVER_ATTRS, STRING),
    'OS-EXT-SRV-ATTR:ramdisk_id': since(mv.EXTENDED_SERVER_ATTRS, STRING),
    'OS-EXT-SRV-ATTR:root_device_name': since(
        mv.EXTENDED_SERVER_ATTRS, NULLABLE_STRING
    ),
    'OS-EXT-SRV-ATTR:user_data': since(
        mv.EXTENDED_SERVER_ATTRS, NULLABLE_STRING
    ),
    'locked': since(mv.SERVER_LOCKED, BOOLEAN),
    'host_status': since(f'{mv.HOST_STATUS} (administrators)', STRING),
    'description': since(mv.SERVER_DESCRIPTION, NULLABLE_STRING),
    'tags': since(mv.SERVER_TAGS, STRINGS),
    'trusted_image_certificates': since(
        mv.TRUSTED_CERTS, {'type': ['array', 'null'], 'items': STRING}
    ),
    'server_groups': since(
        f'{mv.SERVER_GROUPS_SHOWN} (show, update, rebuild)', STRINGS
    ),
    'locked_reason': since(mv.LOCKED_REASON, NULLABLE_STRING),
    'pinned_availability_zone': since(
        mv.PINNED_AVAILABILITY_ZONE, NULLABLE_STRING
    ),
    'scheduler_hints': since(mv.SCHEDULER_HINTS, {'type': 'object'}),
}

#: One server as show and detail render it.
SERVER: Schema = titled('Server', obj({**_ALWAYS, **_EXTENDED}, _OPTIONAL))
#: One server as update and rebuild answer it (the extended fields from
#: 2.75; rebuild: ``key_name`` from 2.54).
CHANGED: Schema = titled(
    'ServerChanged', obj(_ALWAYS, {**_EXTENDED, **_OPTIONAL})
)
#: Rebuild adds the admin password.
REBUILT: Schema = titled(
    'ServerRebuilt',
    obj(_ALWAYS, {**_EXTENDED, **_OPTIONAL, 'adminPass': STRING}),
)

_PAGE = {'servers_links': LINKS}
LIST: Schema = wrapped('servers', array(BRIEF), _PAGE)
DETAIL: Schema = wrapped('servers', array(SERVER), _PAGE)
SHOW: Schema = wrapped('server', SERVER)
UPDATE: Schema = wrapped('server', CHANGED)

CREATE: Schema = one_of(
    wrapped(
        'server',
        obj(
            {
                'id': STRING,
                'links': LINKS,
                'OS-DCF:diskConfig': {
                    'type': 'string',
                    'enum': ['AUTO', 'MANUAL'],
                },
                'security_groups': array(obj({'name': STRING})),
            },
            {'adminPass': NULLABLE_STRING},
        ),
    ),
    # ``return_reservation_id``.
    obj({'reservation_id': STRING}),
)

IPS: Schema = obj({'addresses': {'type': 'object'}})

_PASSWORD: Schema = obj({'adminPass': STRING})
_CONSOLE: Schema = wrapped('console', obj({'type': STRING, 'url': STRING}))
_OUTPUT: Schema = obj({'output': STRING})

#: ``POST /servers/{id}/action``: evacuate (200: the password before
#: 2.14, else no body), rescue (200: the password, or ``{}``), the
#: consoles before 2.6 and os-getConsoleOutput (200); rebuild (202: the
#: server), createImage and createBackup (202: ``image_id`` from 2.45,
#: else no body), the
#: others 202 or 204 without a body.
ACTION_200: Schema = one_of(_PASSWORD, obj({}), _CONSOLE, _OUTPUT)
ACTION_202: Schema = one_of(
    wrapped('server', REBUILT),
    since(mv.IMAGE_ID_IN_BODY, obj({'image_id': STRING})),
)
