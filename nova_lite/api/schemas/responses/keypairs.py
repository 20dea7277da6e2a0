"""Key pair bodies (nova_lite/api/handlers/keypairs.py)."""

from nova_lite.api import microversion as mv
from nova_lite.api.schemas.responses import BOOLEAN
from nova_lite.api.schemas.responses import INTEGER
from nova_lite.api.schemas.responses import LINKS
from nova_lite.api.schemas.responses import NULLABLE_TIME
from nova_lite.api.schemas.responses import STRING
from nova_lite.api.schemas.responses import TIME
from nova_lite.api.schemas.responses import Schema
from nova_lite.api.schemas.responses import array
from nova_lite.api.schemas.responses import obj
from nova_lite.api.schemas.responses import since
from nova_lite.api.schemas.responses import wrapped

_INDEX = {'name': STRING, 'public_key': STRING, 'fingerprint': STRING}
_TYPE = {
    'type': since(mv.KEYPAIR_TYPE, {'type': 'string', 'enum': ['ssh', 'x509']})
}

LIST: Schema = wrapped(
    'keypairs',
    array(wrapped('keypair', obj(_INDEX, _TYPE))),
    {'keypairs_links': since(mv.KEYPAIR_PAGING, LINKS)},
)
CREATE: Schema = wrapped(
    'keypair',
    obj(
        {**_INDEX, 'user_id': STRING},
        {
            **_TYPE,
            'private_key': {
                'type': 'string',
                'description': 'a generated key pair only (until 2.91)',
            },
        },
    ),
)
SHOW: Schema = wrapped(
    'keypair',
    obj(
        {
            **_INDEX,
            'user_id': STRING,
            'created_at': TIME,
            'deleted': BOOLEAN,
            'deleted_at': NULLABLE_TIME,
            'id': INTEGER,
            'updated_at': NULLABLE_TIME,
        },
        _TYPE,
    ),
)
