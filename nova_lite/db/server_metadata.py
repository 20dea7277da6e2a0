"""A server's metadata, changed in one transaction: the instance row is
locked (SELECT ... FOR UPDATE), checked (state, lock, quota) and
written, so that two concurrent changes of different keys both land."""

from collections.abc import Callable
from typing import Any

import sqlalchemy as sa

from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.db import compute_nodes
from nova_lite.db import models
from nova_lite.db import quotas
from nova_lite.db.api import context_manager

INST = models.Instance


@compute_nodes.retry_on_deadlock
def change(
    context: RequestContext,
    uuid: str,
    new: Callable[[dict[str, str]], dict[str, str]],
    check: Callable[[dict[str, Any]], None],
) -> dict[str, str]:
    """Write ``new(current metadata)`` after ``check(instance row)``
    passes (it raises to refuse); returns the metadata written.

    :raises InstanceNotFound, MetadataLimitExceeded:
    """
    with context_manager.writer.using(context) as session:
        row = (
            session.execute(
                sa.select(INST.__table__)
                .where(INST.uuid == uuid, INST.deleted == 0)
                .with_for_update()
            )
            .mappings()
            .first()
        )
        if row is None:
            raise exception.InstanceNotFound(instance_id=uuid)
        check(dict(row))
        metadata = new(dict(row['metadata'] or {}))
        allowed = quotas.limits(session, row['project_id'])['metadata_items']
        if allowed != quotas.UNLIMITED and len(metadata) > allowed:
            raise exception.MetadataLimitExceeded(allowed=allowed)
        session.execute(
            sa.update(INST)
            .where(INST.uuid == uuid)
            .values(metadata_=metadata)
            .execution_options(synchronize_session=False)
        )
        return metadata
