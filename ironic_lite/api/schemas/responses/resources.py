"""Chassis, conductors, drivers, allocations, deploy templates and
runbooks as the API shows them (``?fields=`` may leave out any field
but ``links``)."""

from ironic_lite.api import microversion as mv
from ironic_lite.api.handlers import drivers
from ironic_lite.api.schemas.responses import common as c
from ironic_lite.common import interfaces

_S = c.STRING_OR_NULL
_STRINGS = {'type': 'array', 'items': c.STRING}

CHASSIS = c.resource(
    {
        'uuid': c.STRING,
        'description': _S,
        'extra': c.OBJECT,
        'created_at': c.TIME,
        'updated_at': c.TIME_OR_NULL,
        'links': c.LINKS,
        'nodes': c.LINKS,
    },
    required=['links'],
    title='Chassis',
)
CHASSIS_LIST = c.page('chassis', CHASSIS)

CONDUCTOR = c.resource(
    {
        'hostname': c.STRING,
        'conductor_group': c.STRING,
        'alive': c.BOOLEAN,
        'drivers': _STRINGS,
        'created_at': c.TIME,
        'updated_at': c.TIME_OR_NULL,
        'links': c.LINKS,
    },
    required=['links'],
    title='Conductor',
)
CONDUCTORS = c.page('conductors', CONDUCTOR)

_INTERFACES: dict[str, c.Schema] = {}
for _kind in interfaces.INTERFACE_TYPES:
    _version = max(
        drivers._INTERFACE_SINCE.get(_kind, mv.DRIVER_TYPE),
        mv.DRIVER_TYPE,
        key=lambda v: tuple(map(int, v.split('.'))),
    )
    _INTERFACES[f'default_{_kind}_interface'] = c.since(_S, _version)
    _INTERFACES[f'enabled_{_kind}_interfaces'] = c.since(
        {'type': ['array', 'null'], 'items': c.STRING}, _version
    )
DRIVER = c.resource(
    {
        'name': c.STRING,
        'hosts': _STRINGS,
        'links': c.LINKS,
        'properties': c.since(c.LINKS, mv.STATES_LINK),
        'type': c.since(c.STRING, mv.DRIVER_TYPE),
        **_INTERFACES,
    },
    required=['links'],
    title='Driver',
)
DRIVERS = c.resource(
    {'drivers': {'type': 'array', 'items': DRIVER}}, required=['drivers']
)
#: ``GET /v1/drivers/{name}/properties``: property -> description.
DRIVER_PROPERTIES = {'type': 'object', 'additionalProperties': c.STRING}

ALLOCATION = c.resource(
    {
        'uuid': c.STRING,
        'name': _S,
        'node_uuid': _S,
        'state': c.STRING,
        'last_error': _S,
        'resource_class': _S,
        'traits': _STRINGS,
        'candidate_nodes': _STRINGS,
        'extra': c.OBJECT,
        'owner': c.since(_S, mv.ALLOCATION_OWNER),
        'created_at': c.TIME,
        'updated_at': c.TIME_OR_NULL,
        'links': c.LINKS,
    },
    required=['links'],
    title='Allocation',
)
ALLOCATIONS = c.page('allocations', ALLOCATION)

_STEP = c.resource(
    {
        'interface': c.STRING,
        'step': c.STRING,
        'args': c.OBJECT,
        'priority': c.INTEGER,
        'order': c.INTEGER,
    },
    required=['interface', 'step', 'args'],
)
_STEPS = {'type': 'array', 'items': _STEP}
DEPLOY_TEMPLATE = c.resource(
    {
        'uuid': c.STRING,
        'name': c.STRING,
        'steps': _STEPS,
        'extra': c.OBJECT,
        'created_at': c.TIME,
        'updated_at': c.TIME_OR_NULL,
        'links': c.LINKS,
    },
    required=['links'],
    title='DeployTemplate',
)
DEPLOY_TEMPLATES = c.page('deploy_templates', DEPLOY_TEMPLATE)

RUNBOOK = c.resource(
    {
        'uuid': c.STRING,
        'name': c.STRING,
        'steps': _STEPS,
        'disable_ramdisk': c.BOOLEAN_OR_NULL,
        'public': c.BOOLEAN_OR_NULL,
        'owner': _S,
        'extra': c.OBJECT,
        'created_at': c.TIME,
        'updated_at': c.TIME_OR_NULL,
        'links': c.LINKS,
        'description': c.since(_S, mv.RUNBOOK_TRAITS),
        'traits': c.since(_STRINGS, mv.RUNBOOK_TRAITS),
    },
    required=['links'],
    title='Runbook',
)
RUNBOOKS = c.page('runbooks', RUNBOOK)
#: ``{"traits": [...]}`` of a node or a runbook.
TRAITS = c.resource({'traits': _STRINGS}, required=['traits'])

_RULE_STEP = c.resource(
    {'op': c.STRING, 'args': {}, 'loop': {}, 'multiple': c.STRING},
    required=['op', 'args'],
)
_RULE_STEPS = {
    'type': ['array', 'null'],
    'items': _RULE_STEP,
    'description': 'null for a sensitive rule',
}
INSPECTION_RULE = c.resource(
    {
        'uuid': c.STRING,
        'created_at': c.TIME,
        'updated_at': c.TIME_OR_NULL,
        'description': _S,
        'priority': c.INTEGER,
        'sensitive': c.BOOLEAN,
        'phase': c.STRING,
        'conditions': _RULE_STEPS,
        'actions': _RULE_STEPS,
        'links': c.LINKS,
    },
    required=['links'],
    title='InspectionRule',
)
INSPECTION_RULES = c.page('inspection_rules', INSPECTION_RULE)
#: ``GET /v1/drivers/{name}/raid/logical_disk_properties``.
RAID_PROPERTIES = {'type': 'object', 'additionalProperties': c.STRING}
#: What a vendor passthru method returns (the driver's), and the methods
#: a driver or node offers (name -> its metadata).
ANY: c.Schema = {}
VENDOR_METHODS = {'type': 'object', 'additionalProperties': c.OBJECT}
