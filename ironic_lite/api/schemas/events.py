"""JSON schema of ``POST /v1/events`` (upstream's: network events)."""

from typing import Any

from ironic_lite.api.schemas.nodes import UUID_PATTERN

EVENT_TYPES = [
    'network.bind_port',
    'network.unbind_port',
    'network.delete_port',
]
#: Six pairs of hexadecimal digits, by colons or dashes (what
#: oslo.utils' is_valid_mac accepts).
MAC_PATTERN = r'^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$'
_NULLABLE_UUID = {
    'anyOf': [{'type': 'null'}, {'type': 'string', 'pattern': UUID_PATTERN}]
}

CREATE: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'events': {
            'type': 'array',
            'minItems': 1,
            'items': {
                'type': 'object',
                'properties': {
                    'event': {'type': 'string', 'enum': EVENT_TYPES},
                    'port_id': {'type': 'string', 'pattern': UUID_PATTERN},
                    'mac_address': {'type': 'string', 'pattern': MAC_PATTERN},
                    'status': {'type': 'string'},
                    'device_id': _NULLABLE_UUID,
                    'binding:host_id': _NULLABLE_UUID,
                    'binding:vnic_type': {'type': ['string', 'null']},
                },
                'required': ['event', 'port_id', 'mac_address', 'status'],
                'additionalProperties': False,
            },
        },
    },
    'required': ['events'],
    'additionalProperties': False,
}
