"""RPC endpoints of a node's VIFs (``/v1/nodes/{node}/vifs``, API 1.28),
through its network interface: attaching and detaching take the node
lock (waiting a little for it), listing shares the node. Each validates
the node's network interface first, as upstream (the ``flat`` one
refuses without a cleaning network)."""

from typing import Any

from oslo_log import log as logging

from ironic_lite.conductor import endpoint
from ironic_lite.drivers import standard
from lite_common import rpc
from lite_common.context import RequestContext

LOG = logging.getLogger(__name__)


def _network(task: Any) -> standard.NetworkInterface:
    network = task.interfaces['network']
    assert isinstance(network, standard.NetworkInterface)
    return network


class VifManager(endpoint.NodeEndpoint):
    """vif_attach, vif_detach, vif_list."""

    lock_patience = 3.0

    @rpc.expected_exceptions(*endpoint.EXPECTED)
    def vif_attach(
        self, context: RequestContext, node_uuid: str, vif_info: dict[str, Any]
    ) -> None:
        with self._task(context, node_uuid, 'attaching a VIF') as task:
            network = _network(task)
            network.validate(task)
            network.vif_attach(task, vif_info)
            LOG.info('VIF %s attached to node %s', vif_info['id'], node_uuid)

    @rpc.expected_exceptions(*endpoint.EXPECTED)
    def vif_detach(
        self, context: RequestContext, node_uuid: str, vif_id: str
    ) -> None:
        with self._task(context, node_uuid, 'detaching a VIF') as task:
            network = _network(task)
            network.validate(task)
            network.vif_detach(task, vif_id)
            LOG.info('VIF %s detached from node %s', vif_id, node_uuid)

    @rpc.expected_exceptions(*endpoint.EXPECTED)
    def vif_list(
        self, context: RequestContext, node_uuid: str
    ) -> list[dict[str, Any]]:
        with self._task(
            context, node_uuid, 'listing VIFs', shared=True
        ) as task:
            network = _network(task)
            network.validate(task)  # as upstream: flat's needs a network
            return network.vif_list(task)
