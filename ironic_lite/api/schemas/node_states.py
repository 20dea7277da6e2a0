"""JSON schemas of the node state changes and maintenance requests."""

from typing import Any

from ironic_lite.common import states

CLEAN_STEPS: dict[str, Any] = {
    'type': 'array',
    'items': {
        'type': 'object',
        'properties': {
            'interface': {'enum': ['power', 'management', 'deploy']},
            'step': {'type': 'string', 'minLength': 1},
            'args': {'type': 'object'},
        },
        'required': ['interface', 'step'],
        'additionalProperties': False,
    },
}

PROVISION: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'target': {'type': 'string'},
        'clean_steps': CLEAN_STEPS,
        # Accepted, unused: the clients may send them.
        'disable_ramdisk': {'type': 'boolean'},
    },
    'required': ['target'],
    'additionalProperties': False,
}

POWER: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'target': {'enum': sorted(states.POWER_TARGETS)},
        'timeout': {'type': 'integer', 'minimum': 1},
    },
    'required': ['target'],
    'additionalProperties': False,
}

MAINTENANCE: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'reason': {'type': ['string', 'null'], 'maxLength': 4096},
    },
    'additionalProperties': False,
}
