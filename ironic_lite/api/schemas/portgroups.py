"""JSON schemas of portgroup requests: upstream's, with the lengths of
the columns (a value too long is a 400 on every database)."""

from typing import Any

from ironic_lite.api.schemas.volume import PATCH

FIELDS: dict[str, Any] = {
    'address': {'type': ['string', 'null']},
    'category': {'type': ['string', 'null'], 'maxLength': 80},
    'extra': {'type': ['object', 'null']},
    'mode': {'type': ['string', 'null'], 'maxLength': 255},
    'name': {'type': ['string', 'null'], 'maxLength': 255},
    'node_uuid': {'type': 'string'},
    'physical_network': {'type': ['string', 'null'], 'maxLength': 64},
    'properties': {'type': ['object', 'null']},
    'standalone_ports_supported': {'type': ['string', 'boolean', 'null']},
    'uuid': {'type': ['string', 'null']},
}

CREATE: dict[str, Any] = {
    'type': 'object',
    'properties': FIELDS,
    'required': ['node_uuid'],
    'additionalProperties': False,
}

#: What a JSON patch may change (upstream's PATCH_ALLOWED_FIELDS).
PATCHABLE = (
    'address',
    'extra',
    'mode',
    'name',
    'node_uuid',
    'properties',
    'standalone_ports_supported',
    'physical_network',
    'category',
)

__all__ = ['CREATE', 'FIELDS', 'PATCH', 'PATCHABLE']
