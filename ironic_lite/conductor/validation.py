"""RPC endpoint of ``GET /v1/nodes/{node}/validate``: each interface
of the node checks what it needs, under a shared task (nothing is
locked or changed).

The answer names upstream's twelve validated interfaces (every type
but vendor, whose methods are validated one by one when called), the
five a node cannot do without first: ``{type: {'result': bool,
'reason': str}}``, ``reason`` only where the check failed.
"""

from typing import Any

from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.conductor import endpoint
from ironic_lite.drivers import base
from lite_common import rpc
from lite_common.context import RequestContext

LOG = logging.getLogger(__name__)

#: The interfaces checked, in upstream's order.
VALIDATED = (
    'boot',
    'deploy',
    'management',
    'network',
    'power',
    'bios',
    'console',
    'firmware',
    'inspect',
    'raid',
    'rescue',
    'storage',
)


class ValidationManager(endpoint.NodeEndpoint):
    """validate_driver_interfaces."""

    @rpc.expected_exceptions(*endpoint.EXPECTED)
    def validate_driver_interfaces(
        self, context: RequestContext, node_uuid: str
    ) -> dict[str, dict[str, Any]]:
        result: dict[str, dict[str, Any]] = {}
        with self._task(
            context, node_uuid, 'validating interfaces', shared=True
        ) as task:
            for kind in VALIDATED:
                try:
                    interface = task.interfaces[kind]
                    interface.validate(task)
                    if isinstance(interface, base.DeployInterface):
                        interface.validate_instance(task)
                except exception.IronicLiteException as exc:
                    result[kind] = {'result': False, 'reason': str(exc)}
                except Exception as exc:
                    # A driver's own bug must not hide the others' answers.
                    LOG.exception(
                        'The %s interface of node %s failed to validate',
                        kind,
                        node_uuid,
                    )
                    result[kind] = {
                        'result': False,
                        'reason': f'{type(exc).__name__}: {exc}',
                    }
                else:
                    result[kind] = {'result': True}
        return result
