"""Access to the services table."""

import datetime
from typing import Any

from oslo_db import exception as db_exc
import sqlalchemy as sa
from sqlalchemy import orm

from lite_common import db as lite_db
from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.db import models
from nova_lite.db.api import as_dict as _as_dict
from nova_lite.db.api import context_manager
from nova_lite.db.api import retried
from nova_lite.db.api import soft_delete_values as _soft_delete_values


@retried
def service_create(
    context: RequestContext, values: dict[str, Any]
) -> dict[str, Any]:
    with context_manager.writer.using(context) as session:
        row = models.Service(**values)
        session.add(row)
        try:
            session.flush()
        except (sa.exc.IntegrityError, db_exc.DBDuplicateEntry):
            raise exception.ServiceExists(
                host=values.get('host'), binary=values.get('binary')
            )
        return _as_dict(row)


def _service_query(session: orm.Session) -> Any:
    return sa.select(models.Service).where(models.Service.deleted == 0)


@retried
def service_get(context: RequestContext, **filters: Any) -> dict[str, Any]:
    """One live service by any of id, uuid, (host, binary)."""
    with context_manager.reader.using(context) as session:
        query = _service_query(session).filter_by(**filters)
        row = session.scalars(query).first()
        if row is None:
            raise exception.ServiceNotFound(service=str(filters))
        return _as_dict(row)


@retried
def service_get_all(
    context: RequestContext, binary: str | None = None, host: str | None = None
) -> list[dict[str, Any]]:
    with context_manager.reader.using(context) as session:
        query = _service_query(session).order_by(models.Service.id)
        if binary:
            query = query.where(models.Service.binary == binary)
        if host:
            query = query.where(models.Service.host == host)
        return [_as_dict(row) for row in session.scalars(query)]


@retried
def service_min_version(context: RequestContext, binary: str) -> int:
    """The oldest version among the live services of ``binary`` that
    are not forced down (upstream's rule: a host forced down, e.g. the
    source of an evacuation, does not hold the others back); 0 when
    there is none. One query."""
    with context_manager.reader.using(context) as session:
        oldest = session.scalar(
            sa.select(sa.func.min(models.Service.version)).where(
                models.Service.deleted == 0,
                models.Service.binary == binary,
                models.Service.forced_down == sa.false(),
            )
        )
    return oldest or 0


@retried
def service_update(
    context: RequestContext, service_id: int, values: dict[str, Any]
) -> dict[str, Any]:
    with context_manager.writer.using(context) as session:
        row = session.get(models.Service, service_id)
        if row is None or row.deleted:
            raise exception.ServiceNotFound(service=service_id)
        for key, value in values.items():
            setattr(row, key, value)
        session.flush()
        return _as_dict(row)


@retried(idempotent=True)  # a second heartbeat is harmless
def service_heartbeat(
    context: RequestContext, service_id: int
) -> datetime.datetime:
    """Record a heartbeat in one statement; returns its time."""
    now = lite_db.utcnow()
    with context_manager.writer.using(context) as session:
        result = session.execute(
            sa.update(models.Service)
            .where(
                models.Service.id == service_id, models.Service.deleted == 0
            )
            .values(
                last_seen_up=now, report_count=models.Service.report_count + 1
            )
        )
        if result.rowcount != 1:
            raise exception.ServiceNotFound(service=service_id)
    return now


@retried
def service_destroy(context: RequestContext, service_id: int) -> None:
    with context_manager.writer.using(context) as session:
        session.execute(
            sa.update(models.Service)
            .where(models.Service.id == service_id)
            .values(**_soft_delete_values(service_id))
        )
