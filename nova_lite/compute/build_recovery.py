"""Builds placed on this agent whose request never arrived.

The conductor places a server (host, node, compute_id) and then asks
the agent to build it; when that request is lost (the conductor died
between the two, or the message was lost), the server would stay in
BUILD for good while the agent runs. On every housekeeping pass the
agent builds the servers placed on its nodes that are still
``scheduling`` after ``stale_after`` seconds without a change. A request
that still arrives later finds the task state changed and builds
nothing (the build is a compare-and-swap from ``scheduling``).

At start-up such servers are set to ERROR instead, as upstream
(compute/startup.py): the agent cannot tell a lost request from a build
the restart cut short.
"""

from typing import Any

from oslo_log import log as logging

from lite_common.context import RequestContext
from nova_lite.common import instance_ops
from nova_lite.common import states
from nova_lite.compute.move_recovery import stalled

LOG = logging.getLogger(__name__)


def resume(
    context: RequestContext,
    driver: Any,
    nodes: dict[str, Any],
    stale_after: float,
) -> int:
    """Build what waited ``stale_after`` seconds; how many. One
    query."""
    built = 0
    for node, instance in instance_ops.on_nodes(
        context,
        nodes,
        {'vm_state': [states.BUILDING], 'task_state': [states.SCHEDULING]},
    ):
        if not stalled(instance, stale_after):
            continue
        LOG.warning(
            'Placed on %s over %s s ago and not built (its '
            'build request was lost); building it now',
            node.hypervisor_hostname,
            stale_after,
            instance=instance,
        )
        instance_ops.build(context, driver, instance)
        built += 1
    return built
