"""Access to allocations (API 1.52) and the node each one holds.

Rows come back as dicts with the uuid of their node (``node_uuid``,
None while allocating or in error), joined in the same query. A uuid and
a name each belong to one allocation (unique constraints).

A node is taken by one conditional UPDATE (:func:`take_node`): it must
still be free (no allocation, no instance) and in the state the caller
saw; the allocation is made ``active`` in the same transaction. Two
allocations racing for one node: one UPDATE matches, the other does not
and its conductor tries the next candidate.
"""

import dataclasses
from typing import Any

from oslo_db import exception as db_exc
from oslo_utils import uuidutils
import sqlalchemy as sa

from ironic_lite import exception
from ironic_lite.db import paging
from ironic_lite.db.api import context_manager
from ironic_lite.db.api import retried
from ironic_lite.db.api import retry_on_disconnect
from ironic_lite.db.models import Allocation
from ironic_lite.db.models import Node
from ironic_lite.db.models import NodeTrait
from lite_common.context import RequestContext

ALLOCATING = 'allocating'
ACTIVE = 'active'
ERROR = 'error'
STATES = (ALLOCATING, ACTIVE, ERROR)
#: Columns a list may not be sorted by (JSON documents), as upstream.
UNSORTABLE = ('extra', 'candidate_nodes', 'traits')


@dataclasses.dataclass(frozen=True)
class Filters:
    """What an allocation list is narrowed to (each one optional)."""

    node_id: int | None = None
    resource_class: str | None = None
    state: str | None = None
    owner: str | None = None


def _select() -> Any:
    return sa.select(
        Allocation.__table__, Node.uuid.label('node_uuid')
    ).outerjoin(Node, Node.id == Allocation.node_id)


def _duplicate(
    exc: db_exc.DBDuplicateEntry, values: dict[str, Any]
) -> Exception:
    if 'name' in set(exc.columns or ()):
        return exception.AllocationDuplicateName(name=values.get('name'))
    return exception.AllocationAlreadyExists(uuid=values.get('uuid'))


def _clause(ident: int | str) -> Any:
    if isinstance(ident, int):
        return Allocation.id == ident
    if uuidutils.is_uuid_like(ident):
        return Allocation.uuid == ident
    return Allocation.name == ident


def _get(session: Any, ident: int | str) -> dict[str, Any]:
    row = session.execute(_select().where(_clause(ident))).mappings().first()
    if row is None:
        raise exception.AllocationNotFound(allocation=ident)
    return dict(row)


@retried
def create(context: RequestContext, values: dict[str, Any]) -> dict[str, Any]:
    """Insert an allocation (``allocating`` unless ``values`` says);
    returns it.

    :raises: AllocationAlreadyExists, AllocationDuplicateName.
    """
    values = {'state': ALLOCATING, **values}
    if not values.get('uuid'):
        values['uuid'] = uuidutils.generate_uuid()
    try:
        with context_manager.writer.using(context) as session:
            session.add(Allocation(**values))
            session.flush()
            return _get(session, values['uuid'])
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, values)


@retry_on_disconnect
def get(context: RequestContext, ident: int | str) -> dict[str, Any]:
    """By integer id, uuid or name. :raises AllocationNotFound:"""
    with context_manager.reader.using(context) as session:
        return _get(session, ident)


def _filtered(query: Any, filters: Filters) -> Any:
    for key in ('node_id', 'resource_class', 'state', 'owner'):
        value = getattr(filters, key)
        if value is not None:
            query = query.where(getattr(Allocation, key) == value)
    return query


