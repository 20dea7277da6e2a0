"""RPC endpoint of the port changes (a third endpoint of topic
``ironic-lite.conductor``, beside the node and volume managers).

The rules are upstream's:

- a port is created under a shared lock of its node (nothing about the
  node changes);
- a port changes under the node lock; its MAC address only while the
  node has no instance (or is in maintenance); its connectivity
  (portgroup, pxe_enabled, local_link_connection, physical_network)
  only in enroll, manageable, inspecting or inspect wait, or in
  maintenance;
- a port bound to a VIF is deleted only in maintenance;
- the ports of a portgroup share one physical network (a portgroup's
  new physical network is written to its ports too);
- a portgroup moves to another node only without ports, and only while
  that node is in one of the connectivity states or in maintenance.
"""

from typing import Any

from oslo_log import log as logging
import sqlalchemy as sa

from ironic_lite import exception
from ironic_lite.common import states
from ironic_lite.conductor import endpoint
from ironic_lite.conductor.manager import node_to_dict
from ironic_lite.db import portgroups as db_portgroups
from ironic_lite.db import ports as db_ports
from ironic_lite.db.api import context_manager
from ironic_lite.db.api import retried
from ironic_lite.db.models import Port
from ironic_lite.db.models import Portgroup
from lite_common import rpc
from lite_common.context import RequestContext

LOG = logging.getLogger(__name__)

EXPECTED = endpoint.EXPECTED
#: What changes how the port is wired (upstream's connectivity_attr).
CONNECTIVITY = frozenset(
    {
        'portgroup_id',
        'pxe_enabled',
        'local_link_connection',
        'physical_network',
    }
)
CONNECTIVITY_STATES = (
    states.ENROLL,
    states.INSPECTING,
    'inspect wait',
    states.MANAGEABLE,
)
#: Seconds a port change waits for its node's lock (upstream retries
#: node_locked_retry_attempts=3 times, a second apart): port changes
#: hold the lock briefly, so concurrent changes of one node's ports
#: take turns instead of failing with NodeLocked.
LOCK_PATIENCE = 3.0
#: internal_info keys that bind a port to a VIF, in upstream's order.
VIF_KEYS = (
    'cleaning_vif_port_id',
    'provisioning_vif_port_id',
    'rescuing_vif_port_id',
    'inspection_vif_port_id',
    'servicing_vif_port_id',
    'tenant_vif_port_id',
)


def current_vif(port: dict[str, Any]) -> str | None:
    """The VIF a port is bound to, if any."""
    info = port.get('internal_info') or {}
    for key in VIF_KEYS:
        if info.get(key):
            return str(info[key])
    return None


@retried
def check_physical_network(
    context: RequestContext, port: dict[str, Any], changed: set[str]
) -> None:
    """The port's physical network is its portgroup's (that of the
    other ports, else the portgroup's own).

    :raises Conflict: another physical network.
    """
    group_id = port.get('portgroup_id')
    if not group_id or not changed & {'portgroup_id', 'physical_network'}:
        return
    mine = port.get('physical_network')
    with context_manager.reader.using(context) as session:
        others = set(
            session.execute(
                sa.select(Port.physical_network)
                .distinct()
                .where(Port.portgroup_id == group_id)
                .where(Port.uuid != port['uuid'])
            ).scalars()
        )
        if not others:
            own = session.execute(
                sa.select(Portgroup.physical_network).where(
                    Portgroup.id == group_id
                )
            ).scalar()
            others = {own} if own is not None else set()
    if len(others) > 1:
        raise exception.Conflict(
            f'Portgroup {group_id} has ports on several physical '
            f'networks: {", ".join(sorted(map(str, others)))}.'
        )
    if others and mine not in others:
        raise exception.Conflict(
            f'Port with physical network {mine} cannot become a member '
            f'of port group with physical network {others.pop()}. All '
            'ports in a port group must have the same physical network.'
        )


