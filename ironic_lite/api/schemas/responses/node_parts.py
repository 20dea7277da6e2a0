"""What a node's sub-resources answer: traits, VIFs, history, states
of its management interfaces, its links to other nodes."""

from ironic_lite.api.schemas.responses import common as c
from ironic_lite.api.views import node_history

_S = c.STRING_OR_NULL
_STRINGS = {'type': 'array', 'items': c.STRING}

VIFS = c.resource(
    {
        'vifs': {
            'type': 'array',
            'items': c.resource({'id': c.STRING}, required=['id']),
        }
    },
    required=['vifs'],
)

_HISTORY_TYPES = {
    'uuid': c.STRING,
    'created_at': c.TIME,
    'duration_seconds': {'type': ['number', 'null']},
}
EVENT = c.resource(
    {
        **{
            name: _HISTORY_TYPES.get(name, _S)
            for name in node_history.DETAIL_VERSIONS
        },
        'links': c.LINKS,
    },
    node_history.DETAIL_VERSIONS,
    required=['uuid', 'created_at', 'links'],
    title='NodeHistoryEvent',
)
HISTORY = c.page('history', EVENT)

BOOT_DEVICE = c.resource(
    {'boot_device': _S, 'persistent': c.BOOLEAN_OR_NULL},
    required=['boot_device', 'persistent'],
)
SUPPORTED_BOOT_DEVICES = c.resource(
    {'supported_boot_devices': _STRINGS}, required=['supported_boot_devices']
)
CONSOLE = c.resource(
    {'console_enabled': c.BOOLEAN, 'console_info': c.OBJECT_OR_NULL},
    required=['console_enabled', 'console_info'],
)
#: interface -> ``{"result": bool|null, "reason": str|null}``.
VALIDATION = {
    'type': 'object',
    'additionalProperties': c.resource(
        {'result': c.BOOLEAN_OR_NULL, 'reason': _S}
    ),
}
CHILDREN = c.resource(
    {'children': _STRINGS, 'links': c.OBJECT}, required=['children']
)
SHARDS = c.resource(
    {
        'shards': {
            'type': 'array',
            'items': c.resource(
                {'name': c.STRING, 'count': c.INTEGER},
                required=['name', 'count'],
            ),
        }
    },
    required=['shards'],
)
INVENTORY = c.resource(
    {'inventory': c.OBJECT_OR_NULL, 'plugin_data': c.OBJECT_OR_NULL},
    required=['inventory'],
)
_STEP = c.resource(
    {
        'interface': c.STRING,
        'step': c.STRING,
        'priority': c.INTEGER,
        'abortable': c.BOOLEAN,
        'argsinfo': c.OBJECT_OR_NULL,
    },
    required=['interface', 'step', 'priority'],
)
CLEANING_STEPS = c.resource(
    {
        'automated': {'type': 'array', 'items': _STEP},
        'manual': {'type': 'array', 'items': _STEP},
    },
    required=['automated', 'manual'],
)
INDICATOR = c.resource(
    {
        'name': c.STRING,
        'component': c.STRING,
        'readonly': c.BOOLEAN,
        'states': _STRINGS,
        'links': c.LINKS,
    },
    required=['name', 'links'],
)
INDICATORS = c.resource(
    {'indicators': {'type': 'array', 'items': INDICATOR}},
    required=['indicators'],
)
INDICATOR_STATE = c.resource({'state': _S}, required=['state'])

_BIOS_REGISTRY: dict[str, c.Schema] = {
    'attribute_type': _S,
    'allowable_values': _STRINGS,
    'lower_bound': {'type': ['integer', 'null']},
    'upper_bound': {'type': ['integer', 'null']},
    'min_length': {'type': ['integer', 'null']},
    'max_length': {'type': ['integer', 'null']},
    'read_only': c.BOOLEAN_OR_NULL,
    'reset_required': c.BOOLEAN_OR_NULL,
    'unique': c.BOOLEAN_OR_NULL,
}
BIOS_SETTING = c.resource(
    {
        'created_at': c.TIME,
        'updated_at': c.TIME_OR_NULL,
        'name': c.STRING,
        'value': _S,
        'links': c.LINKS,
        **{
            name: c.since(schema, '1.74')
            for name, schema in _BIOS_REGISTRY.items()
        },
    },
    required=['created_at', 'updated_at', 'links'],
    title='BiosSetting',
)
BIOS = c.resource(
    {'bios': {'type': 'array', 'items': BIOS_SETTING}}, required=['bios']
)
#: ``GET .../bios/{setting_name}``: ``{name: setting}``.
BIOS_SHOWN = {
    'type': 'object',
    'additionalProperties': BIOS_SETTING,
    'minProperties': 1,
    'maxProperties': 1,
}
FIRMWARE = c.resource(
    {
        'firmware': {
            'type': 'array',
            'items': c.resource(
                {
                    'created_at': c.TIME,
                    'updated_at': c.TIME_OR_NULL,
                    'component': c.STRING,
                    'initial_version': _S,
                    'current_version': _S,
                    'last_version_flashed': _S,
                    'vendor': c.since(_S, '1.114'),
                    'model': c.since(_S, '1.114'),
                    'serial_number': c.since(_S, '1.114'),
                },
                required=['created_at', 'updated_at'],
            ),
        }
    },
    required=['firmware'],
)

#: ``GET .../vmedia`` (1.93): per virtual media device of the BMC, the
#: media it takes, whether one is inserted and its image URL ('' when
#: none).
VMEDIA = {
    'type': 'array',
    'items': c.resource(
        {
            'media_types': {'type': 'array', 'items': c.STRING},
            'inserted': c.BOOLEAN,
            'image': c.STRING_OR_NULL,
        },
        required=['media_types', 'inserted', 'image'],
    ),
}
