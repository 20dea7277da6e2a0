"""RPC endpoint of node trait changes (API 1.37).

A third endpoint of topic ``ironic-lite.conductor``: as upstream, traits
change under the node lock (a node another operation holds answers
``NodeLocked``, 409), whatever its state.
"""

from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.conductor import endpoint
from ironic_lite.conductor import task_manager
from ironic_lite.db import node_traits
from lite_common import rpc
from lite_common.context import RequestContext

LOG = logging.getLogger(__name__)

EXPECTED = (
    exception.Invalid,
    exception.NotFound,
    exception.Conflict,
    exception.ConductorReplaced,
)


class TraitsManager(endpoint.NodeEndpoint):
    """Adds, replaces and removes the traits of a node."""

    def _acquire(
        self, context: RequestContext, node_uuid: str
    ) -> task_manager.Task:
        return self._task(context, node_uuid, 'trait change')

    @rpc.expected_exceptions(*EXPECTED)
    def add_node_traits(
        self,
        context: RequestContext,
        node_uuid: str,
        traits: list[str],
        replace: bool,
    ) -> list[str]:
        """Add ``traits`` to the node's, or with ``replace`` make them
        its only traits; returns the node's traits."""
        with self._acquire(context, node_uuid) as task:
            node = task.node
            current = (
                []
                if replace
                else node_traits.traits_of(context, [node.id])[node.id]
            )
            result = node_traits.set_traits(
                context, node.id, node.uuid, [*current, *traits]
            )
        LOG.info(
            'Traits of node %(node)s: %(traits)s',
            {'node': node_uuid, 'traits': ', '.join(result) or 'none'},
        )
        return result

    @rpc.expected_exceptions(*EXPECTED)
    def remove_node_traits(
        self, context: RequestContext, node_uuid: str, traits: list[str] | None
    ) -> list[str]:
        """Remove ``traits`` (every trait: None); returns what is left.

        :raises NodeTraitNotFound: a trait of ``traits`` is not the
            node's; nothing was removed.
        """
        with self._acquire(context, node_uuid) as task:
            node = task.node
            current = node_traits.traits_of(context, [node.id])[node.id]
            missing = [t for t in traits or () if t not in current]
            if missing:
                raise exception.NodeTraitNotFound(
                    node=node.uuid, trait=missing[0]
                )
            keep = (
                []
                if traits is None
                else [t for t in current if t not in traits]
            )
            result = node_traits.set_traits(context, node.id, node.uuid, keep)
        LOG.info(
            'Traits of node %(node)s: %(traits)s',
            {'node': node_uuid, 'traits': ', '.join(result) or 'none'},
        )
        return result
