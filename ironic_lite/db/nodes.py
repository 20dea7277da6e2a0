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
from ironic_lite.db import node_locks
from ironic_lite.db.api import as_dict
from ironic_lite.db.api import context_manager
from ironic_lite.db.models import Node
from lite_common import db as lite_db

#: Columns a node list may be sorted by (upstream's, less the JSON
#: ones); ties are broken by id, so marker paging sees each node once.
SORT_KEYS = ('id', 'uuid', 'name', 'created_at', 'updated_at', 'driver',
             'power_state', 'target_power_state', 'provision_state',
             'target_provision_state', 'provision_updated_at',
             'maintenance', 'fault', 'resource_class', 'instance_uuid',
             'reservation', 'automated_clean', 'description')
_ident_clause = node_locks.ident_clause
# The node lock lives in node_locks; these names stay here for callers.
reserve = node_locks.reserve
release = node_locks.release
clear_reservations = node_locks.clear_reservations
release_all = node_locks.release_all
nodes_for_takeover = node_locks.nodes_for_takeover
reserved_by = node_locks.reserved_by

_EQUAL_FILTERS = ('driver', 'reservation', 'instance_uuid', 'resource_class')
FILTERS = frozenset(
    _EQUAL_FILTERS + ('provision_state', 'maintenance', 'associated',
                      'reserved'))


def _duplicate(exc: db_exc.DBDuplicateEntry,
               values: dict[str, Any], node: str) -> Exception:
    """The domain exception of a unique constraint violation."""
    columns = set(exc.columns or ())
    if 'name' in columns:
        return exception.DuplicateName(name=values.get('name'))
    if 'instance_uuid' in columns:
        return exception.InstanceAssociated(
            instance_uuid=values.get('instance_uuid'), node=node)
    return exception.NodeAlreadyExists(uuid=values.get('uuid', node))


def node_create(context: Any, values: dict[str, Any]) -> dict[str, Any]:
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


def node_get(context: Any, ident: int | str) -> dict[str, Any]:
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
        row = session.execute(
            sa.select(Node.__table__).where(clause)).mappings().first()
        if row is None:
            raise exception.NodeNotFound(node=ident)
        return dict(row)


def _filtered(query: Any, filters: dict[str, Any]) -> Any:
    unknown = set(filters) - FILTERS
    if unknown:
        raise exception.InvalidParameterValue(
            err=f'Unknown node filters: {", ".join(sorted(unknown))}')
    for key in _EQUAL_FILTERS:
        if key in filters:
            query = query.where(getattr(Node, key) == filters[key])
    states = filters.get('provision_state')
    if states is not None:
        if isinstance(states, str):
            states = [states]
        query = query.where(Node.provision_state.in_(states))
    if filters.get('maintenance') is not None:
        query = query.where(Node.maintenance == bool(filters['maintenance']))
    for key, column in (('associated', Node.instance_uuid),
                        ('reserved', Node.reservation)):
        if filters.get(key) is not None:
            query = query.where(column.is_not(None) if filters[key]
                                else column.is_(None))
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
            return sa.or_(column.is_not(None),
                          sa.and_(column.is_(None), Node.id < mark_id))
        return sa.or_(column < value,
                      sa.and_(column == value, Node.id < mark_id))
    if value is None:
        return sa.and_(column.is_(None), Node.id > mark_id)
    return sa.or_(column > value, column.is_(None),
                  sa.and_(column == value, Node.id > mark_id))


def _order_by(column: Any, descending: bool) -> list[Any]:
    keys = [column, Node.id]
    if column.nullable:
        # Backends disagree on where NULLs sort: say it.
        keys.insert(0, sa.case((column.is_(None), 1), else_=0))
    return [key.desc() if descending else key.asc() for key in keys]


