"""RPC endpoint of the indicators (LEDs) of a node's hardware, through
its management interface (another endpoint of topic
``ironic-lite.conductor``, beside the node manager).

Reads use a shared task; a change takes the node lock, as upstream.
"""

from typing import Any

from ironic_lite.conductor import endpoint
from ironic_lite.conductor import task_manager
from ironic_lite.drivers import base
from lite_common import rpc
from lite_common.context import RequestContext

EXPECTED = endpoint.EXPECTED


def management_of(task: task_manager.Task) -> base.ManagementInterface:
    interface = task.interfaces['management']
    assert isinstance(interface, base.ManagementInterface)
    return interface


class IndicatorManager(endpoint.NodeEndpoint):
    """get_supported_indicators, get_indicator_state, set_indicator_state."""

    @rpc.expected_exceptions(*EXPECTED)
    def get_supported_indicators(
        self, context: RequestContext, node_uuid: str
    ) -> dict[str, dict[str, Any]]:
        with self._task(
            context, node_uuid, 'get indicators', shared=True
        ) as task:
            return management_of(task).get_supported_indicators(task)

    @rpc.expected_exceptions(*EXPECTED)
    def get_indicator_state(
        self,
        context: RequestContext,
        node_uuid: str,
        component: str,
        indicator: str,
    ) -> str:
        with self._task(
            context, node_uuid, 'get indicator state', shared=True
        ) as task:
            management = management_of(task)
            management.validate(task)
            return management.get_indicator_state(task, component, indicator)

    @rpc.expected_exceptions(*EXPECTED)
    def set_indicator_state(
        self,
        context: RequestContext,
        node_uuid: str,
        component: str,
        indicator: str,
        state: str,
    ) -> None:
        with self._task(
            context, node_uuid, 'set indicator state', shared=False
        ) as task:
            management = management_of(task)
            management.validate(task)
            management.set_indicator_state(task, component, indicator, state)