@retry_on_disconnect
def list_page(
    context: RequestContext,
    filters: Filters,
    limit: int | None = None,
    marker: str | None = None,
    sort_key: str = 'id',
    sort_dir: str = 'asc',
) -> list[dict[str, Any]]:
    """One page of the allocations that match ``filters`` (one query).

    :raises InvalidParameterValue: sort key or direction.
    :raises AllocationNotFound: an unknown marker.
    """
    column = paging.check_sort(Allocation, sort_key, sort_dir, UNSORTABLE)
    query = _filtered(_select(), filters)
    with context_manager.reader.using(context) as session:
        return paging.page(
            session,
            Allocation,
            query,
            column,
            sort_dir == 'desc',
            limit,
            marker,
            lambda ident: exception.AllocationNotFound(allocation=ident),
        )


@retried
def update(
    context: RequestContext,
    ident: int | str,
    values: dict[str, Any],
    expected_state: str | None = None,
) -> dict[str, Any]:
    """Write ``values`` of one allocation; returns it. With
    ``expected_state``, only while the allocation is in that state
    (:raises AllocationChanged: otherwise).

    :raises: AllocationNotFound, AllocationDuplicateName.
    """
    try:
        with context_manager.writer.using(context) as session:
            current = _get(session, ident)
            if values:
                query = sa.update(Allocation).where(
                    Allocation.id == current['id']
                )
                if expected_state is not None:
                    query = query.where(Allocation.state == expected_state)
                result = session.execute(
                    query.values(**values).execution_options(
                        synchronize_session=False
                    )
                )
                if result.rowcount != 1:
                    raise exception.AllocationChanged(
                        allocation=current['uuid'], state=expected_state
                    )
            return _get(session, current['id'])
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, values)


@retried
def take_node(
    context: RequestContext,
    allocation_id: int,
    node: dict[str, Any],
    node_values: dict[str, Any],
) -> dict[str, Any] | None:
    """Give the node to the allocation, if both are as the caller saw
    them: the node free (no allocation, no instance, not locked) and at
    the revision read, the allocation still ``allocating``. The node gets
    ``allocation_id``, ``instance_uuid`` (the allocation's uuid) and
    ``node_values``; the allocation becomes ``active`` with the node.

    :returns: the allocation, or None when the node was taken (or
        changed) in between: the caller tries another.
    :raises AllocationChanged: the allocation is no longer allocating
        (it was deleted or failed meanwhile).
    """
    with context_manager.writer.using(context) as session:
        allocation = _get(session, allocation_id)
        if allocation['state'] != ALLOCATING:
            raise exception.AllocationChanged(
                allocation=allocation['uuid'], state=ALLOCATING
            )
        taken = session.execute(
            sa.update(Node)
            .where(
                Node.id == node['id'],
                Node.revision == node['revision'],
                Node.allocation_id.is_(None),
                Node.instance_uuid.is_(None),
                Node.reservation.is_(None),
            )
            .values(
                allocation_id=allocation_id,
                instance_uuid=allocation['uuid'],
                revision=Node.revision + 1,
                **node_values,
            )
            .execution_options(synchronize_session=False)
        )
        if taken.rowcount != 1:
            return None
        done = session.execute(
            sa.update(Allocation)
            .where(
                Allocation.id == allocation_id, Allocation.state == ALLOCATING
            )
            .values(
                node_id=node['id'],
                state=ACTIVE,
                last_error=None,
                conductor_affinity=None,
            )
            .execution_options(synchronize_session=False)
        )
        if done.rowcount != 1:
            # Deleted between the two statements: undo it all.
            raise exception.AllocationChanged(
                allocation=allocation['uuid'], state=ALLOCATING
            )
        return _get(session, allocation_id)


