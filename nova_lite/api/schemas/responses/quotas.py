"""Limits, quota set and quota class set bodies
(nova_lite/api/handlers/limits.py, quota_sets.py, quota_classes.py):
which resources appear depends on the microversion, so none is
required."""

from nova_lite.api import microversion as mv
from nova_lite.api.handlers import limits
from nova_lite.api.schemas.responses import INTEGER
from nova_lite.api.schemas.responses import STRING
from nova_lite.api.schemas.responses import Schema
from nova_lite.api.schemas.responses import array
from nova_lite.api.schemas.responses import obj
from nova_lite.api.schemas.responses import since
from nova_lite.api.schemas.responses import until
from nova_lite.api.schemas.responses import wrapped
from nova_lite.db import quotas as db

#: When a resource stops being shown (quota sets, limits).
_GONE = {
    **{name: mv.before(mv.NO_NETWORK_QUOTAS) for name in db.NETWORK},
    'injected_files': mv.before(mv.NO_PERSONALITY),
    'injected_file_content_bytes': mv.before(mv.NO_PERSONALITY),
    'injected_file_path_bytes': mv.before(mv.NO_PERSONALITY),
}


#: The same for quota class sets (server groups only from 2.50).
_CLASS_GONE = {
    **_GONE,
    **{name: mv.before(mv.QUOTA_CLASS_SERVER_GROUPS) for name in db.NETWORK},
}
_CLASS_SINCE = {
    'server_groups': mv.QUOTA_CLASS_SERVER_GROUPS,
    'server_group_members': mv.QUOTA_CLASS_SERVER_GROUPS,
}


def _resources(
    value: Schema,
    gone: dict[str, str] = _GONE,
    first: dict[str, str] | None = None,
) -> dict[str, Schema]:
    shown: dict[str, Schema] = {}
    for name in db.RESOURCES:
        shown[name] = value
        if name in gone:
            shown[name] = until(gone[name], value)
        if first and name in first:
            shown[name] = since(first[name], value)
    return shown


def _limit_names() -> dict[str, Schema]:
    names: dict[str, Schema] = {}
    for resource, shown in limits.LIMIT_NAMES.items():
        for name in shown:
            last = (
                mv.before(mv.NO_IMAGE_METADATA_QUOTA)
                if name == 'maxImageMeta'
                else _GONE.get(resource)
            )
            names[name] = until(last, INTEGER) if last else INTEGER
    for name, resource in limits.USED_NAMES.items():
        last = _GONE.get(resource)
        names[name] = until(last, INTEGER) if last else INTEGER
    return names


LIMITS: Schema = wrapped(
    'limits',
    obj(
        {
            'rate': array({'type': 'object'}),
            'absolute': obj({}, _limit_names()),
        }
    ),
)

QUOTA_SET: Schema = wrapped(
    'quota_set', obj({}, {'id': STRING, **_resources(INTEGER)})
)
_DETAIL = obj({'in_use': INTEGER, 'limit': INTEGER, 'reserved': INTEGER})
QUOTA_SET_DETAIL: Schema = wrapped(
    'quota_set', obj({'id': STRING}, _resources(_DETAIL))
)
QUOTA_CLASS_SET: Schema = wrapped(
    'quota_class_set',
    obj({}, {'id': STRING, **_resources(INTEGER, _CLASS_GONE, _CLASS_SINCE)}),
)
