"""JSON schemas of node create and update (JSON patch) requests."""

from typing import Any

from ironic_lite.api.schemas import network_data

#: Upstream (1.10+): a node name is made of RFC 3986 unreserved
#: characters.
NAME_PATTERN = r'^[a-zA-Z0-9\-._~]+$'

UUID_PATTERN = (
    '^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?'
    '[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$'
)

_INTERFACE = {'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255}
_OBJECT = {'type': 'object'}
#: Upstream takes "true", "False", "1", "off" ... as booleans too (the
#: openstack CLI sends ``protected=True`` as the string "True").
_BOOLEAN = {'type': ['boolean', 'string', 'null']}
_TEXT = {'type': ['string', 'null']}
_PROJECT = {'type': ['string', 'null'], 'maxLength': 255}

#: Upstream's conductor group names (case insensitive).
CONDUCTOR_GROUP_PATTERN = r'^[a-zA-Z0-9_\-\.]*$'

#: The value a field takes when a request sets it to null (or a patch
#: removes it): these columns have no null.
NULL_MEANS = {
    'protected': False,
    'retired': False,
    'maintenance': False,
    'disable_power_off': False,
    'conductor_group': '',
    'network_data': {},
}

#: The dictionary fields, and the most bytes of JSON each may hold (its
#: column is a TEXT: 65,535 bytes on MySQL/MariaDB).
DICT_FIELDS = (
    'driver_info',
    'properties',
    'extra',
    'instance_info',
    'network_data',
)
MAX_DICT_BYTES = 65535

#: Fields a client may set, at creation or by a patch.
WRITABLE: dict[str, Any] = {
    'name': {
        'type': ['string', 'null'],
        'maxLength': 255,
        'pattern': NAME_PATTERN,
    },
    'driver': {'type': 'string', 'minLength': 1, 'maxLength': 255},
    'driver_info': _OBJECT,
    'properties': _OBJECT,
    'extra': _OBJECT,
    'instance_info': _OBJECT,
    'instance_uuid': {'type': ['string', 'null'], 'pattern': UUID_PATTERN},
    'description': {'type': ['string', 'null'], 'maxLength': 4096},
    'resource_class': {'type': ['string', 'null'], 'maxLength': 80},
    'automated_clean': _BOOLEAN,
    # Upstream's older way in and out of maintenance (no reason; out of
    # it clears the reason and the fault, as the DELETE does).
    'maintenance': _BOOLEAN,
    'deploy_interface': _INTERFACE,
    'management_interface': _INTERFACE,
    'power_interface': _INTERFACE,
    **{
        f'{kind}_interface': _INTERFACE
        for kind in (
            'boot',
            'network',
            'bios',
            'console',
            'firmware',
            'inspect',
            'raid',
            'rescue',
            'storage',
            'vendor',
        )
    },
    'conductor_group': {
        'type': ['string', 'null'],
        'maxLength': 255,
        'pattern': CONDUCTOR_GROUP_PATTERN,
    },
    'protected': _BOOLEAN,
    'protected_reason': _TEXT,
    'owner': _PROJECT,
    'retired': _BOOLEAN,
    'retired_reason': _TEXT,
    'lessee': _PROJECT,
    'network_data': network_data.FIELD,
    'shard': {'type': ['string', 'null'], 'maxLength': 255},
    'parent_node': {'type': ['string', 'null'], 'maxLength': 36},
    'chassis_uuid': {'type': ['string', 'null'], 'pattern': UUID_PATTERN},
    'disable_power_off': _BOOLEAN,
    'instance_name': {
        'type': ['string', 'null'],
        'minLength': 1,
        'maxLength': 255,
    },
}

#: The fields of _BOOLEAN, turned into booleans once validated.
BOOLEAN_FIELDS = (
    'automated_clean',
    'protected',
    'retired',
    'disable_power_off',
    'maintenance',
)

#: Writable by a patch only, as upstream: a node is created unprotected.
PATCH_ONLY = frozenset({'protected', 'protected_reason'})

CREATE: dict[str, Any] = {
    'type': 'object',
    'properties': {
        **{
            name: schema
            for name, schema in WRITABLE.items()
            if name not in PATCH_ONLY
        },
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
            'op': {
                'enum': ['add', 'replace', 'remove', 'move', 'copy', 'test']
            },
            'path': {'type': 'string', 'pattern': '^/'},
            'from': {'type': 'string', 'pattern': '^/'},
            'value': {},
        },
        'required': ['op', 'path'],
        'additionalProperties': False,
    },
}