@retried
def backfill(
    context: RequestContext, values: dict[str, Any], node: dict[str, Any]
) -> dict[str, Any]:
    """Create an ``active`` allocation of a node already deployed
    (1.58), linking both, if the node still has no allocation and the
    same instance as read.

    :raises NodeAssociated: the node changed (another allocation).
    """
    values = {**values, 'state': ACTIVE, 'node_id': node['id']}
    if not values.get('uuid'):
        values['uuid'] = uuidutils.generate_uuid()
    try:
        with context_manager.writer.using(context) as session:
            session.add(Allocation(**values))
            session.flush()
            row = _get(session, values['uuid'])
            instance = node['instance_uuid'] or values['uuid']
            linked = session.execute(
                sa.update(Node)
                .where(
                    Node.id == node['id'],
                    Node.allocation_id.is_(None),
                    (
                        Node.instance_uuid.is_(None)
                        if node['instance_uuid'] is None
                        else Node.instance_uuid == node['instance_uuid']
                    ),
                )
                .values(
                    allocation_id=row['id'],
                    instance_uuid=instance,
                    revision=Node.revision + 1,
                )
                .execution_options(synchronize_session=False)
            )
            if linked.rowcount != 1:
                raise exception.NodeAssociated(
                    node=node['uuid'], instance=values['uuid']
                )
            return row
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, values)


@retried
def destroy(
    context: RequestContext, ident: int | str, release_node: bool = True
) -> dict[str, Any]:
    """Delete an allocation; its node (if any) forgets it, and, unless
    the node runs an instance deployed through the allocation that must
    stay (``release_node`` False), its ``instance_uuid`` too. Returns
    the row deleted.

    :raises AllocationNotFound:
    """
    with context_manager.writer.using(context) as session:
        row = _get(session, ident)
        if row['node_id'] is not None:
            values: dict[str, Any] = {
                'allocation_id': None,
                'revision': Node.revision + 1,
            }
            if release_node:
                values['instance_uuid'] = None
            session.execute(
                sa.update(Node)
                .where(
                    Node.id == row['node_id'], Node.allocation_id == row['id']
                )
                .values(**values)
                .execution_options(synchronize_session=False)
            )
        session.execute(
            sa.delete(Allocation).where(Allocation.id == row['id'])
        )
        return row


@retry_on_disconnect
def candidates(
    context: RequestContext,
    resource_class: str | None,
    traits: list[str],
    owner: str | None,
    node_uuids: list[str] | None,
) -> list[dict[str, Any]]:
    """The nodes an allocation may take now (one query): available, with
    a known power state (as upstream: a node never read is not ready),
    not in maintenance, not locked, without instance or allocation, of
    the resource class, with every trait, owned by ``owner`` when given,
    among ``node_uuids`` when given."""
    query = sa.select(Node.__table__).where(
        Node.provision_state == 'available',
        Node.power_state.is_not(None),
        Node.maintenance.is_(False),
        Node.reservation.is_(None),
        Node.instance_uuid.is_(None),
        Node.allocation_id.is_(None),
    )
    if resource_class is not None:
        query = query.where(Node.resource_class == resource_class)
    if owner is not None:
        query = query.where(Node.owner == owner)
    if node_uuids is not None:
        query = query.where(Node.uuid.in_(node_uuids))
    for trait in traits:
        query = query.where(
            sa.exists().where(
                NodeTrait.node_id == Node.id, NodeTrait.trait == trait
            )
        )
    with context_manager.reader.using(context) as session:
        return [dict(row) for row in session.execute(query).mappings().all()]


@retried
def in_state(context: RequestContext, state: str) -> list[dict[str, Any]]:
    """Every allocation in ``state`` (one query)."""
    with context_manager.reader.using(context) as session:
        return [
            dict(row)
            for row in session.execute(
                _select().where(Allocation.state == state)
            )
            .mappings()
            .all()
        ]


@retried
def uuids_of(
    context: RequestContext, allocation_ids: list[int | None]
) -> dict[int, str]:
    """allocation id -> uuid for ``allocation_ids`` (None skipped); one
    query."""
    wanted = sorted({i for i in allocation_ids if i is not None})
    if not wanted:
        return {}
    with context_manager.reader.using(context) as session:
        return {
            row_id: uuid
            for row_id, uuid in session.execute(
                sa.select(Allocation.id, Allocation.uuid).where(
                    Allocation.id.in_(wanted)
                )
            ).all()
        }
