"""Version documents (nova_lite/api/handlers/versions.py) and the
identity look-ups clients make first (handlers/projects.py)."""

from nova_lite.api.schemas.responses import BOOLEAN
from nova_lite.api.schemas.responses import LINKS
from nova_lite.api.schemas.responses import NULLABLE_STRING
from nova_lite.api.schemas.responses import STRING
from nova_lite.api.schemas.responses import STRINGS
from nova_lite.api.schemas.responses import Schema
from nova_lite.api.schemas.responses import array
from nova_lite.api.schemas.responses import obj
from nova_lite.api.schemas.responses import wrapped

_MEDIA_TYPES: Schema = array(obj({'base': STRING, 'type': STRING}))
_VERSION = {
    'id': STRING,
    'status': STRING,
    'version': STRING,
    'min_version': STRING,
    'updated': STRING,
    'links': LINKS,
}

VERSIONS: Schema = wrapped('versions', array(obj(_VERSION)))
VERSION: Schema = wrapped(
    'version', obj({**_VERSION, 'media-types': _MEDIA_TYPES})
)
IDENTITY: Schema = wrapped(
    'version',
    obj(
        {
            'id': STRING,
            'status': STRING,
            'updated': STRING,
            'links': LINKS,
            'media-types': _MEDIA_TYPES,
        }
    ),
)

_PROJECT: Schema = obj(
    {
        'id': STRING,
        'name': STRING,
        'domain_id': STRING,
        'enabled': BOOLEAN,
        'is_domain': BOOLEAN,
        'parent_id': NULLABLE_STRING,
        'description': STRING,
        'tags': STRINGS,
        'links': obj({'self': STRING}),
    }
)
PROJECT: Schema = wrapped('project', _PROJECT)
PROJECTS: Schema = obj(
    {
        'projects': array(_PROJECT),
        'links': obj(
            {
                'self': STRING,
                'previous': NULLABLE_STRING,
                'next': NULLABLE_STRING,
            }
        ),
    }
)
