"""RPC endpoints of a node's boot mode and secure boot (API 1.76),
through its management interface.

As upstream: the request takes the node lock, validates the management
interface, clears ``last_error`` and answers; a worker then reads the
current state (an interface that cannot is no reason to stop) and
changes it when it differs. The node records the new value, or a
failure in ``last_error`` (the fake interface has neither setting: the
request ends there, as with upstream's).
"""

from typing import Any

from oslo_log import log as logging

from ironic_lite.common.conductor_identity import ConductorIdentity
from ironic_lite.conductor import endpoint
from ironic_lite.conductor import task_manager
from ironic_lite.conductor import workers
from ironic_lite.conductor.indicators import management_of
from lite_common import rpc
from lite_common.context import RequestContext

LOG = logging.getLogger(__name__)


def _change(
    task: task_manager.Task,
    what: str,
    field: str,
    target: Any,
    get: Any,
    set_: Any,
    failure: str,
) -> None:
    """``failure``: the last_error on failure, with ``{target}`` and
    ``{err}`` (upstream's texts)."""
    node = task.node
    try:
        current = get(task)
    except Exception as exc:
        current = None
        LOG.warning(
            'Node %(node)s: the current %(what)s could not be read: %(err)s',
            {'node': node.uuid, 'what': what, 'err': exc},
        )
    if current is not None and current == target:
        LOG.info(
            'Node %(node)s: %(what)s is %(target)s already; nothing to change',
            {'node': node.uuid, 'what': what, 'target': target},
        )
        return
    try:
        set_(task, target)
    except Exception as exc:
        LOG.error(
            'Node %(node)s: changing %(what)s to %(target)s failed: %(err)s',
            {'node': node.uuid, 'what': what, 'target': target, 'err': exc},
        )
        task.update(last_error=failure.format(target=target, err=exc))
        return
    LOG.info(
        'Node %(node)s: %(what)s changed to %(target)s',
        {'node': node.uuid, 'what': what, 'target': target},
    )
    task.update(**{field: target})


def do_change_boot_mode(task: task_manager.Task, mode: str) -> None:
    management = management_of(task)
    # (Upstream's message lacks the closing quote; clients match it.)
    _change(
        task,
        'boot mode',
        'boot_mode',
        mode,
        management.get_boot_mode,
        lambda t, value: management.set_boot_mode(t, value),
        "Failed to change boot mode to '{target}: {err}",
    )


def do_change_secure_boot(task: task_manager.Task, state: bool) -> None:
    management = management_of(task)
    _change(
        task,
        'secure_boot state',
        'secure_boot',
        state,
        management.get_secure_boot_state,
        lambda t, value: management.set_secure_boot_state(t, value),
        "Failed to change secure_boot state to '{target}': {err}",
    )


class BootModeManager(endpoint.NodeEndpoint):
    """change_node_boot_mode, change_node_secure_boot."""

    def __init__(
        self, conf: Any, identity: ConductorIdentity, pool: workers.WorkerPool
    ) -> None:
        super().__init__(conf, identity)
        self.pool = pool

    def _start(
        self,
        context: RequestContext,
        node_uuid: str,
        purpose: str,
        func: Any,
        target: Any,
    ) -> None:
        with self._task(context, node_uuid, purpose) as task:
            management_of(task).validate(task)
            task.update(last_error=None)
            task.spawn_after(self.pool, func, target)

    @rpc.expected_exceptions(*endpoint.EXPECTED)
    def change_node_boot_mode(
        self, context: RequestContext, node_uuid: str, new_state: str
    ) -> None:
        self._start(
            context,
            node_uuid,
            'changing node boot mode',
            do_change_boot_mode,
            new_state,
        )

    @rpc.expected_exceptions(*endpoint.EXPECTED)
    def change_node_secure_boot(
        self, context: RequestContext, node_uuid: str, new_state: bool
    ) -> None:
        self._start(
            context,
            node_uuid,
            'changing node secure boot',
            do_change_secure_boot,
            new_state,
        )
