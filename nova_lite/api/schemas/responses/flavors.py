"""Flavor bodies (nova_lite/api/handlers/flavors.py, flavor_access.py,
flavor_extra_specs.py)."""

from nova_lite.api import microversion as mv
from nova_lite.api.schemas.responses import BOOLEAN
from nova_lite.api.schemas.responses import INTEGER
from nova_lite.api.schemas.responses import LINKS
from nova_lite.api.schemas.responses import NULLABLE_STRING
from nova_lite.api.schemas.responses import NUMBER
from nova_lite.api.schemas.responses import STRING
from nova_lite.api.schemas.responses import STRING_MAP
from nova_lite.api.schemas.responses import Schema
from nova_lite.api.schemas.responses import array
from nova_lite.api.schemas.responses import obj
from nova_lite.api.schemas.responses import since
from nova_lite.api.schemas.responses import titled
from nova_lite.api.schemas.responses import wrapped

_BRIEF = {'id': STRING, 'name': STRING, 'links': LINKS}
_DESCRIPTION = {'description': since(mv.FLAVOR_DESCRIPTION, NULLABLE_STRING)}

BRIEF: Schema = titled('FlavorBrief', obj(_BRIEF, _DESCRIPTION))
FLAVOR: Schema = titled(
    'Flavor',
    obj(
        {
            **_BRIEF,
            'ram': INTEGER,
            'vcpus': INTEGER,
            'disk': INTEGER,
            'OS-FLV-EXT-DATA:ephemeral': INTEGER,
            'OS-FLV-DISABLED:disabled': BOOLEAN,
            'swap': {
                'type': ['integer', 'string'],
                'description': "'' for none until 2.74, 0 since 2.75",
            },
            'rxtx_factor': NUMBER,
            'os-flavor-access:is_public': BOOLEAN,
        },
        {
            **_DESCRIPTION,
            'extra_specs': since(mv.FLAVOR_EXTRA_SPECS, STRING_MAP),
        },
    ),
)

_PAGE = {'flavors_links': LINKS}
LIST: Schema = wrapped('flavors', array(BRIEF), _PAGE)
DETAIL: Schema = wrapped('flavors', array(FLAVOR), _PAGE)
SHOW: Schema = wrapped('flavor', FLAVOR)

ACCESS: Schema = wrapped(
    'flavor_access', array(obj({'flavor_id': STRING, 'tenant_id': STRING}))
)
EXTRA_SPECS: Schema = wrapped('extra_specs', STRING_MAP)
#: One extra spec: ``{key: value}``.
EXTRA_SPEC: Schema = {**STRING_MAP, 'minProperties': 1, 'maxProperties': 1}
