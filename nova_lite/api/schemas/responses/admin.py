"""Bodies of the operators' resources: os-services, os-hypervisors,
os-availability-zone, os-aggregates, os-migrations (nova_lite/api/
handlers/services.py, hypervisors.py, availability_zones.py,
aggregates.py, migrations.py)."""

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

#: An integer id until 2.52, a uuid from 2.53.
_ID: Schema = {
    'type': ['integer', 'string'],
    'description': 'an integer until 2.52, a uuid since 2.53',
}
_ENABLED: Schema = {'type': 'string', 'enum': ['enabled', 'disabled']}
_UP: Schema = {'type': 'string', 'enum': ['up', 'down']}

SERVICE: Schema = titled(
    'Service',
    obj(
        {
            'id': _ID,
            'binary': STRING,
            'host': STRING,
            'zone': STRING,
            'status': _ENABLED,
            'state': _UP,
            'updated_at': NULLABLE_TIME,
            'disabled_reason': NULLABLE_STRING,
        },
        {'forced_down': since(mv.SERVICE_FORCED_DOWN, BOOLEAN)},
    ),
)
SERVICES: Schema = wrapped('services', array(SERVICE))
SERVICE_UPDATE: Schema = wrapped('service', SERVICE)
#: ``PUT /os-services/{enable,disable,...}`` (until 2.52).
SERVICE_ACTION: Schema = wrapped(
    'service',
    obj(
        {'host': STRING, 'binary': STRING},
        {
            'status': _ENABLED,
            'disabled_reason': NULLABLE_STRING,
            'forced_down': since(mv.SERVICE_FORCED_DOWN, BOOLEAN),
        },
    ),
)

_HOSTED: Schema = array(obj({'name': STRING, 'uuid': STRING}))
_HYPERVISOR_BRIEF = {
    'id': _ID,
    'hypervisor_hostname': STRING,
    'state': _UP,
    'status': _ENABLED,
}
_USAGE = {
    name: until(mv.before(mv.NO_HYPERVISOR_USAGE), INTEGER)
    for name in (
        'vcpus',
        'memory_mb',
        'local_gb',
        'vcpus_used',
        'memory_mb_used',
        'local_gb_used',
        'free_ram_mb',
        'free_disk_gb',
        'current_workload',
        'running_vms',
        'disk_available_least',
    )
}
_DETAIL = {
    'hypervisor_type': STRING,
    'hypervisor_version': NULLABLE_INTEGER,
    'host_ip': NULLABLE_STRING,
    'service': obj(
        {'host': STRING, 'id': _ID, 'disabled_reason': NULLABLE_STRING}
    ),
}
_SERVERS = {'servers': {**_HOSTED, 'description': 'with_servers'}}

HYPERVISOR_BRIEF: Schema = titled(
    'HypervisorBrief', obj(_HYPERVISOR_BRIEF, _SERVERS)
)
HYPERVISOR: Schema = titled(
    'Hypervisor',
    obj(
        {**_HYPERVISOR_BRIEF, **_DETAIL},
        {
            **_SERVERS,
            **_USAGE,
            'cpu_info': until(
                mv.before(mv.NO_HYPERVISOR_USAGE),
                {
                    'type': ['string', 'object'],
                    'description': 'JSON text until 2.27, an object since '
                    '2.28',
                },
            ),
            'uptime': since(mv.NO_HYPERVISOR_USAGE, NULLABLE_STRING),
        },
    ),
)
_PAGE = {'hypervisors_links': since(mv.HYPERVISOR_PAGING, LINKS)}
HYPERVISORS: Schema = wrapped('hypervisors', array(HYPERVISOR_BRIEF), _PAGE)
HYPERVISORS_DETAIL: Schema = wrapped('hypervisors', array(HYPERVISOR), _PAGE)
HYPERVISOR_SHOW: Schema = wrapped('hypervisor', HYPERVISOR)
HYPERVISOR_UPTIME: Schema = wrapped(
    'hypervisor', obj({**_HYPERVISOR_BRIEF, 'uptime': NULLABLE_STRING})
)
STATISTICS: Schema = wrapped(
    'hypervisor_statistics',
    obj(
        {},
        {
            name: INTEGER
            for name in (
                'count',
                'vcpus',
                'memory_mb',
                'local_gb',
                'vcpus_used',
                'memory_mb_used',
                'local_gb_used',
                'free_ram_mb',
                'free_disk_gb',
                'current_workload',
                'running_vms',
                'disk_available_least',
            )
        },
    ),
)

_HOST_SERVICE = obj(
    {'available': BOOLEAN, 'active': BOOLEAN, 'updated_at': NULLABLE_TIME}
)
ZONES: Schema = wrapped(
    'availabilityZoneInfo',
    array(
        obj(
            {
                'zoneName': STRING,
                'zoneState': obj({'available': BOOLEAN}),
                'hosts': one_of(
                    {'type': 'null'},
                    {
                        'type': 'object',
                        'description': 'host -> binary -> its state (detail '
                        'only)',
                        'additionalProperties': {
                            'type': 'object',
                            'additionalProperties': _HOST_SERVICE,
                        },
                    },
                ),
            }
        )
    ),
)

_AGGREGATE_BRIEF = {
    'id': INTEGER,
    'name': STRING,
    'availability_zone': NULLABLE_STRING,
    'created_at': TIME,
    'updated_at': NULLABLE_TIME,
    'deleted_at': NULLABLE_TIME,
    'deleted': BOOLEAN,
}
_UUID = {'uuid': since(mv.AGGREGATE_UUID, STRING)}
AGGREGATE: Schema = titled(
    'Aggregate',
    obj({**_AGGREGATE_BRIEF, 'hosts': STRINGS, 'metadata': STRING_MAP}, _UUID),
)
AGGREGATES: Schema = wrapped('aggregates', array(AGGREGATE))
AGGREGATE_SHOW: Schema = wrapped('aggregate', AGGREGATE)
#: Create answers the aggregate without hosts and metadata.
AGGREGATE_CREATE: Schema = wrapped('aggregate', obj(_AGGREGATE_BRIEF, _UUID))

MIGRATION: Schema = titled(
    'Migration',
    obj(
        {
            'id': INTEGER,
            'source_compute': NULLABLE_STRING,
            'dest_compute': NULLABLE_STRING,
            'source_node': NULLABLE_STRING,
            'dest_node': NULLABLE_STRING,
            'dest_host': NULLABLE_STRING,
            'instance_uuid': STRING,
            'status': STRING,
            'old_instance_type_id': {'type': ['integer', 'string', 'null']},
            'new_instance_type_id': {'type': ['integer', 'string', 'null']},
            'created_at': TIME,
            'updated_at': NULLABLE_TIME,
        },
        {
            'migration_type': since(mv.MIGRATION_TYPE, STRING),
            'links': since(
                f'{mv.MIGRATION_TYPE} (live migrations in progress)', LINKS
            ),
            'uuid': since(mv.MIGRATION_PAGING, STRING),
            'user_id': since(mv.MIGRATION_OWNER, NULLABLE_STRING),
            'project_id': since(mv.MIGRATION_OWNER, NULLABLE_STRING),
        },
    ),
)
MIGRATIONS: Schema = wrapped(
    'migrations',
    array(MIGRATION),
    {'migrations_links': since(mv.MIGRATION_PAGING, LINKS)},
)
