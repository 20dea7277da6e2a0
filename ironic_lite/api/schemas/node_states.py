"""JSON schemas of the node state changes and maintenance requests."""

from typing import Any

from ironic_lite.common import states

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

#: ``PUT .../states/raid`` (1.12): the target RAID configuration.
RAID: dict[str, Any] = {'type': 'object'}

PROVISION: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'target': {'type': 'string'},
        'clean_steps': CLEAN_STEPS,
        # 1.70; only false is accepted (no ramdisk is booted).
        'disable_ramdisk': {'type': 'boolean'},
        # A gzipped, base64 encoded ISO or a URL (a JSON object to build
        # one from is upstream's 1.56, not served).
        'configdrive': {'type': ['string', 'object', 'null']},
    },
    'required': ['target'],
    'additionalProperties': False,
}

POWER: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'target': {'enum': sorted(states.POWER_TARGETS)},
        # Seconds; bounded like every integer of a request (2**31 - 1).
        'timeout': {'type': 'integer', 'minimum': 1,
                    'maximum': 2**31 - 1},
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
