"""Access to the nodes table, and the node lock.

A node is named by its integer id, its uuid or (in :func:`node_get`)
its name. The lock is the ``reservation`` column, taken and given back
in :mod:`ironic_lite.db.node_locks` (its functions are importable from
here too).
"""

import datetime
from typing import Any

from oslo_db import exception as db_exc
from oslo_utils import uuidutils
import sqlalchemy as sa

from ironic_lite import exception
from ironic_lite.common import states
from ironic_lite.common.conductor_identity import ConductorIdentity
from ironic_lite.db import node_children
from ironic_lite.db import node_locks
from ironic_lite.db.api import as_dict
from ironic_lite.db.api import context_manager
from ironic_lite.db.api import retried
from ironic_lite.db.api import retry_on_disconnect
from ironic_lite.db.models import Node
from ironic_lite.db.models import Port
from lite_common import db as lite_db
from lite_common.context import RequestContext

#: Columns a node list may be sorted by (upstream's, less the JSON
#: ones); ties are broken by id, so marker paging sees each node once.
SORT_KEYS = (
    'id',
    'uuid',
    'name',
    'created_at',
    'updated_at',
    'driver',
    'power_state',
    'target_power_state',
    'provision_state',
    'target_provision_state',
    'provision_updated_at',
    'maintenance',
    'fault',
    'resource_class',
    'instance_uuid',
    'reservation',
    'automated_clean',
    'description',
    'conductor_group',
    'protected',
    'owner',
    'lessee',
    'retired',
    'shard',
    'parent_node',
    'instance_name',
    'boot_mode',
    'secure_boot',
    'inspection_started_at',
    'inspection_finished_at',
    'disable_power_off',
    'health',
)
_ident_clause = node_locks.ident_clause

_EQUAL_FILTERS = (
    'driver',
    'reservation',
    'instance_uuid',
    'resource_class',
    'conductor_group',
    'owner',
    'lessee',
    'instance_name',
    'chassis_id',
    'fault',
)
_BOOL_FILTERS = ('maintenance', 'retired')
#: Filter -> the column it asks to be set (true) or null (false).
_NON_NULL_FILTERS = {
    'associated': Node.instance_uuid,
    'reserved': Node.reservation,
    'sharded': Node.shard,
}
FILTERS = frozenset(
    _EQUAL_FILTERS
    + _BOOL_FILTERS
    + tuple(_NON_NULL_FILTERS)
    + (
        'provision_state',
        'shard',
        'project',
        'parent_node',
        'description_contains',
    )
)


def _duplicate(
    exc: db_exc.DBDuplicateEntry, values: dict[str, Any], node: str
) -> Exception:
    """The domain exception of a unique constraint violation."""
    columns = set(exc.columns or ())
    if 'name' in columns:
        return exception.DuplicateName(name=values.get('name'))
    if 'instance_uuid' in columns:
        return exception.InstanceAssociated(
            instance_uuid=values.get('instance_uuid'), node=node
        )
    return exception.NodeAlreadyExists(uuid=values.get('uuid', node))


@retried
def node_create(
    context: RequestContext, values: dict[str, Any]
) -> dict[str, Any]:
    """Create a node; a uuid is generated when ``values`` has none.

    :raises NodeAlreadyExists, DuplicateName, InstanceAssociated:
    """
    values = dict(values)
    values.pop('id', None)
    if not values.get('uuid'):
        values['uuid'] = uuidutils.generate_uuid()
    try:
        with context_manager.writer.using(context) as session:
            row = Node(**values)
            session.add(row)
            session.flush()
            return as_dict(row)
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, values, values['uuid'])
    except db_exc.DBReferenceError:
        # The chassis was deleted since the API looked it up.
        raise exception.InvalidParameterValue(
            err='The chassis of the node does not exist (any more).'
        )


@retry_on_disconnect
def node_get(context: RequestContext, ident: int | str) -> dict[str, Any]:
    """One node by integer id, uuid or name.

    :raises NodeNotFound:
    """
    if isinstance(ident, int):
        clause = Node.id == ident
    elif uuidutils.is_uuid_like(ident):
        clause = Node.uuid == ident
    else:
        clause = Node.name == ident
    with context_manager.reader.using(context) as session:
        row = (
            session.execute(sa.select(Node.__table__).where(clause))
            .mappings()
            .first()
        )
        if row is None:
            raise exception.NodeNotFound(node=ident)
        return dict(row)


