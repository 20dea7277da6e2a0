"""Access to the portgroups of nodes (bonds of their ports).

Rows come back as dicts with the uuid of their node (``node_uuid``),
joined in the same query. A portgroup with member ports is not deleted;
its physical network is that of all its ports, changed together in one
transaction.
"""

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
from ironic_lite.db.ports import Filters
from lite_common.context import RequestContext

#: Columns a list may not be sorted by (JSON documents), as upstream.
UNSORTABLE = ('extra', 'internal_info', 'properties')


def _select() -> Any:
    return sa.select(Portgroup.__table__, Node.uuid.label('node_uuid')).join(
        Node, Node.id == Portgroup.node_id
    )


def _duplicate(
    exc: db_exc.DBDuplicateEntry, values: dict[str, Any]
) -> Exception:
    columns = set(exc.columns or ())
    if 'name' in columns:
        return exception.PortgroupDuplicateName(name=values.get('name'))
    if 'address' in columns:
        return exception.PortgroupMACAlreadyExists(mac=values.get('address'))
    return exception.PortgroupAlreadyExists(uuid=values.get('uuid'))


def _clause(ident: int | str) -> Any:
    if isinstance(ident, int):
        return Portgroup.id == ident
    if uuidutils.is_uuid_like(ident):
        return Portgroup.uuid == ident
    return Portgroup.name == ident


def _get(session: Any, ident: int | str) -> dict[str, Any]:
    row = session.execute(_select().where(_clause(ident))).mappings().first()
    if row is None:
        raise exception.PortgroupNotFound(portgroup=ident)
    return dict(row)


@retried
def create(context: RequestContext, values: dict[str, Any]) -> dict[str, Any]:
    """Insert a portgroup (``values`` with ``node_id``); returns it.

    :raises: PortgroupAlreadyExists, PortgroupDuplicateName,
        PortgroupMACAlreadyExists.
    """
    values = dict(values)
    values.setdefault('uuid', uuidutils.generate_uuid())
    try:
        with context_manager.writer.using(context) as session:
            session.add(Portgroup(**values))
            session.flush()
            return _get(session, values['uuid'])
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, values)


@retry_on_disconnect
def get(context: RequestContext, ident: int | str) -> dict[str, Any]:
    """:raises PortgroupNotFound:"""
    with context_manager.reader.using(context) as session:
        return _get(session, ident)


@retry_on_disconnect
def list_page(
    context: RequestContext,
    filters: Filters,
    limit: int | None = None,
    marker: str | None = None,
    sort_key: str = 'id',
    sort_dir: str = 'asc',
) -> list[dict[str, Any]]:
    """One page of the portgroups that match ``filters`` (node_id,
    address, shards, conductor_groups, project).

    :raises InvalidParameterValue: sort key or direction.
    :raises PortgroupNotFound: an unknown marker.
    """
    column = paging.check_sort(Portgroup, sort_key, sort_dir, UNSORTABLE)
    query = _select()
    if filters.node_id is not None:
        query = query.where(Portgroup.node_id == filters.node_id)
    if filters.address is not None:
        query = query.where(Portgroup.address == filters.address)
    if filters.shards is not None:
        query = query.where(Node.shard.in_(filters.shards))
    if filters.conductor_groups is not None:
        query = query.where(Node.conductor_group.in_(filters.conductor_groups))
    if filters.project is not None:
        query = query.where(
            sa.or_(
                Node.owner == filters.project, Node.lessee == filters.project
            )
        )
    with context_manager.reader.using(context) as session:
        return paging.page(
            session,
            Portgroup,
            query,
            column,
            sort_dir == 'desc',
            limit,
            marker,
            lambda ident: exception.PortgroupNotFound(portgroup=ident),
        )


@retried
def count_ports(context: RequestContext, group_id: int) -> int:
    with context_manager.reader.using(context) as session:
        return int(
            session.execute(
                sa.select(sa.func.count())
                .select_from(Port)
                .where(Port.portgroup_id == group_id)
            ).scalar_one()
        )


@retried
def update(
    context: RequestContext, uuid: str, values: dict[str, Any]
) -> dict[str, Any]:
    """Write ``values`` of one portgroup; a new ``physical_network`` is
    also written to its member ports (one transaction).

    :raises: PortgroupNotFound and the duplicate errors.
    """
    try:
        with context_manager.writer.using(context) as session:
            current = _get(session, uuid)
            if values:
                session.execute(
                    sa.update(Portgroup)
                    .where(Portgroup.uuid == uuid)
                    .values(**values)
                    .execution_options(synchronize_session=False)
                )
            if 'physical_network' in values:
                session.execute(
                    sa.update(Port)
                    .where(Port.portgroup_id == current['id'])
                    .values(physical_network=values['physical_network'])
                    .execution_options(synchronize_session=False)
                )
            return _get(session, uuid)
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, values)


@retried
def destroy(context: RequestContext, uuid: str) -> None:
    """:raises: PortgroupNotFound, PortgroupNotEmpty (it has ports)."""
    try:
        with context_manager.writer.using(context) as session:
            current = _get(session, uuid)
            members = session.execute(
                sa.select(sa.func.count())
                .select_from(Port)
                .where(Port.portgroup_id == current['id'])
            ).scalar_one()
            if members:
                raise exception.PortgroupNotEmpty(portgroup=uuid)
            session.execute(sa.delete(Portgroup).where(Portgroup.uuid == uuid))
    except db_exc.DBReferenceError:
        # A port joined it meanwhile (the foreign key refuses).
        raise exception.PortgroupNotEmpty(portgroup=uuid)