class PortManager(endpoint.NodeEndpoint):
    """Creates, updates and deletes of ports and portgroups."""

    lock_patience = LOCK_PATIENCE

    @rpc.expected_exceptions(*EXPECTED)
    def create_port(
        self, context: RequestContext, node_uuid: str, values: dict[str, Any]
    ) -> dict[str, Any]:
        """Create a port of ``node_uuid`` (``values`` with node_id)."""
        with self._task(context, node_uuid, 'port create', shared=True):
            check_physical_network(context, values, set(values))
            row = db_ports.create(context, values)
        LOG.info(
            'Created port %(port)s (%(mac)s) of node %(node)s',
            {'port': row['uuid'], 'mac': row['address'], 'node': node_uuid},
        )
        return node_to_dict(row)

    @rpc.expected_exceptions(*EXPECTED)
    def update_port(
        self,
        context: RequestContext,
        node_uuid: str,
        uuid: str,
        values: dict[str, Any],
    ) -> dict[str, Any]:
        """Write ``values`` of a port of ``node_uuid`` (the node it
        belongs to after the change).

        :raises InvalidState: a change the node's state forbids.
        """
        with self._task(context, node_uuid, 'port update') as task:
            node = task.node
            if (
                'address' in values
                and not node.maintenance
                and (
                    node.provision_state == states.ACTIVE or node.instance_uuid
                )
            ):
                raise exception.InvalidState(
                    f'Cannot update hardware address for port {uuid} as '
                    f'node {node.uuid} is active or has instance UUID '
                    'assigned'
                )
            if (
                set(values) & CONNECTIVITY
                and not node.maintenance
                and node.provision_state not in CONNECTIVITY_STATES
            ):
                raise exception.InvalidState(
                    f'Port {uuid} can not have any connectivity attributes '
                    f'({", ".join(sorted(CONNECTIVITY))}) updated unless '
                    f'node {node.uuid} is in a '
                    f'{", ".join(CONNECTIVITY_STATES)} state or in '
                    'maintenance mode. The current state is '
                    f'{node.provision_state}.'
                )
            current = db_ports.get(context, uuid)
            check_physical_network(context, {**current, **values}, set(values))
            row = db_ports.update(context, uuid, values)
        LOG.info(
            'Updated port %(port)s of node %(node)s: %(fields)s',
            {
                'port': uuid,
                'node': node_uuid,
                'fields': ', '.join(sorted(values)) or 'no change',
            },
        )
        return node_to_dict(row)

    @rpc.expected_exceptions(*EXPECTED)
    def destroy_port(
        self, context: RequestContext, node_uuid: str, uuid: str
    ) -> None:
        """:raises InvalidState: the port is bound to a VIF and the node
        is not in maintenance."""
        with self._task(context, node_uuid, 'port deletion') as task:
            port = db_ports.get(context, uuid)
            vif = current_vif(port)
            if vif and not task.node.maintenance:
                raise exception.InvalidState(
                    f'Cannot delete the port {uuid} as it is bound to VIF '
                    f'{vif} for use.'
                )
            db_ports.destroy(context, uuid)
        LOG.info(
            'Deleted port %(port)s of node %(node)s',
            {'port': uuid, 'node': node_uuid},
        )

    @rpc.expected_exceptions(*EXPECTED)
    def update_portgroup(
        self,
        context: RequestContext,
        node_uuid: str,
        uuid: str,
        values: dict[str, Any],
    ) -> dict[str, Any]:
        """Write ``values`` of a portgroup of ``node_uuid`` (the node it
        belongs to after the change).

        :raises InvalidState: a move to a node in another state.
        :raises PortgroupNotEmpty: a move of a portgroup with ports.
        """
        with self._task(context, node_uuid, 'update portgroup') as task:
            node = task.node
            if 'node_id' in values:
                if (
                    node.provision_state not in CONNECTIVITY_STATES
                    and not node.maintenance
                ):
                    raise exception.InvalidState(
                        f'Portgroup {uuid} can not be associated to node '
                        f'{node.uuid} unless the node is in a '
                        f'{", ".join(CONNECTIVITY_STATES)} state or in '
                        'maintenance mode. Current state is '
                        f"'{node.provision_state}'."
                    )
                current = db_portgroups.get(context, uuid)
                if db_portgroups.count_ports(context, current['id']):
                    raise exception.PortgroupNotEmpty(portgroup=uuid)
            row = db_portgroups.update(context, uuid, values)
        LOG.info(
            'Updated portgroup %(group)s of node %(node)s: %(fields)s',
            {
                'group': uuid,
                'node': node_uuid,
                'fields': ', '.join(sorted(values)) or 'no change',
            },
        )
        return node_to_dict(row)

    @rpc.expected_exceptions(*EXPECTED)
    def destroy_portgroup(
        self, context: RequestContext, node_uuid: str, uuid: str
    ) -> None:
        """:raises PortgroupNotEmpty: it still has ports."""
        with self._task(context, node_uuid, 'portgroup deletion'):
            db_portgroups.destroy(context, uuid)
        LOG.info(
            'Deleted portgroup %(group)s of node %(node)s',
            {'group': uuid, 'node': node_uuid},
        )