@retry_on_disconnect
def node_get_by_port_addresses(
    context: RequestContext, addresses: list[str]
) -> dict[str, Any]:
    """The one node with a port at any of ``addresses`` (normalized MAC
    addresses), for a ramdisk's lookup (one query).

    :raises NodeNotFound: no node, or more than one (a lookup must
        never hand one machine another's node).
    """
    query = (
        sa.select(Node.__table__)
        .distinct()
        .join(Port, Port.node_id == Node.id)
        .where(Port.address.in_(addresses))
        .limit(2)
    )
    with context_manager.reader.using(context) as session:
        rows = session.execute(query).mappings().all()
    if len(rows) != 1:
        raise exception.NodeNotFound(
            node=f'with port addresses {", ".join(addresses)}'
            + (' (more than one)' if rows else '')
        )
    return dict(rows[0])


def _filtered(query: Any, filters: dict[str, Any]) -> Any:
    unknown = set(filters) - FILTERS
    if unknown:
        raise exception.InvalidParameterValue(
            err=f'Unknown node filters: {", ".join(sorted(unknown))}'
        )
    for key in _EQUAL_FILTERS:
        if key in filters:
            query = query.where(getattr(Node, key) == filters[key])
    if filters.get('description_contains') is not None:
        query = query.where(
            Node.description.contains(
                filters['description_contains'], autoescape=True
            )
        )
    states = filters.get('provision_state')
    if states is not None:
        if isinstance(states, str):
            states = [states]
        query = query.where(Node.provision_state.in_(states))
    for key in _BOOL_FILTERS:
        if filters.get(key) is not None:
            query = query.where(getattr(Node, key) == bool(filters[key]))
    for key, column in _NON_NULL_FILTERS.items():
        if filters.get(key) is not None:
            query = query.where(
                column.is_not(None) if filters[key] else column.is_(None)
            )
    return _filtered_links(query, filters)


def _filtered_links(query: Any, filters: dict[str, Any]) -> Any:
    """The filters of shards (a list), projects (owner or lessee) and
    parents (a uuid, or None: nodes without a parent)."""
    if filters.get('shard') is not None:
        query = query.where(Node.shard.in_(list(filters['shard'])))
    project = filters.get('project')
    if project is not None:
        query = query.where(
            sa.or_(Node.owner == project, Node.lessee == project)
        )
    if 'parent_node' in filters:
        parent = filters['parent_node']
        query = query.where(
            Node.parent_node.is_(None)
            if parent is None
            else Node.parent_node == parent
        )
    return query


def _after_marker(column: Any, mark: Any, descending: bool) -> Any:
    """Rows after the marker row in (column, id) order.

    NULLs sort after every value ascending, before every value
    descending, on every backend (see :func:`_order_by`).
    """
    value, mark_id = mark
    if value is not None:
        # A bound literal: SQLAlchemy refuses < and > with Python booleans.
        value = sa.literal(value, column.type)
    if descending:
        if value is None:
            return sa.or_(
                column.is_not(None),
                sa.and_(column.is_(None), Node.id < mark_id),
            )
        return sa.or_(
            column < value, sa.and_(column == value, Node.id < mark_id)
        )
    if value is None:
        return sa.and_(column.is_(None), Node.id > mark_id)
    return sa.or_(
        column > value,
        column.is_(None),
        sa.and_(column == value, Node.id > mark_id),
    )


def _order_by(column: Any, descending: bool) -> list[Any]:
    keys = [column, Node.id]
    if column.nullable:
        # Backends disagree on where NULLs sort: say it.
        keys.insert(0, sa.case((column.is_(None), 1), else_=0))
    return [key.desc() if descending else key.asc() for key in keys]


