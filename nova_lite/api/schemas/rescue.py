"""Request schemas of rescue and unrescue (as upstream's)."""

from typing import Any

rescue: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'rescue': {
            'type': ['object', 'null'],
            'properties': {
                'adminPass': {'type': 'string'},
                'rescue_image_ref': {'type': 'string', 'format': 'uuid'},
            },
            'additionalProperties': False,
        },
    },
    'required': ['rescue'],
    'additionalProperties': False,
}

# Any value, as upstream (it may restrict it to null one day).
unrescue: dict[str, Any] = {
    'type': 'object',
    'properties': {'unrescue': {}},
    'required': ['unrescue'],
    'additionalProperties': False,
}
