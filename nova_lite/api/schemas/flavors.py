"""Request schemas of the flavor API."""

from typing import Any

from nova_lite.api import microversion as mv

_NAME = {
    'type': 'string',
    'minLength': 1,
    'maxLength': 255,
    'pattern': r'^(?! )[^\x00-\x1f]*(?<! )$',
}
# Strings of digits are range-checked by the handler (util.bounded_int).
_MAX_INT = 2**31 - 1
_NON_NEGATIVE = {
    'type': ['integer', 'string'],
    'pattern': '^[0-9]+$',
    'minimum': 0,
    'maximum': _MAX_INT,
}
_POSITIVE = {
    'type': ['integer', 'string'],
    'pattern': '^[0-9]*[1-9][0-9]*$',
    'minimum': 1,
    'maximum': _MAX_INT,
}

#: Upstream's boolean: true/false or one of these strings.
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

# Printable text of up to 64 KiB, or null (2.55).
_DESCRIPTION = {
    'type': ['string', 'null'],
    'minLength': 0,
    'maxLength': 65535,
    'pattern': r'^[^\x00-\x08\x0b\x0c\x0e-\x1f]*$',
}

create: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'flavor': {
            'type': 'object',
            'properties': {
                'name': _NAME,
                # A number too (its text is the id), as upstream.
                'id': {
                    'type': ['string', 'number', 'null'],
                    'minLength': 1,
                    'maxLength': 255,
                    'pattern': r'^(?! )[\w. -]+(?<! )$',
                },
                'ram': _POSITIVE,
                'vcpus': _POSITIVE,
                'disk': _NON_NEGATIVE,
                'OS-FLV-EXT-DATA:ephemeral': _NON_NEGATIVE,
                'swap': {
                    'type': ['integer', 'string'],
                    'pattern': '^[0-9]*$',
                    'minimum': 0,
                    'maximum': _MAX_INT,
                },
                'rxtx_factor': {
                    'type': ['number', 'string'],
                    'pattern': r'^[0-9]+(\.[0-9]+)?$',
                    'minimum': 0,
                    'exclusiveMinimum': True,
                    'maximum': 3.40282e38,
                },
                'os-flavor-access:is_public': BOOLEAN,
            },
            'required': ['name', 'ram', 'vcpus', 'disk'],
            'additionalProperties': False,
        },
    },
    'required': ['flavor'],
    'additionalProperties': False,
}


def create_for(version: Any) -> dict[str, Any]:
    """The create schema at ``version``: ``description`` from 2.55."""
    if not version.at_least(mv.FLAVOR_DESCRIPTION):
        return create
    flavor = dict(create['properties']['flavor'])
    flavor['properties'] = {
        **flavor['properties'],
        'description': _DESCRIPTION,
    }
    return {**create, 'properties': {'flavor': flavor}}


update = {
    'type': 'object',
    'properties': {
        'flavor': {
            'type': 'object',
            'properties': {'description': _DESCRIPTION},
            'required': ['description'],
            'additionalProperties': False,
        },
    },
    'required': ['flavor'],
    'additionalProperties': False,
}
