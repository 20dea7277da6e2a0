"""RPC endpoints of vendor passthru (API 1.1): a node's vendor methods,
and a driver's (drivers/vendor.py declares them).

A node's method is found and its arguments checked, then the vendor
interface validates the call, all before anything runs (a refusal is a
400). A synchronous method runs under the task and its return value is
the answer; an asynchronous one that needs the node lock runs on a
worker that keeps the lock, after the answer (``async``: the API says
202); one that does not need the lock runs before the answer, under a
shared task.
"""

from typing import Any

from oslo_log import log as logging

from ironic_lite.common.conductor_identity import ConductorIdentity
from ironic_lite.conductor import endpoint
from ironic_lite.conductor import workers
from ironic_lite.drivers import hardware
from ironic_lite.drivers import standard
from ironic_lite.drivers import vendor
from lite_common import rpc
from lite_common.context import RequestContext

LOG = logging.getLogger(__name__)


def _run(
    task: Any, method: str, http_method: str, args: dict[str, Any]
) -> Any:
    LOG.info(
        'Vendor method %s of node %s (HTTP %s)',
        method,
        task.node.uuid,
        http_method,
    )
    return getattr(task.interfaces['vendor'], method)(
        task, http_method, **args
    )


def _run_on_worker(
    task: Any, method: str, http_method: str, args: dict[str, Any]
) -> None:
    try:
        _run(task, method, http_method, args)
    except Exception as exc:
        LOG.exception(
            'Vendor method %s of node %s failed', method, task.node.uuid
        )
        task.update(last_error=f'Vendor method {method} failed: {exc}')


class VendorManager(endpoint.NodeEndpoint):
    """vendor_passthru, get_node_vendor_passthru_methods,
    driver_vendor_passthru, get_driver_vendor_passthru_methods."""

    lock_patience = 3.0

    def __init__(
        self,
        conf: Any,
        identity: ConductorIdentity,
        pool: workers.WorkerPool | None,
    ) -> None:
        super().__init__(conf, identity)
        self.pool = pool

    def _vendor(self, task: Any) -> standard.VendorInterface:
        interface = task.interfaces['vendor']
        interface.validate(task)  # no-vendor: "does not support vendor"
        assert isinstance(interface, standard.VendorInterface)
        return interface

    @rpc.expected_exceptions(*endpoint.EXPECTED)
    def vendor_passthru(
        self,
        context: RequestContext,
        node_uuid: str,
        driver_method: str,
        http_method: str,
        args: dict[str, Any],
    ) -> dict[str, Any]:
        """``{'return': value, 'async': bool, 'attach': bool}``."""
        method = driver_method
        with self._task(
            context, node_uuid, f'vendor method {method}', shared=True
        ) as task:
            interface = self._vendor(task)
            info = vendor.find(
                interface, method, http_method, args, on_node=True
            )
            interface.validate_method(task, method, args)
            if not info.require_exclusive_lock:
                value = _run(task, method, http_method, args)
                return {
                    'return': None if info.async_call else value,
                    'async': info.async_call,
                    'attach': info.attach,
                }
        with self._task(context, node_uuid, f'vendor method {method}') as task:
            interface = self._vendor(task)
            interface.validate_method(task, method, args)
            if info.async_call and self.pool is not None:
                task.spawn_after(
                    self.pool, _run_on_worker, method, http_method, args
                )
                return {'return': None, 'async': True, 'attach': info.attach}
            value = _run(task, method, http_method, args)
            return {
                'return': None if info.async_call else value,
                'async': info.async_call,
                'attach': info.attach,
            }

    @rpc.expected_exceptions(*endpoint.EXPECTED)
    def get_node_vendor_passthru_methods(
        self, context: RequestContext, node_uuid: str
    ) -> dict[str, dict[str, Any]]:
        with self._task(
            context, node_uuid, 'listing vendor methods', shared=True
        ) as task:
            return {
                name: info.route()
                for name, info in vendor.routes(
                    self._vendor(task), on_node=True
                ).items()
            }

    def _driver_vendor(self, driver_name: str) -> Any:
        return hardware.load_interfaces(self.conf, driver_name, {})['vendor']

    @rpc.expected_exceptions(*endpoint.EXPECTED)
    def driver_vendor_passthru(
        self,
        context: RequestContext,
        driver_name: str,
        driver_method: str,
        http_method: str,
        args: dict[str, Any],
    ) -> dict[str, Any]:
        method = driver_method
        interface = self._driver_vendor(driver_name)
        info = vendor.find(interface, method, http_method, args, on_node=False)
        LOG.info(
            'Driver vendor method %s of %s (HTTP %s)',
            method,
            driver_name,
            http_method,
        )
        value = getattr(interface, method)(context, http_method, **args)
        return {
            'return': None if info.async_call else value,
            'async': info.async_call,
            'attach': info.attach,
        }

    @rpc.expected_exceptions(*endpoint.EXPECTED)
    def get_driver_vendor_passthru_methods(
        self, context: RequestContext, driver_name: str
    ) -> dict[str, dict[str, Any]]:
        return {
            name: info.route()
            for name, info in vendor.routes(
                self._driver_vendor(driver_name), on_node=False
            ).items()
        }
