"""The version documents (``GET /``, ``GET /v1``)."""

from ironic_lite.api.handlers import root
from ironic_lite.api.schemas.responses import common as c

VERSION = c.resource(
    {
        'id': c.STRING,
        'links': c.LINKS,
        'status': c.STRING,
        'min_version': c.STRING,
        'version': c.STRING,
    },
    required=['id', 'links', 'status', 'min_version', 'version'],
    title='Version',
)
VERSIONS = c.resource(
    {
        'name': c.STRING,
        'description': c.STRING,
        'versions': {'type': 'array', 'items': VERSION},
        'default_version': VERSION,
    },
    required=['name', 'description', 'versions', 'default_version'],
)
_ALWAYS = ('chassis', 'nodes', 'ports', 'drivers')
V1 = c.resource(
    {
        'id': c.STRING,
        'links': c.LINKS,
        'media_types': c.resource(
            {'base': c.STRING, 'type': c.STRING}, required=['base', 'type']
        ),
        'version': VERSION,
        **{name: c.LINKS for name in _ALWAYS},
        **{name: c.LINKS for name in root.VERSIONED_LINKS},
    },
    root.VERSIONED_LINKS,
    required=['id', 'links', 'media_types', 'version', *_ALWAYS],
)
#: ``GET /openapi.json``.
OPENAPI = c.resource(
    {
        'openapi': c.STRING,
        'info': c.OBJECT,
        'paths': c.OBJECT,
        'components': c.OBJECT,
    },
    required=['openapi', 'info', 'paths'],
)
