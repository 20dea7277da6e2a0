"""The JSON schemas the Image API serves at ``/v2/schemas/image`` and
``/v2/schemas/images``, as Glance does: python-glanceclient reads them
before it creates, updates or lists images (warlock builds its image
model from them and checks every body against them), so they describe
exactly what this API answers and accepts."""

from typing import Any

from nova_lite.api.schemas import images as request

#: Glance's image statuses.
STATUSES = [
    'queued',
    'saving',
    'active',
    'killed',
    'deleted',
    'uploading',
    'importing',
    'pending_delete',
    'deactivated',
]


def _read_only(kind: Any, max_length: int | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {'type': kind, 'readOnly': True}
    if max_length is not None:
        schema['maxLength'] = max_length
    return schema


IMAGE: dict[str, Any] = {
    'name': 'image',
    'properties': {
        **request.BASE_PROPERTIES,
        'id': {
            'type': 'string',
            'description': 'An identifier for the image',
            'pattern': request.UUID_PATTERN,
        },
        'status': {**_read_only('string'), 'enum': STATUSES},
        'os_hidden': {'type': 'boolean'},
        'checksum': _read_only(['null', 'string'], 32),
        'os_hash_algo': _read_only(['null', 'string'], 64),
        'os_hash_value': _read_only(['null', 'string'], 128),
        'size': _read_only(['null', 'integer']),
        'virtual_size': _read_only(['null', 'integer']),
        'created_at': _read_only('string'),
        'updated_at': _read_only('string'),
        'direct_url': _read_only('string'),
        'self': _read_only('string'),
        'file': _read_only('string'),
        'stores': _read_only('string'),
        'schema': _read_only('string'),
    },
    'additionalProperties': {'type': 'string'},
    'links': [
        {'rel': 'self', 'href': '{self}'},
        {'rel': 'enclosure', 'href': '{file}'},
        {'rel': 'describedby', 'href': '{schema}'},
    ],
}

IMAGES: dict[str, Any] = {
    'name': 'images',
    'properties': {
        'images': {
            'type': 'array',
            'items': {
                key: value for key, value in IMAGE.items() if key != 'name'
            },
        },
        'schema': {'type': 'string'},
        'first': {'type': 'string'},
        'next': {'type': 'string'},
    },
    'links': [
        {'rel': 'first', 'href': '{first}'},
        {'rel': 'next', 'href': '{next}'},
        {'rel': 'describedby', 'href': '{schema}'},
    ],
}
