"""The inventory of a node (API 1.81): what its last inspection found,
one row per node, replaced by the next inspection."""

from typing import Any

import sqlalchemy as sa

from ironic_lite import exception
from ironic_lite.db.api import context_manager
from ironic_lite.db.api import retried
from ironic_lite.db.api import retry_on_disconnect
from ironic_lite.db.models import NodeInventory
from lite_common.context import RequestContext


@retry_on_disconnect
def get(
    context: RequestContext, node_id: int, node_uuid: str
) -> dict[str, Any]:
    """``{'inventory': ..., 'plugin_data': ...}``.

    :raises NodeInventoryNotFound:
    """
    with context_manager.reader.using(context) as session:
        row = session.execute(
            sa.select(
                NodeInventory.inventory_data, NodeInventory.plugin_data
            ).where(NodeInventory.node_id == node_id)
        ).first()
    if row is None:
        raise exception.NodeInventoryNotFound(node=node_uuid)
    return {'inventory': row[0], 'plugin_data': row[1]}


@retried
def store(
    context: RequestContext,
    node_id: int,
    inventory: dict[str, Any],
    plugin_data: dict[str, Any] | None = None,
) -> None:
    """Replace the node's inventory (one transaction)."""
    with context_manager.writer.using(context) as session:
        session.execute(
            sa.delete(NodeInventory).where(NodeInventory.node_id == node_id)
        )
        session.add(
            NodeInventory(
                node_id=node_id,
                inventory_data=inventory,
                plugin_data=plugin_data or {},
            )
        )
