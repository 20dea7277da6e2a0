"""The firmware components of nodes (API 1.86; vendor, model and
serial_number 1.114): what a node's firmware interface last recorded of
each component, read by the API, written under the node lock (on the
conductor)."""

from typing import Any

import sqlalchemy as sa

from ironic_lite.db.api import as_dict
from ironic_lite.db.api import context_manager
from ironic_lite.db.api import retried
from ironic_lite.db.api import retry_on_disconnect
from ironic_lite.db.models import FirmwareComponent
from lite_common import db as lite_db
from lite_common.context import RequestContext

#: What a component carries besides its name.
FIELDS = (
    'initial_version',
    'current_version',
    'last_version_flashed',
    'vendor',
    'model',
    'serial_number',
)


@retry_on_disconnect
def components_of(
    context: RequestContext, node_id: int
) -> list[dict[str, Any]]:
    """The node's components, by name."""
    with context_manager.reader.using(context) as session:
        return [
            as_dict(row)
            for row in session.scalars(
                sa.select(FirmwareComponent)
                .where(FirmwareComponent.node_id == node_id)
                .order_by(FirmwareComponent.component)
            )
        ]


@retried
def record_components(
    context: RequestContext, node_id: int, components: list[dict[str, Any]]
) -> None:
    """Record what the firmware interface read of each component
    (``[{'component': ..., 'current_version': ..., ...}]``), in one
    transaction: a new component starts with its version as the initial
    one; a known one keeps its initial version; components no longer
    read are deleted."""
    wanted = {c['component']: c for c in components}
    now = lite_db.utcnow()
    with context_manager.writer.using(context) as session:
        existing = {
            row.component: row
            for row in session.scalars(
                sa.select(FirmwareComponent).where(
                    FirmwareComponent.node_id == node_id
                )
            )
        }
        for name in sorted(set(existing) - set(wanted)):
            session.delete(existing[name])
        for name, component in wanted.items():
            values = {
                k: component.get(k) for k in FIELDS if k != 'initial_version'
            }
            row = existing.get(name)
            if row is None:
                session.add(
                    FirmwareComponent(
                        node_id=node_id,
                        component=name,
                        created_at=now,
                        initial_version=component.get(
                            'initial_version', component.get('current_version')
                        ),
                        **values,
                    )
                )
            elif any(getattr(row, k) != v for k, v in values.items()):
                for key, value in values.items():
                    setattr(row, key, value)
                row.updated_at = now
