"""Request schemas of the flavor API."""

_NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255,
         'pattern': r'^(?! )[^\x00-\x1f]*(?<! )$'}
_NON_NEGATIVE = {'type': ['integer', 'string'], 'pattern': '^[0-9]+$',
                 'minimum': 0}
_POSITIVE = {'type': ['integer', 'string'], 'pattern': '^[0-9]*[1-9][0-9]*$',
             'minimum': 1}

create = {
    'type': 'object',
    'properties': {
        'flavor': {
            'type': 'object',
            'properties': {
                'name': _NAME,
                'id': {'type': ['string', 'null'], 'minLength': 1,
                       'maxLength': 255, 'pattern': r'^(?! )[\w. -]+(?<! )$'},
                'ram': _POSITIVE,
                'vcpus': _POSITIVE,
                'disk': _NON_NEGATIVE,
                'OS-FLV-EXT-DATA:ephemeral': _NON_NEGATIVE,
                'swap': {'type': ['integer', 'string'],
                         'pattern': '^[0-9]*$', 'minimum': 0},
                'rxtx_factor': {'type': ['number', 'string'],
                                'pattern': r'^[0-9]+(\.[0-9]+)?$',
                                'minimum': 0, 'exclusiveMinimum': True},
                'os-flavor-access:is_public': {'type': 'boolean'},
            },
            'required': ['name', 'ram', 'vcpus', 'disk'],
            'additionalProperties': False,
        },
    },
    'required': ['flavor'],
    'additionalProperties': False,
}
