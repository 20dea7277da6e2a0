"""The compute agent's RPC endpoint and its lifecycle hooks.

The endpoint is thin: building and deleting are in ``instance_ops``,
startup in ``startup``.
"""

from typing import Any

from oslo_config import cfg
from oslo_log import log as logging
import oslo_messaging as messaging

from lite_common import context as lite_context
from nova_lite.compute import instance_ops
from nova_lite.compute import resources
from nova_lite.compute import startup
from nova_lite.virt import driver as virt_driver

LOG = logging.getLogger(__name__)


class ComputeManager:
    target = messaging.Target(version='1.0')

    def __init__(self, conf: cfg.ConfigOpts, host: str,
                 state_path: str) -> None:
        self.conf = conf
        self.host = host
        self.state_path = state_path
        self.driver = virt_driver.load_driver(conf, host, state_path)
        self.service: Any = None
        self.nodes: dict[str, Any] = {}

    # lifecycle -----------------------------------------------------------

    def init_host(self) -> None:
        context = lite_context.get_admin_context()
        self.service, self.nodes = startup.start(
            context, self.conf, self.host, self.driver)

    def heartbeat(self) -> None:
        self.service.heartbeat()

    def update_resources(self) -> None:
        context = lite_context.get_admin_context()
        for node in self.nodes.values():
            node._context = context
            resources.report(context, self.conf, self.driver, node)

    # RPC -----------------------------------------------------------------

    def build_and_run_instance(self, context: Any, instance: Any) -> None:
        instance_ops.build(context, self.driver, instance)

    def terminate_instance(self, context: Any, instance: Any) -> None:
        instance_ops.terminate(context, self.driver, instance)

