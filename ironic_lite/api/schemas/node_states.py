"""JSON schemas of the node state changes and maintenance requests."""

from typing import Any

from ironic_lite.common import states

#: The most bytes of JSON ``clean_steps`` may hold: the conductor keeps
#: them in driver_internal_info (a TEXT column, 65,535 bytes on MySQL).
MAX_CLEAN_STEPS_BYTES = 16384

CLEAN_STEPS: dict[str, Any] = {
    'type': 'array',
    'items': {
        'type': 'object',
        'properties': {
            # 'conductor': steps of the conductor itself (hold).
            'interface': {'enum': ['power', 'management', 'deploy',
                                   'conductor']},
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
