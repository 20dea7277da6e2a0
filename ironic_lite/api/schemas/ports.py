"""JSON schemas of port requests: upstream's, with the lengths of the
columns, so that a value too long is a 400 on every database."""

from typing import Any

from ironic_lite.api.schemas.volume import PATCH

_NULLABLE_BOOL = {'type': ['string', 'boolean', 'null']}

#: ``local_link_connection``: how the port is wired to a switch.
#: Upstream accepts a link to a switch (port_id and switch_id), to a
#: Smart NIC's host (port_id and hostname), an unmanaged link
#: (network_type) or an OVN VTEP switch pair; the VTEP keys are kept on
#: the wire between 1.90 and 1.104 only (see ports_values).
_LINK_PROPERTIES = {
    'port_id': {'type': 'string'},
    'switch_id': {'type': 'string'},
    'hostname': {'type': 'string'},
    'switch_info': {'type': 'string'},
    'network_type': {'type': 'string', 'enum': ['managed', 'unmanaged']},
    'vtep-logical-switch': {'type': 'string'},
    'vtep-physical-switch': {'type': 'string'},
}


def _link(required: list[str], **changes: Any) -> dict[str, Any]:
    properties = {**_LINK_PROPERTIES, **changes}
    return {
        'type': 'object',
        'properties': properties,
        'additionalProperties': False,
        'required': required,
    }


LOCAL_LINK: dict[str, Any] = {
    'anyOf': [
        _link(['port_id', 'switch_id']),
        _link(['port_id', 'hostname']),
        _link(
            ['network_type'],
            network_type={'type': 'string', 'enum': ['unmanaged']},
        ),
        _link(['port_id', 'vtep-logical-switch', 'vtep-physical-switch']),
        {'type': 'object', 'additionalProperties': False},
    ]
}
#: What a Smart NIC port's link must hold.
SMART_NIC_LINK = _link(['port_id', 'hostname'])

FIELDS: dict[str, Any] = {
    'address': {'type': 'string'},
    'extra': {'type': ['object', 'null']},
    'is_smartnic': _NULLABLE_BOOL,
    'local_link_connection': {'type': ['null', 'object']},
    'node_ident': {'type': 'string'},
    'node_uuid': {'type': 'string'},
    'physical_network': {'type': ['string', 'null'], 'maxLength': 64},
    'portgroup_uuid': {'type': ['string', 'null']},
    'pxe_enabled': _NULLABLE_BOOL,
    'uuid': {'type': ['string', 'null']},
    'name': {'type': ['string', 'null'], 'maxLength': 255},
    'description': {'type': ['string', 'null'], 'maxLength': 255},
    'vendor': {'type': ['string', 'null'], 'maxLength': 32},
    'category': {'type': ['string', 'null'], 'maxLength': 80},
    'available_for_dynamic_portgroup': {'type': 'boolean'},
}

CREATE: dict[str, Any] = {
    'type': 'object',
    'properties': FIELDS,
    'required': ['address'],
    'oneOf': [{'required': ['node_ident']}, {'required': ['node_uuid']}],
    'additionalProperties': False,
}

#: The fields a JSON patch may change (upstream's PATCH_ALLOWED_FIELDS).
PATCHABLE = (
    'address',
    'extra',
    'is_smartnic',
    'local_link_connection',
    'node_ident',
    'node_uuid',
    'physical_network',
    'portgroup_uuid',
    'pxe_enabled',
    'name',
    'description',
    'vendor',
    'category',
    'available_for_dynamic_portgroup',
)

__all__ = [
    'CREATE',
    'FIELDS',
    'LOCAL_LINK',
    'PATCH',
    'PATCHABLE',
    'SMART_NIC_LINK',
]
