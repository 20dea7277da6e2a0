"""Nodes as the API shows them (:mod:`ironic_lite.api.views.nodes`):
every field of every version, typed; which of them a node shows depends
on the version and ``?fields=``, so only ``links`` is always there."""

from ironic_lite.api.schemas.responses import common as c
from ironic_lite.api.views import nodes as views

_S = c.STRING_OR_NULL
_TYPES: dict[str, c.Schema] = {
    'uuid': c.STRING,
    'driver': c.STRING,
    'driver_info': c.OBJECT,
    'driver_internal_info': c.OBJECT,
    'extra': c.OBJECT,
    'instance_info': c.OBJECT,
    'properties': c.OBJECT,
    'maintenance': c.BOOLEAN,
    'console_enabled': c.BOOLEAN,
    'created_at': c.TIME,
    'updated_at': c.TIME_OR_NULL,
    'provision_updated_at': c.TIME_OR_NULL,
    'inspection_started_at': c.TIME_OR_NULL,
    'inspection_finished_at': c.TIME_OR_NULL,
    'clean_step': c.OBJECT_OR_NULL,
    'deploy_step': c.OBJECT_OR_NULL,
    'service_step': c.OBJECT_OR_NULL,
    'raid_config': c.OBJECT_OR_NULL,
    'target_raid_config': c.OBJECT_OR_NULL,
    'network_data': c.OBJECT_OR_NULL,
    'automated_clean': c.BOOLEAN_OR_NULL,
    'protected': c.BOOLEAN,
    'retired': c.BOOLEAN_OR_NULL,
    'secure_boot': c.BOOLEAN_OR_NULL,
    'disable_power_off': c.BOOLEAN_OR_NULL,
    'traits': {'type': 'array', 'items': c.STRING},
    'links': c.LINKS,
    'ports': c.LINKS,
    'states': c.LINKS,
    'portgroups': c.LINKS,
    'volume': c.LINKS,
    'conductor_group': c.STRING,
}
#: Every field (the rest are strings or null).
FIELDS = {name: _TYPES.get(name, _S) for name in views.FIELD_VERSIONS}
NODE = c.resource(
    FIELDS, views.FIELD_VERSIONS, required=['links'], title='Node'
)
#: ``GET /v1/nodes`` and ``/v1/nodes/detail``.
NODES = c.page('nodes', NODE)

#: ``GET /v1/nodes/{node_ident}/states``.
STATES = c.resource(
    {
        'console_enabled': c.BOOLEAN,
        'last_error': _S,
        'power_state': _S,
        'provision_state': _S,
        'provision_updated_at': c.TIME_OR_NULL,
        'target_power_state': _S,
        'target_provision_state': _S,
        'raid_config': c.OBJECT,
        'target_raid_config': c.OBJECT,
        'boot_mode': _S,
        'secure_boot': c.BOOLEAN_OR_NULL,
    },
    {
        'raid_config': '1.12',
        'target_raid_config': '1.12',
        'boot_mode': '1.75',
        'secure_boot': '1.75',
    },
    required=[
        'console_enabled',
        'last_error',
        'power_state',
        'provision_state',
        'provision_updated_at',
        'target_power_state',
        'target_provision_state',
    ],
)
