"""Instances that ran during a period, for os-simple-tenant-usage."""

import datetime
from typing import Any

import sqlalchemy as sa

from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.db import models
from nova_lite.db.api import context_manager
from nova_lite.db.api import retried

INST = models.Instance
_COLUMNS = (
    INST.id,
    INST.uuid,
    INST.display_name,
    INST.project_id,
    INST.flavor,
    INST.vm_state,
    INST.launched_at,
    INST.terminated_at,
)


@retried
def instances_in_window(
    context: RequestContext,
    start: datetime.datetime,
    stop: datetime.datetime,
    project_id: str | None,
    limit: int | None = None,
    marker: str | None = None,
) -> list[dict[str, Any]]:
    """Instances (deleted ones too) launched before ``stop`` and not
    terminated before ``start`` (upstream's window), oldest first;
    ``marker`` is an instance uuid. One query.

    :raises MarkerNotFound:
    """
    with context_manager.reader.using(context) as session:
        query = sa.select(*_COLUMNS).where(
            sa.or_(INST.terminated_at.is_(None), INST.terminated_at > start),
            INST.launched_at < stop,
        )
        if project_id is not None:
            query = query.where(INST.project_id == project_id)
        if marker is not None:
            after = session.execute(
                sa.select(INST.id).where(INST.uuid == marker)
            ).scalar()
            if after is None:
                raise exception.MarkerNotFound(marker=marker)
            query = query.where(INST.id > after)
        query = query.order_by(INST.id)
        if limit is not None:
            query = query.limit(limit)
        return [dict(row) for row in session.execute(query).mappings()]