@retry_on_disconnect
def node_list(
    context: RequestContext,
    filters: dict[str, Any] | None = None,
    limit: int | None = None,
    marker: str | None = None,
    sort_key: str = 'id',
    sort_dir: str = 'asc',
) -> list[dict[str, Any]]:
    """Nodes matching ``filters``, one page, in one query.

    ``filters`` keys: provision_state (one or a list), maintenance,
    retired, driver, reservation, instance_uuid, resource_class,
    conductor_group, owner, lessee, instance_name, associated, reserved,
    sharded, shard (a list), project (owner or lessee), parent_node (a
    uuid; None: nodes without a parent). ``marker``
    is the uuid of the last node of the previous page.

    :raises InvalidParameterValue: unknown filter, sort key, sort
        direction or marker.
    """
    if sort_key not in SORT_KEYS:
        raise exception.InvalidParameterValue(
            err=f'Invalid sort key {sort_key!r}; use one of '
            f'{", ".join(SORT_KEYS)}.'
        )
    if sort_dir not in ('asc', 'desc'):
        raise exception.InvalidParameterValue(
            err=f'Invalid sort direction {sort_dir!r}; use asc or desc.'
        )
    descending = sort_dir == 'desc'
    column = getattr(Node, sort_key)
    query = _filtered(sa.select(Node.__table__), filters or {})
    with context_manager.reader.using(context) as session:
        if marker is not None:
            mark = session.execute(
                sa.select(column, Node.id).where(Node.uuid == marker)
            ).first()
            if mark is None:
                raise exception.InvalidParameterValue(
                    err=f'Marker {marker} not found.'
                )
            query = query.where(_after_marker(column, mark, descending))
        query = query.order_by(*_order_by(column, descending))
        if limit is not None:
            query = query.limit(limit)
        result = session.execute(query)
        # zip over plain rows: a page of nodes is read much faster than
        # through RowMapping (measured: benchmarks/baremetal_list.py).
        keys = tuple(result.keys())
        return [dict(zip(keys, row, strict=True)) for row in result]


@retry_on_disconnect
def node_uuids(context: RequestContext, filters: dict[str, Any]) -> list[str]:
    """The uuids of the nodes matching ``filters`` (as
    :func:`node_list`), by id, in one query."""
    query = _filtered(sa.select(Node.uuid), filters).order_by(Node.id)
    with context_manager.reader.using(context) as session:
        return list(session.scalars(query))


@retry_on_disconnect
def shard_counts(context: RequestContext) -> list[tuple[str | None, int]]:
    """``(shard, number of nodes)`` of every shard (None: the nodes
    without one), the largest first, in one query."""
    count = sa.func.count(Node.id)
    query = (
        sa.select(Node.shard, count)
        .group_by(Node.shard)
        .order_by(count.desc(), Node.shard)
    )
    with context_manager.reader.using(context) as session:
        return [(row[0], int(row[1])) for row in session.execute(query)]


@retry_on_disconnect
def node_list_in_states(
    context: RequestContext,
    states: list[str] | tuple[str, ...] | frozenset[str],
    limit: int | None = None,
    provision_updated_before: datetime.datetime | None = None,
) -> list[dict[str, Any]]:
    """Nodes in any of ``states``, longest there first, in one query.

    With ``provision_updated_before``, only nodes that entered their
    state before that time: those a callback timeout has expired for.
    """
    query = sa.select(Node.__table__).where(
        Node.provision_state.in_(list(states))
    )
    if provision_updated_before is not None:
        query = query.where(
            Node.provision_updated_at < provision_updated_before
        )
    query = query.order_by(*_order_by(Node.provision_updated_at, False))
    if limit is not None:
        query = query.limit(limit)
    with context_manager.reader.using(context) as session:
        return [dict(row) for row in session.execute(query).mappings()]


def _check_update(values: dict[str, Any]) -> None:
    if 'uuid' in values or 'id' in values:
        raise exception.InvalidParameterValue(
            err='Cannot overwrite UUID or id of an existing node.'
        )
    unknown = set(values) - set(Node.__table__.columns.keys())
    if unknown:
        raise exception.InvalidParameterValue(
            err=f'Unknown node fields: {", ".join(sorted(unknown))}'
        )
    if 'revision' in values:
        raise exception.InvalidParameterValue(
            err='The revision of a node is only ever incremented.'
        )


def _why_not_updated(
    session: Any,
    node_id: int | str,
    values: dict[str, Any],
    locked_by: ConductorIdentity | None,
    expected_revision: int | None,
) -> Exception:
    """The error of a conditional update that matched no row."""
    row = session.execute(
        sa.select(
            Node.uuid, Node.reservation, Node.revision, Node.instance_uuid
        ).where(_ident_clause(node_id))
    ).first()
    if row is None:
        return exception.NodeNotFound(node=node_id)
    if locked_by is not None:
        _uuid, lock = node_locks.lock_state_in(session, node_id)
        if not lock.held_by(locked_by):
            return node_locks.not_locked(row.uuid, locked_by, lock)
    if expected_revision is not None and row.revision != expected_revision:
        return exception.NodeChanged(
            node=row.uuid, expected=expected_revision, actual=row.revision
        )
    return exception.NodeAssociated(node=row.uuid, instance=row.instance_uuid)


