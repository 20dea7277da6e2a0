"""The base of the conductor's RPC endpoints beside the node manager
(volume, port, trait, indicator and boot device changes): each serves
topic ``ironic-lite.conductor`` at the RPC API version and works on one
node under a task."""

from oslo_config import cfg
import oslo_messaging as messaging

from ironic_lite import exception
from ironic_lite.common.conductor_identity import ConductorIdentity
from ironic_lite.conductor import rpcapi
from ironic_lite.conductor import task_manager
from lite_common.context import RequestContext

#: What the endpoints answer without a traceback in the server's log.
EXPECTED = (
    exception.Invalid,
    exception.NotFound,
    exception.Conflict,
    exception.HardwareError,
    exception.ConductorReplaced,
)


class NodeEndpoint:
    """An RPC endpoint whose methods take a node's task."""

    target = messaging.Target(version=rpcapi.VERSION)
    #: Seconds a change waits for the node's lock (0: NodeLocked at once).
    lock_patience: float = 0

    def __init__(
        self, conf: cfg.ConfigOpts, identity: ConductorIdentity
    ) -> None:
        self.conf = conf
        self.identity = identity
        self.host = identity.host

    def _task(
        self,
        context: RequestContext,
        node_uuid: str,
        purpose: str,
        shared: bool = False,
    ) -> task_manager.Task:
        """The node's task: its lock (waiting up to
        :attr:`lock_patience`), or shared."""
        return task_manager.acquire(
            context,
            self.conf,
            node_uuid,
            self.identity,
            purpose,
            shared=shared,
            patience=0 if shared else self.lock_patience,
        )
