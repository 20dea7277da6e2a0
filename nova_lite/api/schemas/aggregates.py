"""Request schemas of os-aggregates (upstream's, 2.1 and later)."""

from typing import Any

NAME = {
    'type': 'string',
    'minLength': 1,
    'maxLength': 255,
    'pattern': r'^(?! )[^\x00-\x1f]*(?<! )$',
}
# Leading and trailing spaces allowed (stripped): update's name.
NAME_WITH_SPACES = {
    'type': 'string',
    'minLength': 1,
    'maxLength': 255,
    'pattern': r'^[^\x00-\x1f]*[^\x00-\x1f ][^\x00-\x1f]*$',
}
# Printable, no ':' (``zone:host`` forces a host), no edge spaces.
AZ_NAME = {
    'type': 'string',
    'minLength': 1,
    'maxLength': 255,
    'pattern': r'^(?! )[^\x00-\x1f:]*(?<! )$',
}
_AZ = {'oneOf': [AZ_NAME, {'type': 'null'}]}
# upstream's fqdn: a host name, underscores allowed.
HOST = {
    'type': 'string',
    'pattern': '^[a-zA-Z0-9-._]*$',
    'minLength': 1,
    'maxLength': 255,
}


def _body(
    key: str, properties: dict[str, Any], required: list[str], **extra: Any
) -> dict[str, Any]:
    inner = {
        'type': 'object',
        'properties': properties,
        'additionalProperties': False,
        **extra,
    }
    if required:
        inner['required'] = required
    return {
        'type': 'object',
        'properties': {key: inner},
        'required': [key],
        'additionalProperties': False,
    }


create = _body('aggregate', {'name': NAME, 'availability_zone': _AZ}, ['name'])
update = _body(
    'aggregate',
    {'name': NAME_WITH_SPACES, 'availability_zone': _AZ},
    [],
    anyOf=[{'required': ['name']}, {'required': ['availability_zone']}],
)
add_host = _body('add_host', {'host': HOST}, ['host'])
remove_host = _body('remove_host', {'host': HOST}, ['host'])
_METADATA_WITH_NULL = {
    'type': 'object',
    'patternProperties': {
        '^[a-zA-Z0-9-_:. ]{1,255}$': {
            'type': ['string', 'null'],
            'maxLength': 255,
        }
    },
    'additionalProperties': False,
}
set_metadata = _body(
    'set_metadata', {'metadata': _METADATA_WITH_NULL}, ['metadata']
)
ACTIONS = {
    'add_host': add_host,
    'remove_host': remove_host,
    'set_metadata': set_metadata,
}
action = {'oneOf': list(ACTIONS.values())}

# 2.81: POST /os-aggregates/{id}/images.
images: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'cache': {
            'type': 'array',
            'minItems': 1,
            'items': {
                'type': 'object',
                'properties': {'id': {'type': 'string', 'format': 'uuid'}},
                'required': ['id'],
                'additionalProperties': False,
            },
        },
    },
    'required': ['cache'],
    'additionalProperties': False,
}
