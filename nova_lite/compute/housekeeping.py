"""The compute agent's periodic pass, after its clean-up: moves,
builds and server tasks (shelve, unshelve, rescue) that were interrupted
or whose request was lost are taken up; a task is stale when unchanged
for ``stale`` seconds."""

from typing import TYPE_CHECKING

from lite_common.context import RequestContext
from nova_lite.compute import build_recovery
from nova_lite.compute import move_recovery
from nova_lite.compute import rescue
from nova_lite.compute import shelve
from nova_lite.compute import task_recovery

if TYPE_CHECKING:
    from nova_lite.compute.manager import ComputeManager


def resume_interrupted(
    context: RequestContext, agent: 'ComputeManager', stale: float
) -> None:
    move_recovery.resume(
        context,
        agent.compute_rpcapi,
        agent.driver,
        agent.host,
        agent.nodes,
        agent.busy,
        stale_after=stale,
    )
    build_recovery.resume(context, agent.driver, agent.nodes, stale)
    task_recovery.resume_stalled(
        context,
        agent.conf,
        agent.driver,
        agent.nodes,
        agent.host,
        agent.busy,
        stale,
    )
    shelve.housekeeping(
        context,
        agent.conf,
        agent.driver,
        agent.images,
        agent.nodes,
        agent.host,
        stale,
    )
    if agent.conf.rescue_timeout > 0:
        rescue.unrescue_due(
            context,
            agent.driver,
            agent.nodes,
            agent.host,
            agent.conf.rescue_timeout,
        )
