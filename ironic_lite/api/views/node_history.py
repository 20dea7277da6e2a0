"""Node history events as the Bare Metal API writes them, by version."""

import functools
from typing import Any

from ironic_lite.api import microversion as mv
from ironic_lite.api import util
from lite_common.wsgi.microversion import APIVersion

STANDARD = ('uuid', 'created_at', 'severity', 'event')
#: The detail fields and the version each appeared in.
DETAIL_VERSIONS = {
    'uuid': mv.NODE_HISTORY,
    'created_at': mv.NODE_HISTORY,
    'severity': mv.NODE_HISTORY,
    'event_type': mv.NODE_HISTORY,
    'event': mv.NODE_HISTORY,
    'conductor': mv.NODE_HISTORY,
    'user': mv.NODE_HISTORY,
    'project': mv.NODE_HISTORY_PROJECT,
    'state': mv.NODE_HISTORY_FIELDS,
    'target_provision_state': mv.NODE_HISTORY_FIELDS,
    'duration_seconds': mv.NODE_HISTORY_FIELDS,
}
#: A listed event (without detail) is cut to this many characters.
SHORT_EVENT = 255


@functools.lru_cache(maxsize=64)
def fields_at(version: APIVersion, detail: bool) -> tuple[str, ...]:
    if not detail:
        return STANDARD
    return tuple(
        name
        for name, since in DETAIL_VERSIONS.items()
        if version.at_least(since)
    )


def render(
    base: str,
    node_uuid: str,
    row: dict[str, Any],
    fields: tuple[str, ...],
    detail: bool,
) -> dict[str, Any]:
    event = {name: row[name] for name in fields}
    event['created_at'] = util.isotime(row['created_at'])
    text = event.get('event') or ''
    if not detail and len(text) > SHORT_EVENT:
        event['event'] = text[: SHORT_EVENT - 4] + '...'
    event['links'] = [
        {
            'href': f'{base}/v1/nodes/{node_uuid}/history/{row["uuid"]}',
            'rel': 'self',
        }
    ]
    return event