def node_list(context: Any, filters: dict[str, Any] | None = None,
              limit: int | None = None, marker: str | None = None,
              sort_key: str = 'id',
              sort_dir: str = 'asc') -> list[dict[str, Any]]:
    """Nodes matching ``filters``, one page, in one query.

    ``filters`` keys: provision_state (one or a list), maintenance,
    driver, reservation, instance_uuid, associated, reserved. ``marker``
    is the uuid of the last node of the previous page.

    :raises InvalidParameterValue: unknown filter, sort key, sort
        direction or marker.
    """
    if sort_key not in SORT_KEYS:
        raise exception.InvalidParameterValue(
            err=f'Invalid sort key {sort_key!r}; use one of '
            f'{", ".join(SORT_KEYS)}.')
    if sort_dir not in ('asc', 'desc'):
        raise exception.InvalidParameterValue(
            err=f'Invalid sort direction {sort_dir!r}; use asc or desc.')
    descending = sort_dir == 'desc'
    column = getattr(Node, sort_key)
    query = _filtered(sa.select(Node.__table__), filters or {})
    with context_manager.reader.using(context) as session:
        if marker is not None:
            mark = session.execute(sa.select(column, Node.id).where(
                Node.uuid == marker)).first()
            if mark is None:
                raise exception.InvalidParameterValue(
                    err=f'Marker {marker} not found.')
            query = query.where(_after_marker(column, mark, descending))
        query = query.order_by(*_order_by(column, descending))
        if limit is not None:
            query = query.limit(limit)
        return [dict(row) for row in session.execute(query).mappings()]


def node_list_in_states(
        context: Any, states: list[str] | tuple[str, ...] | frozenset[str],
        limit: int | None = None,
        provision_updated_before: datetime.datetime | None = None,
) -> list[dict[str, Any]]:
    """Nodes in any of ``states``, longest there first, in one query.

    With ``provision_updated_before``, only nodes that entered their
    state before that time: those a callback timeout has expired for.
    """
    query = sa.select(Node.__table__).where(
        Node.provision_state.in_(list(states)))
    if provision_updated_before is not None:
        query = query.where(
            Node.provision_updated_at < provision_updated_before)
    query = query.order_by(*_order_by(Node.provision_updated_at, False))
    if limit is not None:
        query = query.limit(limit)
    with context_manager.reader.using(context) as session:
        return [dict(row) for row in session.execute(query).mappings()]


def node_update(context: Any, node_id: int | str,
                values: dict[str, Any],
                locked_by: str | None = None) -> dict[str, Any]:
    """Update a node named by id or uuid; returns it.

    A provision_state change also sets provision_updated_at. With
    ``locked_by``, only while that host holds the node lock.

    :raises InvalidParameterValue: an attempt to change uuid or id.
    :raises NodeNotFound, DuplicateName, InstanceAssociated:
    :raises NodeAssociated: setting another instance_uuid on a node
        that has one.
    :raises NodeNotLocked: ``locked_by`` does not hold the lock (it
        was taken over); nothing was changed.
    """
    if 'uuid' in values or 'id' in values:
        raise exception.InvalidParameterValue(
            err='Cannot overwrite UUID or id of an existing node.')
    unknown = set(values) - set(Node.__table__.columns.keys())
    if unknown:
        raise exception.InvalidParameterValue(
            err=f'Unknown node fields: {", ".join(sorted(unknown))}')
    values = dict(values)
    if 'provision_state' in values:
        values.setdefault('provision_updated_at', lite_db.utcnow())
    try:
        with context_manager.writer.using(context) as session:
            query = sa.select(Node).where(_ident_clause(node_id))
            if locked_by is not None:
                # The row stays locked until the update commits: a
                # takeover cannot slip in between check and write.
                query = query.with_for_update()
            row = session.scalars(query).first()
            if row is None:
                raise exception.NodeNotFound(node=node_id)
            if locked_by is not None and row.reservation != locked_by:
                raise exception.NodeNotLocked(
                    node=row.uuid, host=locked_by, holder=row.reservation)
            new_instance = values.get('instance_uuid')
            if (new_instance is not None and row.instance_uuid is not None
                    and row.instance_uuid != new_instance):
                raise exception.NodeAssociated(
                    node=row.uuid, instance=row.instance_uuid)
            for key, value in values.items():
                setattr(row, key, value)
            session.flush()
            return as_dict(row)
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, values, str(node_id))


def node_destroy(context: Any, node_id: int | str) -> None:
    """Delete a node named by id or uuid.

    :raises NodeNotFound:
    """
    with context_manager.writer.using(context) as session:
        result = session.execute(
            sa.delete(Node).where(_ident_clause(node_id)))
        if result.rowcount != 1:
            raise exception.NodeNotFound(node=node_id)


def nodes_by_reservation(context: Any,
                         hostname: str) -> list[dict[str, Any]]:
    """The nodes ``hostname`` holds the lock of, by id."""
    return node_list(context, {'reservation': hostname})
