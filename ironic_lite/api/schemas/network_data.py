"""A node's ``network_data`` (1.66): OpenStack's ``network_data.json``.

Our own, smaller rendering of the format upstream Ironic validates
against (Nova's network metadata): ``links`` (layer 2), ``networks``
(layer 3) and ``services`` are all required, each entry with the keys
that say what it is; other keys are accepted. An empty object or
``null`` clears the field.
"""

from typing import Any


def _entries(*required: str) -> dict[str, Any]:
    return {
        'type': 'array',
        'items': {
            'type': 'object',
            'required': list(required),
            'properties': {
                name: {'type': 'string'}
                for name in required
                if name not in ('bond_links', 'vlan_id')
            },
        },
    }


NETWORK_DATA: dict[str, Any] = {
    'type': 'object',
    'required': ['links', 'networks', 'services'],
    'properties': {
        'links': _entries('id', 'type'),
        'networks': _entries('id', 'link', 'network_id', 'type'),
        'services': _entries('address', 'type'),
    },
}

#: What a request may send: the whole document, ``{}`` or ``null``.
FIELD: dict[str, Any] = {
    'anyOf': [
        {'type': 'null'},
        {'type': 'object', 'maxProperties': 0},
        NETWORK_DATA,
    ]
}
