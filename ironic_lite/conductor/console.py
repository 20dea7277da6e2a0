"""RPC endpoints of a node's console (``/v1/nodes/{node}/states/console``,
API 1.1), through its console interface.

Enabling or disabling takes the node lock: the interface is validated
first (a node whose console interface cannot work is refused: 400),
then started or stopped, and ``console_enabled`` saved. Asking for the
state the node is already in changes nothing, as upstream. A start or
stop that fails leaves ``console_enabled`` as it was and says why in
``last_error`` (the API has answered 202 by then, as upstream's does
before its worker runs).
"""

from typing import Any

from oslo_log import log as logging

from ironic_lite.conductor import endpoint
from ironic_lite.drivers import standard
from lite_common import rpc
from lite_common.context import RequestContext

LOG = logging.getLogger(__name__)


def _console(task: Any) -> standard.ConsoleInterface:
    """The node's console interface, validated (a ``no-console`` one
    refuses: 400)."""
    console = task.interfaces['console']
    assert isinstance(console, standard.ConsoleInterface)
    console.validate(task)
    return console


class ConsoleManager(endpoint.NodeEndpoint):
    """set_console_mode, get_console_information."""

    #: A console change waits a little for the lock (a power change or a
    #: periodic poll holds it for a moment).
    lock_patience = 3.0

    @rpc.expected_exceptions(*endpoint.EXPECTED)
    def set_console_mode(
        self, context: RequestContext, node_uuid: str, enabled: bool
    ) -> None:
        what = 'enabling' if enabled else 'disabling'
        with self._task(context, node_uuid, f'{what} the console') as task:
            console = _console(task)
            if bool(task.node.console_enabled) == enabled:
                LOG.info(
                    'The console of node %s is already %s',
                    node_uuid,
                    'enabled' if enabled else 'disabled',
                )
                return
            try:
                if enabled:
                    console.start_console(task)
                else:
                    console.stop_console(task)
            except Exception as exc:
                LOG.exception(
                    'Failed %s the console of node %s', what, node_uuid
                )
                task.update(last_error=f'Failed {what} the console: {exc}')
                return
            task.update(console_enabled=enabled, last_error=None)
            LOG.info(
                'The console of node %s is %s',
                node_uuid,
                'enabled' if enabled else 'disabled',
            )

    @rpc.expected_exceptions(*endpoint.EXPECTED)
    def get_console_information(
        self, context: RequestContext, node_uuid: str
    ) -> dict[str, Any]:
        """``{'console_enabled': bool, 'console_info': dict | None}``:
        the connection information only while the console is enabled."""
        with self._task(
            context, node_uuid, 'getting console information', shared=True
        ) as task:
            if not task.node.console_enabled:
                return {'console_enabled': False, 'console_info': None}
            console = _console(task)
            return {
                'console_enabled': True,
                'console_info': console.get_console(task),
            }
