"""Access to host aggregates: their hosts and metadata, and the
availability zones their ``availability_zone`` metadata gives hosts.

An aggregate is read with its hosts and metadata in three queries
whatever the number of aggregates (:func:`_load`).
"""

from typing import Any

from oslo_db import exception as db_exc
from oslo_utils import uuidutils
import sqlalchemy as sa

from lite_common import db as lite_db
from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.db import models
from nova_lite.db.api import as_dict
from nova_lite.db.api import context_manager
from nova_lite.db.api import retried

AGG = models.Aggregate
HOST = models.AggregateHost
META = models.AggregateMetadata
AZ_KEY = 'availability_zone'


def _row(session: Any, agg_id: int) -> Any:
    row = session.scalars(
        sa.select(AGG).where(AGG.id == agg_id, AGG.deleted == 0)
    ).first()
    if row is None:
        raise exception.AggregateNotFound(aggregate_id=agg_id)
    return row


def _load(session: Any, rows: list[Any]) -> list[dict[str, Any]]:
    """Aggregates as dicts with ``hosts``, ``metadata`` and
    ``availability_zone``."""
    ids = [row.id for row in rows]
    hosts: dict[int, list[str]] = {i: [] for i in ids}
    metadata: dict[int, dict[str, str]] = {i: {} for i in ids}
    if ids:
        for agg_id, host in session.execute(
            sa.select(HOST.aggregate_id, HOST.host)
            .where(HOST.aggregate_id.in_(ids), HOST.deleted == 0)
            .order_by(HOST.id)
        ):
            hosts[agg_id].append(host)
        for agg_id, key, value in session.execute(
            sa.select(META.aggregate_id, META.key, META.value).where(
                META.aggregate_id.in_(ids), META.deleted == 0
            )
        ):
            metadata[agg_id][key] = value
    result = []
    for row in rows:
        agg = as_dict(row)
        agg.update(
            hosts=hosts[row.id],
            metadata=metadata[row.id],
            availability_zone=metadata[row.id].get(AZ_KEY),
        )
        result.append(agg)
    return result


@retried
def create(
    context: RequestContext, name: str, metadata: dict[str, str]
) -> dict[str, Any]:
    """:raises AggregateNameExists:"""
    try:
        with context_manager.writer.using(context) as session:
            row = AGG(uuid=uuidutils.generate_uuid(), name=name)
            session.add(row)
            session.flush()
            session.add_all(
                META(aggregate_id=row.id, key=k, value=v)
                for k, v in metadata.items()
            )
            session.flush()
            return _load(session, [row])[0]
    except db_exc.DBDuplicateEntry:
        raise exception.AggregateNameExists(aggregate_name=name) from None


@retried
def get(context: RequestContext, agg_id: int) -> dict[str, Any]:
    """:raises AggregateNotFound:"""
    with context_manager.reader.using(context) as session:
        return _load(session, [_row(session, agg_id)])[0]


@retried
def get_all(context: RequestContext) -> list[dict[str, Any]]:
    with context_manager.reader.using(context) as session:
        rows = list(
            session.scalars(
                sa.select(AGG).where(AGG.deleted == 0).order_by(AGG.id)
            )
        )
        return _load(session, rows)


@retried
def rename(context: RequestContext, agg_id: int, name: str) -> None:
    """:raises AggregateNotFound, AggregateNameExists:"""
    try:
        with context_manager.writer.using(context) as session:
            _row(session, agg_id).name = name
    except db_exc.DBDuplicateEntry:
        raise exception.AggregateNameExists(aggregate_name=name) from None


