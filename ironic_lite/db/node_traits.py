"""The traits of nodes (API 1.37): read in one query for a page of
nodes, written whole under the node lock (by the conductor)."""

from collections.abc import Iterable

import sqlalchemy as sa

from ironic_lite import exception
from ironic_lite.db.api import context_manager
from ironic_lite.db.api import retry_on_disconnect
from ironic_lite.db.models import NodeTrait
from lite_common.context import RequestContext

#: Upstream's limit.
MAX_TRAITS_PER_NODE = 50


@retry_on_disconnect
def traits_of(
    context: RequestContext, node_ids: Iterable[int]
) -> dict[int, list[str]]:
    """node id -> its traits, sorted, for every node of ``node_ids`` (a
    node without traits maps to ``[]``); one query."""
    wanted = sorted(set(node_ids))
    found: dict[int, list[str]] = {node_id: [] for node_id in wanted}
    if not wanted:
        return found
    query = (
        sa.select(NodeTrait.node_id, NodeTrait.trait)
        .where(NodeTrait.node_id.in_(wanted))
        .order_by(NodeTrait.node_id, NodeTrait.trait)
    )
    with context_manager.reader.using(context) as session:
        for node_id, trait in session.execute(query):
            found[node_id].append(trait)
    return found


@retry_on_disconnect
def set_traits(
    context: RequestContext,
    node_id: int,
    node_uuid: str,
    traits: Iterable[str],
) -> list[str]:
    """Replace the traits of a node with ``traits``; returns them.

    :raises InvalidParameterValue: more than 50 traits.
    """
    wanted = sorted(set(traits))
    if len(wanted) > MAX_TRAITS_PER_NODE:
        raise exception.InvalidParameterValue(
            err=f'Could not modify traits for node {node_uuid} as it would '
            'exceed the maximum number of traits per node '
            f'({len(wanted)} vs. {MAX_TRAITS_PER_NODE})'
        )
    with context_manager.writer.using(context) as session:
        session.execute(
            sa.delete(NodeTrait).where(NodeTrait.node_id == node_id)
        )
        if wanted:
            session.execute(
                sa.insert(NodeTrait),
                [{'node_id': node_id, 'trait': trait} for trait in wanted],
            )
    return wanted