_INSPECTING = (states.INSPECTING, states.INSPECTWAIT)


def _inspection_times(values: dict[str, Any]) -> None:
    """As upstream: an inspection that ends (inspecting or inspect wait
    to manageable or inspect failed) forgets when it started, and one
    that succeeds records when it finished; decided in the UPDATE itself
    on the state the node leaves."""
    new = values['provision_state']
    if new not in (states.MANAGEABLE, states.INSPECTFAIL):
        return
    was_inspecting = Node.provision_state.in_(_INSPECTING)
    values.setdefault(
        'inspection_started_at',
        sa.case((was_inspecting, sa.null()), else_=Node.inspection_started_at),
    )
    if new == states.MANAGEABLE:
        values.setdefault(
            'inspection_finished_at',
            sa.case(
                (was_inspecting, lite_db.utcnow()),
                else_=Node.inspection_finished_at,
            ),
        )


@retry_on_disconnect
def node_update(
    context: RequestContext,
    node_id: int | str,
    values: dict[str, Any],
    locked_by: ConductorIdentity | None = None,
    expected_revision: int | None = None,
) -> dict[str, Any]:
    """Update a node named by id or uuid in one conditional UPDATE
    (which also increments its revision); returns the node.

    A provision_state change also sets provision_updated_at. With
    ``locked_by``, only while that process holds the node lock (its
    host holds the lock and it holds the host name); with
    ``expected_revision``, only while the node is at that revision
    (nothing wrote it since it was read). Only the fields in ``values``
    are written.

    :raises InvalidParameterValue: an attempt to change uuid, id or the
        revision, or an unknown field.
    :raises NodeNotFound, DuplicateName, InstanceAssociated:
    :raises NodeAssociated: setting another instance_uuid on a node
        that has one.
    :raises NodeNotLocked: ``locked_by`` does not hold the lock (it
        was taken over); nothing was changed.
    :raises NodeChanged: the node is not at ``expected_revision``;
        nothing was changed.
    """
    _check_update(values)
    values = dict(values)
    if 'provision_state' in values:
        values.setdefault('provision_updated_at', lite_db.utcnow())
        _inspection_times(values)
    update = sa.update(Node).where(_ident_clause(node_id))
    if locked_by is not None:
        update = update.where(node_locks.holds_lock(locked_by))
    if expected_revision is not None:
        update = update.where(Node.revision == expected_revision)
    new_instance = values.get('instance_uuid')
    if new_instance is not None:
        update = update.where(
            sa.or_(
                Node.instance_uuid.is_(None),
                Node.instance_uuid == new_instance,
            )
        )
    update = update.values(**values, revision=Node.revision + 1)
    try:
        with context_manager.writer.using(context) as session:
            result = session.execute(
                update.execution_options(synchronize_session=False)
            )
            if result.rowcount != 1:
                raise _why_not_updated(
                    session, node_id, values, locked_by, expected_revision
                )
            return dict(
                session.execute(
                    sa.select(Node.__table__).where(_ident_clause(node_id))
                )
                .mappings()
                .one()
            )
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, values, str(node_id))
    except db_exc.DBReferenceError:
        # The chassis was deleted since the API looked it up.
        raise exception.InvalidParameterValue(
            err='The chassis of the node does not exist (any more).'
        )


@retried
def node_destroy(context: RequestContext, node_id: int | str) -> None:
    """Delete a node named by id or uuid, with the rows that belong to
    it (:mod:`ironic_lite.db.node_children`: volume connectors and
    targets, history, traits, ports and portgroups).

    :raises NodeNotFound:
    """
    with context_manager.writer.using(context) as session:
        row_id = session.execute(
            sa.select(Node.id).where(_ident_clause(node_id))
        ).scalar()
        if row_id is not None:
            # What belongs to the node goes with it (first: the foreign
            # keys refuse the node's delete otherwise).
            node_children.destroy_of_node(session, row_id)
        result = session.execute(sa.delete(Node).where(_ident_clause(node_id)))
        if result.rowcount != 1:
            raise exception.NodeNotFound(node=node_id)


def nodes_by_reservation(
    context: RequestContext, hostname: str
) -> list[dict[str, Any]]:
    """The nodes ``hostname`` holds the lock of, by id."""
    return node_list(context, {'reservation': hostname})
