"""Request schema of PUT /os-quota-sets/{project_id} (as upstream's):
the resources a microversion shows may be set, each an integer (or a
string of digits) from -1 (unlimited) to 2**31 - 1."""

from typing import Any

from nova_lite.api.schemas.services import BOOLEAN

MAX_LIMIT = 0x7FFFFFFF
LIMIT = {
    'type': ['integer', 'string'],
    'pattern': '^-?[0-9]+$',
    'minimum': -1,
    'maximum': MAX_LIMIT,
    'maxLength': 20,
}


def update(resources: list[str]) -> dict[str, Any]:
    properties: dict[str, Any] = {name: LIMIT for name in resources}
    properties['force'] = BOOLEAN
    return {
        'type': 'object',
        'properties': {
            'quota_set': {
                'type': 'object',
                'properties': properties,
                'additionalProperties': False,
            },
        },
        'required': ['quota_set'],
        'additionalProperties': False,
    }


def update_class(resources: list[str]) -> dict[str, Any]:
    """PUT /os-quota-class-sets/{id}: the resources, no ``force``."""
    return {
        'type': 'object',
        'properties': {
            'quota_class_set': {
                'type': 'object',
                'properties': {name: LIMIT for name in resources},
                'additionalProperties': False,
            },
        },
        'required': ['quota_class_set'],
        'additionalProperties': False,
    }
