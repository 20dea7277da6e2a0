"""Request schemas of the os-services API (as upstream's)."""

import copy
from typing import Any

# Upstream's parameter_types.boolean: JSON booleans and their spellings.
BOOLEAN = {
    'type': ['boolean', 'string'],
    'enum': [
        True,
        'True',
        'TRUE',
        'true',
        '1',
        'ON',
        'On',
        'on',
        'YES',
        'Yes',
        'yes',
        False,
        'False',
        'FALSE',
        'false',
        '0',
        'OFF',
        'Off',
        'off',
        'NO',
        'No',
        'no',
    ],
}
_HOSTNAME = {
    'type': 'string',
    'minLength': 1,
    'maxLength': 255,
    'pattern': '^[a-zA-Z0-9-._]*$',
}
_SHORT_STRING = {'type': 'string', 'minLength': 1, 'maxLength': 255}

# PUT /os-services/{enable,disable,disable-log-reason}, 2.1 - 2.10.
legacy_update: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'host': _HOSTNAME,
        'binary': _SHORT_STRING,
        'disabled_reason': _SHORT_STRING,
    },
    'required': ['host', 'binary'],
    'additionalProperties': False,
}

# 2.11 - 2.52: also PUT /os-services/force-down.
legacy_update_v211 = copy.deepcopy(legacy_update)
legacy_update_v211['properties']['forced_down'] = BOOLEAN

# 2.53: PUT /os-services/{service_uuid}. Nothing is required by the
# schema; the handler asks for status or forced_down.
update_v253 = {
    'type': 'object',
    'properties': {
        'status': {'type': 'string', 'enum': ['enabled', 'disabled']},
        'disabled_reason': _SHORT_STRING,
        'forced_down': BOOLEAN,
    },
    'additionalProperties': False,
}

#: What the OpenAPI document gives for the legacy actions: the handler's
#: schema, and only nova-compute services can be updated (the handler
#: answers 400 for another binary, as upstream, after the schema).
documented_legacy_update = copy.deepcopy(legacy_update_v211)
documented_legacy_update['properties']['binary'] = {
    'type': 'string',
    'enum': ['nova-compute'],
}