@retried
def update_metadata(
    context: RequestContext, agg_id: int, metadata: dict[str, str | None]
) -> None:
    """Set each key; a None value deletes the key (a missing key is no
    error, as upstream). :raises AggregateNotFound:"""
    now = lite_db.utcnow()
    with context_manager.writer.using(context) as session:
        _row(session, agg_id).updated_at = now
        for key, value in metadata.items():
            live = sa.and_(
                META.aggregate_id == agg_id, META.key == key, META.deleted == 0
            )
            if value is None:
                session.execute(
                    sa.update(META)
                    .where(live)
                    .values(deleted=META.id, deleted_at=now)
                    .execution_options(synchronize_session=False)
                )
                continue
            changed = session.execute(
                sa.update(META)
                .where(live)
                .values(value=value, updated_at=now)
                .execution_options(synchronize_session=False)
            )
            if changed.rowcount == 0:
                session.add(META(aggregate_id=agg_id, key=key, value=value))


@retried
def add_host(context: RequestContext, agg_id: int, host: str) -> None:
    """:raises AggregateNotFound, AggregateHostExists:"""
    try:
        with context_manager.writer.using(context) as session:
            _row(session, agg_id)
            session.add(HOST(aggregate_id=agg_id, host=host))
            session.flush()
    except db_exc.DBDuplicateEntry:
        raise exception.AggregateHostExists(
            aggregate_id=agg_id, host=host
        ) from None


@retried
def remove_host(context: RequestContext, agg_id: int, host: str) -> None:
    """:raises AggregateNotFound, AggregateHostNotFound:"""
    with context_manager.writer.using(context) as session:
        _row(session, agg_id)
        removed = session.execute(
            sa.update(HOST)
            .where(
                HOST.aggregate_id == agg_id,
                HOST.host == host,
                HOST.deleted == 0,
            )
            .values(deleted=HOST.id, deleted_at=lite_db.utcnow())
            .execution_options(synchronize_session=False)
        )
        if removed.rowcount != 1:
            raise exception.AggregateHostNotFound(
                aggregate_id=agg_id, host=host
            )


@retried
def destroy(context: RequestContext, agg_id: int) -> None:
    """Soft-delete the aggregate and its metadata (the API refuses an
    aggregate that still has hosts). :raises AggregateNotFound:"""
    now = lite_db.utcnow()
    with context_manager.writer.using(context) as session:
        row = _row(session, agg_id)
        session.execute(
            sa.update(META)
            .where(META.aggregate_id == agg_id, META.deleted == 0)
            .values(deleted=META.id, deleted_at=now)
            .execution_options(synchronize_session=False)
        )
        row.deleted = row.id
        row.deleted_at = now


def zone_hosts_query(zone: str | None = None) -> Any:
    """SELECT of the hosts of aggregates with ``availability_zone``
    metadata (``zone`` only, when given), to embed in a query."""
    query = (
        sa.select(HOST.host)
        .join(META, META.aggregate_id == HOST.aggregate_id)
        .where(HOST.deleted == 0, META.deleted == 0, META.key == AZ_KEY)
    )
    if zone is not None:
        query = query.where(META.value == zone)
    return query


@retried
def host_zones(context: RequestContext) -> dict[str, str]:
    """host -> the zone aggregates give it (hosts in none are left
    out: they are in the default zone). One query."""
    with context_manager.reader.using(context) as session:
        rows = session.execute(
            zone_hosts_query().add_columns(META.value).order_by(META.id)
        )
        return {host: zone for host, zone in rows}


@retried
def zones_of_hosts(
    context: RequestContext, hosts: list[str]
) -> list[tuple[int, str]]:
    """(aggregate id, zone) of the aggregates with a zone that hold
    any of ``hosts``, in one query."""
    if not hosts:
        return []
    with context_manager.reader.using(context) as session:
        return [
            (agg_id, zone)
            for agg_id, zone in session.execute(
                sa.select(HOST.aggregate_id, META.value)
                .join(META, META.aggregate_id == HOST.aggregate_id)
                .where(
                    HOST.deleted == 0,
                    META.deleted == 0,
                    META.key == AZ_KEY,
                    HOST.host.in_(hosts),
                )
            )
        ]
