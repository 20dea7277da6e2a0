"""Port JSON as the Bare Metal API writes it, at a request's version."""

from typing import Any

from ironic_lite.api import util
from lite_common.wsgi.microversion import APIVersion

COLLECTION = 'ports'
#: Every field, in upstream's order.
FIELDS = (
    'uuid',
    'address',
    'extra',
    'internal_info',
    'is_smartnic',
    'local_link_connection',
    'physical_network',
    'pxe_enabled',
    'node_uuid',
    'portgroup_uuid',
    'name',
    'description',
    'vendor',
    'category',
    'available_for_dynamic_portgroup',
    'created_at',
    'updated_at',
    'links',
)
#: A list without ``detail`` or ``fields``.
LIST_FIELDS = ('uuid', 'address', 'links')
_TIMES = ('created_at', 'updated_at')


def visible(version: APIVersion, since: dict[str, str]) -> tuple[str, ...]:
    """The fields a request at ``version`` sees (each appears at
    ``since[name]``)."""
    return tuple(
        name
        for name in FIELDS
        if name not in since or not version.below(since[name])
    )


def render(
    base: str, row: dict[str, Any], fields: tuple[str, ...], hide_vtep: bool
) -> dict[str, Any]:
    """One port; ``fields`` (already cut to the request's version)
    always holds ``links``. ``hide_vtep``: a link with OVN VTEP keys is
    shown empty (outside 1.90-1.104, as upstream)."""
    item: dict[str, Any] = {}
    for name in fields:
        if name == 'links':
            item[name] = util.links_at(base, COLLECTION, row['uuid'])
        elif name in _TIMES:
            item[name] = util.isotime(row[name])
        elif name == 'local_link_connection':
            link = row[name] or {}
            if hide_vtep and any(key.startswith('vtep-') for key in link):
                link = {}
            item[name] = link
        else:
            item[name] = row[name]
    return item
