"""Image API v2 bodies (nova_lite/api/handlers/images.py), as Glance's:
an image is a flat document whose extra properties are strings."""

from nova_lite.api.schemas import images as requests
from nova_lite.api.schemas.responses import BOOLEAN
from nova_lite.api.schemas.responses import LINKS
from nova_lite.api.schemas.responses import NULLABLE_INTEGER
from nova_lite.api.schemas.responses import NULLABLE_STRING
from nova_lite.api.schemas.responses import STRING
from nova_lite.api.schemas.responses import STRINGS
from nova_lite.api.schemas.responses import Schema
from nova_lite.api.schemas.responses import array
from nova_lite.api.schemas.responses import obj
from nova_lite.api.schemas.responses import titled

_SHOWN = {
    'name': NULLABLE_STRING,
    'visibility': {'type': 'string', 'enum': requests.VISIBILITIES},
    'protected': BOOLEAN,
    'container_format': NULLABLE_STRING,
    'disk_format': NULLABLE_STRING,
    'min_ram': {'type': 'integer'},
    'min_disk': {'type': 'integer'},
    'tags': STRINGS,
    'owner': NULLABLE_STRING,
    'id': STRING,
    'status': STRING,
    'size': NULLABLE_INTEGER,
    'virtual_size': NULLABLE_INTEGER,
    'checksum': NULLABLE_STRING,
    'os_hash_algo': NULLABLE_STRING,
    'os_hash_value': NULLABLE_STRING,
    'os_hidden': BOOLEAN,
    'created_at': STRING,
    'updated_at': STRING,
    'self': STRING,
    'file': STRING,
    'schema': STRING,
}
assert set(requests.BASE_PROPERTIES) <= set(_SHOWN)

#: One image; any other attribute is an extra property, a string.
IMAGE: Schema = titled(
    'Image',
    {
        'type': 'object',
        'properties': _SHOWN,
        'required': sorted(_SHOWN),
        'additionalProperties': {'type': 'string'},
    },
)
IMAGES: Schema = obj(
    {'images': array(IMAGE), 'first': STRING, 'schema': STRING},
    {'next': STRING},
)
#: ``GET /image`` (300 Multiple Choices).
VERSIONS: Schema = obj(
    {'versions': array(obj({'id': STRING, 'status': STRING, 'links': LINKS}))}
)
