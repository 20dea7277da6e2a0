"""JSON schemas of volume connector and target requests (upstream's,
with the lengths of the columns, so that a value too long is a 400
on every database)."""

from typing import Any

from ironic_lite.api.schemas.nodes import UUID_PATTERN

_UUID = {'type': 'string', 'pattern': UUID_PATTERN}
_EXTRA = {'type': ['object', 'null']}
_INT32 = {'type': 'integer', 'minimum': -(2**31), 'maximum': 2**31 - 1}

CONNECTOR_FIELDS: dict[str, Any] = {
    'connector_id': {'type': 'string', 'maxLength': 255},
    'extra': _EXTRA,
    'node_uuid': {'type': 'string'},
    'type': {'type': 'string', 'maxLength': 32},
}
TARGET_FIELDS: dict[str, Any] = {
    'boot_index': _INT32,
    'extra': _EXTRA,
    'node_uuid': {'type': 'string'},
    'properties': _EXTRA,
    'volume_id': {'type': 'string', 'maxLength': 36},
    'volume_type': {'type': 'string', 'maxLength': 64},
}


def _create(fields: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        'type': 'object',
        'properties': {**fields, 'uuid': {'type': ['string', 'null']}},
        'required': required,
        'additionalProperties': False,
    }


CONNECTOR_CREATE = _create(
    CONNECTOR_FIELDS, ['connector_id', 'node_uuid', 'type']
)
TARGET_CREATE = _create(
    TARGET_FIELDS, ['boot_index', 'node_uuid', 'volume_id', 'volume_type']
)

#: Upstream's JSON patch of volume resources: add, replace and remove,
#: paths made of word characters and dashes.
PATCH: dict[str, Any] = {
    'type': 'array',
    'items': {
        'type': 'object',
        'properties': {
            'path': {'type': 'string', 'pattern': r'^(/[\w-]+)+$'},
            'op': {'type': 'string', 'enum': ['add', 'replace', 'remove']},
            'value': {},
        },
        'additionalProperties': False,
        'required': ['op', 'path'],
    },
}

UUID = _UUID
