"""Access to the network ports of nodes.

Rows come back as dicts with the uuid of their node (``node_uuid``) and
of their portgroup (``portgroup_uuid``, None outside a group), joined in
the same query: a page is one query whatever its length. A MAC address,
a uuid and a name each belong to one port (unique constraints, so that
two concurrent creates cannot both win).
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
from ironic_lite.db.models import Node
from ironic_lite.db.models import Port
from ironic_lite.db.models import Portgroup
from lite_common.context import RequestContext

#: Columns a list may not be sorted by (JSON documents), as upstream.
UNSORTABLE = ('extra', 'internal_info', 'local_link_connection')


@dataclasses.dataclass(frozen=True)
class Filters:
    """What a port list is narrowed to (each one optional)."""

    node_id: int | None = None
    portgroup_id: int | None = None
    address: str | None = None
    shards: tuple[str, ...] | None = None
    conductor_groups: tuple[str, ...] | None = None
    description_contains: str | None = None
    #: Only the ports of nodes this project owns or leases.
    project: str | None = None


def _select() -> Any:
    return (
        sa.select(
            Port.__table__,
            Node.uuid.label('node_uuid'),
            Portgroup.uuid.label('portgroup_uuid'),
        )
        .join(Node, Node.id == Port.node_id)
        .outerjoin(Portgroup, Portgroup.id == Port.portgroup_id)
    )


def _duplicate(
    exc: db_exc.DBDuplicateEntry, values: dict[str, Any]
) -> Exception:
    columns = set(exc.columns or ())
    if 'name' in columns:
        return exception.PortDuplicateName(name=values.get('name'))
    if 'uuid' in columns:
        return exception.PortAlreadyExists(uuid=values.get('uuid'))
    # The address, or a backend that does not name the column.
    return exception.MACAlreadyExists(mac=values.get('address'))


def _get(session: Any, clause: Any, ident: Any) -> dict[str, Any]:
    row = session.execute(_select().where(clause)).mappings().first()
    if row is None:
        raise exception.PortNotFound(port=ident)
    return dict(row)


def _clause(ident: int | str) -> Any:
    """A port by integer id, uuid or name (as upstream's Port.get; a
    MAC address names no port here: the API refuses it as an ident)."""
    if isinstance(ident, int):
        return Port.id == ident
    if uuidutils.is_uuid_like(ident):
        return Port.uuid == ident
    return Port.name == ident


@retried
def create(context: RequestContext, values: dict[str, Any]) -> dict[str, Any]:
    """Insert a port (``values`` with ``node_id``); returns it.

    :raises: MACAlreadyExists, PortAlreadyExists, PortDuplicateName.
    """
    values = dict(values)
    if not values.get('uuid'):
        values['uuid'] = uuidutils.generate_uuid()
    try:
        with context_manager.writer.using(context) as session:
            session.add(Port(**values))
            session.flush()
            return _get(session, Port.uuid == values['uuid'], values['uuid'])
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, values)


@retry_on_disconnect
def get(context: RequestContext, ident: int | str) -> dict[str, Any]:
    """:raises PortNotFound:"""
    with context_manager.reader.using(context) as session:
        return _get(session, _clause(ident), ident)


def _of_project(project: str) -> Any:
    return sa.or_(Node.owner == project, Node.lessee == project)


def _filtered(query: Any, filters: Filters) -> Any:
    if filters.node_id is not None:
        query = query.where(Port.node_id == filters.node_id)
    if filters.portgroup_id is not None:
        query = query.where(Port.portgroup_id == filters.portgroup_id)
    if filters.address is not None:
        query = query.where(Port.address == filters.address)
    if filters.shards is not None:
        query = query.where(Node.shard.in_(filters.shards))
    if filters.conductor_groups is not None:
        query = query.where(Node.conductor_group.in_(filters.conductor_groups))
    if filters.description_contains is not None:
        query = query.where(
            Port.description.contains(
                filters.description_contains, autoescape=True
            )
        )
    if filters.project is not None:
        query = query.where(_of_project(filters.project))
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
    """One page of the ports that match ``filters``.

    :raises InvalidParameterValue: sort key or direction.
    :raises PortNotFound: an unknown marker.
    """
    column = paging.check_sort(Port, sort_key, sort_dir, UNSORTABLE)
    query = _filtered(_select(), filters)
    with context_manager.reader.using(context) as session:
        return paging.page(
            session,
            Port,
            query,
            column,
            sort_dir == 'desc',
            limit,
            marker,
            lambda ident: exception.PortNotFound(port=ident),
        )


@retried
def update(
    context: RequestContext, uuid: str, values: dict[str, Any]
) -> dict[str, Any]:
    """Write ``values`` (columns) of one port; returns it.

    :raises: PortNotFound, MACAlreadyExists, PortDuplicateName.
    """
    try:
        with context_manager.writer.using(context) as session:
            if values:
                result = session.execute(
                    sa.update(Port)
                    .where(Port.uuid == uuid)
                    .values(**values)
                    .execution_options(synchronize_session=False)
                )
                if result.rowcount != 1:
                    raise exception.PortNotFound(port=uuid)
            return _get(session, Port.uuid == uuid, uuid)
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, values)


@retried
def destroy(context: RequestContext, uuid: str) -> None:
    """:raises PortNotFound:"""
    with context_manager.writer.using(context) as session:
        result = session.execute(sa.delete(Port).where(Port.uuid == uuid))
        if result.rowcount != 1:
            raise exception.PortNotFound(port=uuid)


@retried
def portgroup_id(context: RequestContext, ident: str) -> tuple[int, int]:
    """(id, node_id) of the portgroup named by uuid or name.

    :raises PortgroupNotFound:
    """
    clause = (
        Portgroup.uuid == ident
        if uuidutils.is_uuid_like(ident)
        else Portgroup.name == ident
    )
    with context_manager.reader.using(context) as session:
        row = session.execute(
            sa.select(Portgroup.id, Portgroup.node_id).where(clause)
        ).first()
    if row is None:
        raise exception.PortgroupNotFound(portgroup=ident)
    return row[0], row[1]
