"""The rows that belong to a node and are deleted with it."""

from typing import Any

import sqlalchemy as sa

from ironic_lite.db.models import Allocation
from ironic_lite.db.models import BIOSSetting
from ironic_lite.db.models import FirmwareComponent
from ironic_lite.db.models import NodeHistory
from ironic_lite.db.models import NodeInventory
from ironic_lite.db.models import NodeTrait
from ironic_lite.db.models import Port
from ironic_lite.db.models import Portgroup
from ironic_lite.db.models import VolumeConnector
from ironic_lite.db.models import VolumeTarget

#: Tables with a ``node_id`` whose rows go with their node.
#: (Ports before portgroups: a port may name a portgroup.) The node's
#: allocation and inventory go with it too, as upstream's.
CHILD_MODELS: tuple[Any, ...] = (
    VolumeConnector,
    VolumeTarget,
    NodeHistory,
    NodeTrait,
    BIOSSetting,
    Port,
    Portgroup,
    Allocation,
    NodeInventory,
    FirmwareComponent,
)


def destroy_of_node(session: Any, node_id: int) -> None:
    """Delete the rows of a node being deleted (in its transaction)."""
    for model in CHILD_MODELS:
        session.execute(sa.delete(model).where(model.node_id == node_id))
