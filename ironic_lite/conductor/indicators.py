"""RPC endpoint of the indicators (LEDs) of a node's hardware, through
its management interface (another endpoint of topic
``ironic-lite.conductor``, beside the node manager).

Reads use a shared task; a change takes the node lock, as upstream.
"""

from typing import Any

from oslo_config import cfg
import oslo_messaging as messaging

from ironic_lite import exception
from ironic_lite.conductor import rpcapi
from ironic_lite.conductor import task_manager
from ironic_lite.drivers import base

EXPECTED = (exception.Invalid, exception.NotFound, exception.Conflict)


def management_of(task: task_manager.Task) -> base.ManagementInterface:
    interface = task.interfaces['management']
    assert isinstance(interface, base.ManagementInterface)
    return interface


class IndicatorManager:
    """get_supported_indicators, get_indicator_state, set_indicator_state."""

    target = messaging.Target(version=rpcapi.VERSION)

    def __init__(self, conf: cfg.ConfigOpts, host: str) -> None:
        self.conf = conf
        self.host = host

    def _task(self, context: Any, node_uuid: str, purpose: str,
              shared: bool = True) -> task_manager.Task:
        return task_manager.acquire(context, self.conf, node_uuid,
                                    self.host, purpose, shared=shared)

    @messaging.expected_exceptions(*EXPECTED)
    def get_supported_indicators(self, context: Any, node_uuid: str
                                 ) -> dict[str, dict[str, Any]]:
        with self._task(context, node_uuid, 'get indicators') as task:
            return management_of(task).get_supported_indicators(task)

    @messaging.expected_exceptions(*EXPECTED)
    def get_indicator_state(self, context: Any, node_uuid: str,
                            component: str, indicator: str) -> str:
        with self._task(context, node_uuid, 'get indicator state') as task:
            management = management_of(task)
            management.validate(task)
            return management.get_indicator_state(task, component,
                                                  indicator)

    @messaging.expected_exceptions(*EXPECTED)
    def set_indicator_state(self, context: Any, node_uuid: str,
                            component: str, indicator: str,
                            state: str) -> None:
        with self._task(context, node_uuid, 'set indicator state',
                        shared=False) as task:
            management = management_of(task)
            management.validate(task)
            management.set_indicator_state(task, component, indicator,
                                           state)
