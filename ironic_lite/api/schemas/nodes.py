"""JSON schemas of node create and update (JSON patch) requests."""

from typing import Any

#: Upstream (1.10+): a node name is made of RFC 3986 unreserved
#: characters.
NAME_PATTERN = r'^[a-zA-Z0-9\-._~]+$'

UUID_PATTERN = ('^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?'
                '[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$')

_INTERFACE = {'type': ['string', 'null'], 'minLength': 1,
              'maxLength': 255}
_OBJECT = {'type': 'object'}

#: The dictionary fields, and the most bytes of JSON each may hold (its
#: column is a TEXT: 65,535 bytes on MySQL/MariaDB).
DICT_FIELDS = ('driver_info', 'properties', 'extra', 'instance_info')
MAX_DICT_BYTES = 65535

#: Fields a client may set, at creation or by a patch.
WRITABLE: dict[str, Any] = {
    'name': {'type': ['string', 'null'], 'maxLength': 255,
             'pattern': NAME_PATTERN},
    'driver': {'type': 'string', 'minLength': 1, 'maxLength': 255},
    'driver_info': _OBJECT,
    'properties': _OBJECT,
    'extra': _OBJECT,
    'instance_info': _OBJECT,
    'instance_uuid': {'type': ['string', 'null'],
                      'pattern': UUID_PATTERN},
    'description': {'type': ['string', 'null'], 'maxLength': 4096},
    'resource_class': {'type': ['string', 'null'], 'maxLength': 80},
    'automated_clean': {'type': ['boolean', 'null']},
    'deploy_interface': _INTERFACE,
    'management_interface': _INTERFACE,
    'power_interface': _INTERFACE,
}

CREATE: dict[str, Any] = {
    'type': 'object',
    'properties': {
        **WRITABLE,
        'uuid': {'type': 'string', 'pattern': UUID_PATTERN},
    },
    'required': ['driver'],
    'additionalProperties': False,
}

#: The node after a patch (only the writable fields are compared).
UPDATED: dict[str, Any] = {
    'type': 'object',
    'properties': WRITABLE,
    'required': ['driver'],
}

PATCH: dict[str, Any] = {
    'type': 'array',
    'minItems': 1,
    'items': {
        'type': 'object',
        'properties': {
            'op': {'enum': ['add', 'replace', 'remove', 'move', 'copy',
                            'test']},
            'path': {'type': 'string', 'pattern': '^/'},
            'from': {'type': 'string', 'pattern': '^/'},
            'value': {},
        },
        'required': ['op', 'path'],
        'additionalProperties': False,
    },
}
