"""Access to the history of nodes (``node_history``): events recorded
by the conductors, read by the API."""

from typing import Any

from oslo_utils import uuidutils
import sqlalchemy as sa

from ironic_lite import exception
from ironic_lite.db import paging
from ironic_lite.db.api import as_dict
from ironic_lite.db.api import context_manager
from ironic_lite.db.api import retried
from ironic_lite.db.api import retry_on_disconnect
from ironic_lite.db.models import NodeHistory
from lite_common.context import RequestContext


def _missing(uuid: str) -> Exception:
    return exception.NodeHistoryNotFound(history=uuid)


@retried
def record(
    context: RequestContext, values: dict[str, Any], max_entries: int
) -> dict[str, Any]:
    """Insert an event of ``values['node_id']``, then delete the oldest
    events of the node beyond ``max_entries`` (in one transaction)."""
    values = dict(values, uuid=values.get('uuid') or uuidutils.generate_uuid())
    with context_manager.writer.using(context) as session:
        row = NodeHistory(**values)
        session.add(row)
        session.flush()
        result = as_dict(row)
        keep = (
            sa.select(NodeHistory.id)
            .where(NodeHistory.node_id == values['node_id'])
            .order_by(NodeHistory.created_at.desc(), NodeHistory.id.desc())
            .limit(max_entries)
        )
        # A derived table: MySQL refuses a LIMIT in an IN subquery.
        kept = sa.select(keep.subquery().c.id)
        session.execute(
            sa.delete(NodeHistory)
            .where(
                NodeHistory.node_id == values['node_id'],
                NodeHistory.id.not_in(kept),
            )
            .execution_options(synchronize_session=False)
        )
        return result


@retry_on_disconnect
def get(context: RequestContext, node_id: int, uuid: str) -> dict[str, Any]:
    """An event of the node.

    :raises NodeHistoryNotFound:
    """
    with context_manager.reader.using(context) as session:
        row = (
            session.execute(
                sa.select(NodeHistory.__table__).where(
                    NodeHistory.node_id == node_id, NodeHistory.uuid == uuid
                )
            )
            .mappings()
            .first()
        )
    if row is None:
        raise _missing(uuid)
    return dict(row)


@retry_on_disconnect
def list_page(
    context: RequestContext,
    node_id: int,
    limit: int | None = None,
    marker: str | None = None,
    sort_key: str = 'created_at',
    sort_dir: str = 'asc',
) -> list[dict[str, Any]]:
    """One page of the node's events.

    :raises InvalidParameterValue: sort key or direction.
    :raises NodeHistoryNotFound: an unknown marker.
    """
    column = paging.check_sort(NodeHistory, sort_key, sort_dir)
    query = sa.select(NodeHistory.__table__).where(
        NodeHistory.node_id == node_id
    )
    with context_manager.reader.using(context) as session:
        return paging.page(
            session,
            NodeHistory,
            query,
            column,
            sort_dir == 'desc',
            limit,
            marker,
            _missing,
        )
