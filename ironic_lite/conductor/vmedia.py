"""RPC endpoints of a node's virtual media (API 1.89, 1.93), through
its management interface.

As upstream: attaching and detaching take the node lock, validate the
management interface, clear ``last_error`` and answer; a worker then
asks the interface, and a failure ends in ``last_error`` and the node's
history (the fake interface has no virtual media, as upstream's: every
request ends there). Reading shares the node and answers what the
interface says, or its refusal.
"""

from typing import Any

from oslo_log import log as logging

from ironic_lite.common.conductor_identity import ConductorIdentity
from ironic_lite.conductor import endpoint
from ironic_lite.conductor import history
from ironic_lite.conductor import task_manager
from ironic_lite.conductor import workers
from ironic_lite.conductor.indicators import management_of
from lite_common import rpc
from lite_common.context import RequestContext

LOG = logging.getLogger(__name__)


def _run(
    task: task_manager.Task, call: Any, failure: str, done: str, **kwargs: Any
) -> None:
    node = task.node
    try:
        call(task, **kwargs)
    except Exception as exc:
        message = failure.format(node=node.uuid, exc=exc, **kwargs)
        LOG.error('%s', message)
        history.record(task, message)
        task.update(last_error=message)
        return
    LOG.info(done.format(node=node.uuid, **kwargs))


def do_attach(
    task: task_manager.Task, device_type: str, image_url: str
) -> None:
    _run(
        task,
        management_of(task).attach_virtual_media,
        'Could not attach device {device_type} to node {node}: {exc}',
        'Device {device_type} attached to node {node}',
        device_type=device_type,
        image_url=image_url,
    )


def do_detach(task: task_manager.Task, device_types: list[str] | None) -> None:
    _run(
        task,
        management_of(task).detach_virtual_media,
        'Could not detach device(s) {device_types} from node {node}: {exc}',
        'Device(s) {device_types} detached from node {node}',
        device_types=device_types,
    )


class VmediaManager(endpoint.NodeEndpoint):
    """get_virtual_media, attach_virtual_media, detach_virtual_media."""

    def __init__(
        self, conf: Any, identity: ConductorIdentity, pool: workers.WorkerPool
    ) -> None:
        super().__init__(conf, identity)
        self.pool = pool

    @rpc.expected_exceptions(*endpoint.EXPECTED)
    def get_virtual_media(
        self, context: RequestContext, node_uuid: str
    ) -> Any:
        """:raises UnsupportedDriverExtension: the management interface
        has no virtual media."""
        with self._task(
            context, node_uuid, 'get virtual media devices', shared=True
        ) as task:
            management = management_of(task)
            management.validate(task)
            return management.get_virtual_media(task)

    def _start(
        self,
        context: RequestContext,
        node_uuid: str,
        purpose: str,
        func: Any,
        *args: Any,
    ) -> None:
        with self._task(context, node_uuid, purpose) as task:
            management_of(task).validate(task)
            task.update(last_error=None)
            task.spawn_after(self.pool, func, *args)

    @rpc.expected_exceptions(*endpoint.EXPECTED)
    def attach_virtual_media(
        self,
        context: RequestContext,
        node_uuid: str,
        device_type: str,
        image_url: str,
    ) -> None:
        self._start(
            context,
            node_uuid,
            'attaching virtual media',
            do_attach,
            device_type,
            image_url,
        )

    @rpc.expected_exceptions(*endpoint.EXPECTED)
    def detach_virtual_media(
        self,
        context: RequestContext,
        node_uuid: str,
        device_types: list[str] | None = None,
    ) -> None:
        self._start(
            context,
            node_uuid,
            'detaching virtual media',
            do_detach,
            device_types,
        )
