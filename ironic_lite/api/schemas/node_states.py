"""JSON schemas of the node state changes and maintenance requests."""

from typing import Any

from ironic_lite.common import states
from ironic_lite.common import step_requests

CLEAN_STEPS: dict[str, Any] = {
    'type': 'array',
    'items': {
        'type': 'object',
        'properties': {
            # The interfaces that may have clean steps (upstream's), and
            # 'conductor': steps of the conductor itself (hold).
            'interface': {
                'enum': [*step_requests.INTERFACE_ORDER, 'conductor']
            },
            'step': {'type': 'string', 'minLength': 1},
            'args': {'type': 'object'},
        },
        'required': ['interface', 'step'],
        'additionalProperties': False,
    },
}

SERVICE_STEPS: dict[str, Any] = {
    'type': 'array',
    'items': {
        'type': 'object',
        'properties': {
            'interface': {'enum': list(step_requests.INTERFACE_ORDER)},
            'step': {'type': 'string', 'minLength': 1},
            'args': {'type': 'object'},
        },
        'required': ['interface', 'step'],
        'additionalProperties': False,
    },
}

#: ``PUT .../states/raid`` (1.12): the target RAID configuration.
RAID: dict[str, Any] = {'type': 'object'}

#: One deploy step (upstream's DEPLOY_STEP_SCHEMA).
DEPLOY_STEP: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'args': {'type': 'object'},
        'interface': {
            'type': 'string',
            'enum': [
                'vendor',
                'power',
                'management',
                'firmware',
                'deploy',
                'bios',
                'raid',
            ],
        },
        # An INTEGER column holds it (deploy template steps); a string
        # of up to nine digits stays below 2**31 as well.
        'priority': {
            'anyOf': [
                {'type': 'integer', 'minimum': 0, 'maximum': 2**31 - 1},
                {'type': 'string', 'minLength': 1, 'pattern': '^[0-9]{1,9}$'},
            ]
        },
        'step': {'type': 'string', 'minLength': 1},
    },
    'required': ['interface', 'step', 'args', 'priority'],
    'additionalProperties': False,
}

PROVISION: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'target': {'type': 'string'},
        'clean_steps': CLEAN_STEPS,
        # 1.87, with the service target; its steps are checked against
        # SERVICE_STEPS after the version, as upstream.
        'service_steps': {'type': ['array', 'null']},
        # 1.92, with clean and service: the runbook's steps instead.
        'runbook': {'type': ['string', 'null']},
        # 1.70 with clean, 1.108 with service: steps run out of band,
        # no ramdisk is booted either way.
        'disable_ramdisk': {'type': 'boolean'},
        # A gzipped, base64 encoded ISO or a URL, or (1.56) the JSON
        # documents to build one from.
        'configdrive': {'type': ['string', 'object', 'null']},
        # 1.38, with the rescue target.
        'rescue_password': {'type': ['string', 'null']},
        # 1.69, with the active (deploy) and rebuild targets.
        'deploy_steps': {'type': ['array', 'null'], 'items': DEPLOY_STEP},
    },
    'required': ['target'],
    'additionalProperties': False,
}

POWER: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'target': {'enum': sorted(states.POWER_TARGETS)},
        # Seconds; bounded like every integer of a request (2**31 - 1).
        'timeout': {'type': 'integer', 'minimum': 1, 'maximum': 2**31 - 1},
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
