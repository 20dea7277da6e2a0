"""Request schemas of the Image API v2 subset (as Glance's)."""

UUID_PATTERN = (
    '^([0-9a-fA-F]){8}-([0-9a-fA-F]){4}-([0-9a-fA-F]){4}'
    '-([0-9a-fA-F]){4}-([0-9a-fA-F]){12}$'
)

CONTAINER_FORMATS = [
    None,
    'ami',
    'ari',
    'aki',
    'bare',
    'ovf',
    'ova',
    'docker',
    'compressed',
]
DISK_FORMATS = [
    None,
    'ami',
    'ari',
    'aki',
    'vhd',
    'vhdx',
    'vmdk',
    'raw',
    'qcow2',
    'vdi',
    'iso',
    'ploop',
]
VISIBILITIES = ['public', 'private', 'shared', 'community']

# Writable image attributes kept in their own columns; anything else
# is an extra property, a string.
BASE_PROPERTIES = {
    'name': {'type': ['null', 'string'], 'maxLength': 255},
    'visibility': {'type': 'string', 'enum': VISIBILITIES},
    'protected': {'type': 'boolean'},
    'container_format': {
        'type': ['null', 'string'],
        'enum': CONTAINER_FORMATS,
    },
    'disk_format': {'type': ['null', 'string'], 'enum': DISK_FORMATS},
    'min_ram': {'type': 'integer', 'minimum': 0, 'maximum': 2**31 - 1},
    'min_disk': {'type': 'integer', 'minimum': 0, 'maximum': 2**31 - 1},
    'tags': {
        'type': 'array',
        'maxItems': 128,
        'uniqueItems': True,
        'items': {'type': 'string', 'minLength': 1, 'maxLength': 255},
    },
    'owner': {'type': ['null', 'string'], 'maxLength': 255},
}

# The documents a client may write; read-only and reserved attributes
# are refused (403) by the handler before this schema is checked.
image = {
    'type': 'object',
    'properties': {
        **BASE_PROPERTIES,
        'id': {'type': 'string', 'pattern': UUID_PATTERN},
        # Hidden images are not supported: only false is accepted.
        'os_hidden': {'type': 'boolean', 'enum': [False]},
    },
    'additionalProperties': {'type': 'string', 'maxLength': 65535},
}

# PATCH with application/openstack-images-v2.1-json-patch.
patch = {
    'type': 'array',
    'items': {
        'type': 'object',
        'properties': {
            'op': {'type': 'string', 'enum': ['add', 'replace', 'remove']},
            'path': {'type': 'string', 'pattern': '^/'},
            'value': {},
        },
        'required': ['op', 'path'],
        'additionalProperties': False,
    },
}
