"""RPC endpoint of the volume connector and target changes.

A second endpoint of topic ``ironic-lite.conductor`` (beside
:class:`~ironic_lite.conductor.manager.ConductorManager`), so that the
node manager stays small. As upstream: a connector or target changes
only while its node is powered off, under the node lock; it is deleted
while the node is powered off or in a provision state a node may be
deleted in (manageable, enroll, adopt failed).
"""

from typing import Any

from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.common import states
from ironic_lite.conductor import endpoint
from ironic_lite.conductor.manager import node_to_dict
from ironic_lite.db import volumes as db_volumes
from lite_common import rpc
from lite_common.context import RequestContext

LOG = logging.getLogger(__name__)

EXPECTED = endpoint.EXPECTED

KINDS = {
    'volume_connector': db_volumes.CONNECTORS,
    'volume_target': db_volumes.TARGETS,
}
#: Upstream's DELETE_ALLOWED_STATES.
DELETE_ALLOWED_STATES = (states.MANAGEABLE, states.ENROLL, states.ADOPTFAIL)


def _kind(name: str) -> db_volumes.Kind:
    try:
        return KINDS[name]
    except KeyError:
        raise exception.InvalidParameterValue(
            err=f'Unknown volume resource {name!r}'
        )


class VolumeManager(endpoint.NodeEndpoint):
    """Updates and deletes of volume connectors and targets."""

    @rpc.expected_exceptions(*EXPECTED)
    def update_volume(
        self,
        context: RequestContext,
        node_uuid: str,
        kind: str,
        uuid: str,
        values: dict[str, Any],
    ) -> dict[str, Any]:
        """Write ``values`` of a connector or target of ``node_uuid``
        (the node it belongs to after the change).

        :raises PowerStateRefused: the node is not powered off.
        """
        what = kind.replace('_', ' ')
        with self._task(context, node_uuid, f'{what} update') as task:
            node = task.node
            if node.power_state != states.POWER_OFF:
                raise exception.PowerStateRefused(
                    action=f'{what} update',
                    node=node.uuid,
                    state=node.power_state,
                )
            if values:
                row = db_volumes.update(context, _kind(kind), uuid, values)
            else:
                row = db_volumes.get(context, _kind(kind), uuid)
            LOG.info(
                'Updated %(what)s %(uuid)s of node %(node)s',
                {'what': what, 'uuid': uuid, 'node': node.uuid},
            )
            return node_to_dict(row)

    @rpc.expected_exceptions(*EXPECTED)
    def destroy_volume(
        self, context: RequestContext, node_uuid: str, kind: str, uuid: str
    ) -> None:
        """Delete a connector or target of ``node_uuid``.

        :raises PowerStateRefused: the node is powered on and not in a
            state a node may be deleted in.
        """
        what = kind.replace('_', ' ')
        with self._task(context, node_uuid, f'{what} deletion') as task:
            node = task.node
            if (
                node.provision_state not in DELETE_ALLOWED_STATES
                and node.power_state != states.POWER_OFF
            ):
                raise exception.PowerStateRefused(
                    action=f'{what} deletion',
                    node=node.uuid,
                    state=node.power_state,
                )
            db_volumes.destroy(context, _kind(kind), uuid)
            LOG.info(
                'Deleted %(what)s %(uuid)s of node %(node)s',
                {'what': what, 'uuid': uuid, 'node': node.uuid},
            )
