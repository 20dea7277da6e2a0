"""Volume connector and target JSON as the Bare Metal API writes it."""

import dataclasses
from typing import Any

from ironic_lite.api import util
from ironic_lite.api.views import nodes as node_views


@dataclasses.dataclass(frozen=True)
class Shape:
    """What one kind of volume resource looks like on the wire."""

    collection: str  # 'volume/connectors'
    item_name: str  # 'connectors'
    fields: tuple[str, ...]
    list_fields: tuple[str, ...]


_COMMON = ('uuid', 'node_uuid', 'extra', 'created_at', 'updated_at', 'links')
CONNECTOR = Shape(
    'volume/connectors',
    'connectors',
    ('type', 'connector_id') + _COMMON,
    ('uuid', 'node_uuid', 'type', 'connector_id', 'links'),
)
TARGET = Shape(
    'volume/targets',
    'targets',
    ('volume_type', 'properties', 'boot_index', 'volume_id') + _COMMON,
    ('uuid', 'node_uuid', 'volume_type', 'boot_index', 'volume_id', 'links'),
)

#: What a reader without baremetal:volume:view_target_properties sees
#: of the properties of a target (upstream's text).
REDACTED = {
    'redacted_contents': (
        '** Value redacted: Requires permission '
        'baremetal:volume:view_target_properties access. Permission '
        'denied. **'
    )
}
_TIMES = ('created_at', 'updated_at')


def render(
    base: str,
    shape: Shape,
    row: dict[str, Any],
    fields: tuple[str, ...],
    show_properties: bool = True,
) -> dict[str, Any]:
    """One connector or target; ``fields`` always holds ``links``."""
    item: dict[str, Any] = {}
    for name in fields:
        if name == 'links':
            item[name] = util.links_at(base, shape.collection, row['uuid'])
        elif name in _TIMES:
            item[name] = util.isotime(row[name])
        elif name == 'properties':
            item[name] = (
                node_views.mask_secrets(row[name] or {})
                if show_properties
                else REDACTED
            )
        else:
            item[name] = row[name]
    return item


def links(base: str, prefix: str) -> dict[str, Any]:
    """``GET /v1/volume`` (prefix ``volume``) or
    ``GET /v1/nodes/{id}/volume`` (prefix ``nodes/{id}/volume``)."""

    def pair(suffix: str) -> list[dict[str, str]]:
        return [
            {'href': f'{base}/v1/{prefix}/{suffix}', 'rel': 'self'},
            {'href': f'{base}/{prefix}/{suffix}', 'rel': 'bookmark'},
        ]

    return {
        'links': pair(''),
        'connectors': pair('connectors'),
        'targets': pair('targets'),
    }
