"""The BIOS settings of nodes (API 1.40; the registry fields 1.74):
read by the API, written by a node's BIOS interface under the node lock
(on the conductor)."""

from typing import Any

import sqlalchemy as sa

from ironic_lite.db.api import as_dict
from ironic_lite.db.api import context_manager
from ironic_lite.db.api import retried
from ironic_lite.db.api import retry_on_disconnect
from ironic_lite.db.models import BIOSSetting
from lite_common import db as lite_db
from lite_common.context import RequestContext

#: What a setting may carry besides its name (upstream's registry).
FIELDS = (
    'value',
    'attribute_type',
    'allowable_values',
    'lower_bound',
    'max_length',
    'min_length',
    'read_only',
    'reset_required',
    'unique',
    'upper_bound',
)


@retry_on_disconnect
def settings_of(
    context: RequestContext, node_id: int, name: str | None = None
) -> list[dict[str, Any]]:
    """The node's settings by name (only ``name``'s when given)."""
    query = sa.select(BIOSSetting).where(BIOSSetting.node_id == node_id)
    if name is not None:
        query = query.where(BIOSSetting.name == name)
    with context_manager.reader.using(context) as session:
        return [
            as_dict(row)
            for row in session.scalars(query.order_by(BIOSSetting.name))
        ]


@retried
def replace_settings(
    context: RequestContext, node_id: int, settings: list[dict[str, Any]]
) -> dict[str, int]:
    """Make ``settings`` (``[{'name': ..., 'value': ..., registry
    fields ...}]``) the node's settings: new ones created, changed ones
    updated, the others deleted, in one transaction; how many of each."""
    wanted = {s['name']: s for s in settings}
    now = lite_db.utcnow()
    counts = {'created': 0, 'updated': 0, 'deleted': 0}
    with context_manager.writer.using(context) as session:
        existing = {
            row.name: row
            for row in session.scalars(
                sa.select(BIOSSetting).where(BIOSSetting.node_id == node_id)
            )
        }
        for name in sorted(set(existing) - set(wanted)):
            session.delete(existing[name])
            counts['deleted'] += 1
        for name, setting in wanted.items():
            values = {k: setting.get(k) for k in FIELDS}
            if values['value'] is not None:
                values['value'] = str(values['value'])
            row = existing.get(name)
            if row is None:
                session.add(
                    BIOSSetting(
                        node_id=node_id, name=name, created_at=now, **values
                    )
                )
                counts['created'] += 1
            elif any(getattr(row, k) != v for k, v in values.items()):
                for key, value in values.items():
                    setattr(row, key, value)
                row.updated_at = now
                counts['updated'] += 1
    return counts
