"""Access to the image catalog (metadata only; nothing is booted).

Image ids are UUIDs chosen by the client or made here, stored and looked
up in canonical form (:mod:`lite_common.uuids`): an id differing from
another only in case is the same id.
"""

from typing import Any

from oslo_db import exception as db_exc
import sqlalchemy as sa

from lite_common import uuids
from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.db import models
from nova_lite.db.api import as_dict
from nova_lite.db.api import context_manager
from nova_lite.db.api import retried

IMG = models.Image


@retried
def image_create(
    context: RequestContext, values: dict[str, Any]
) -> dict[str, Any]:
    values = {**values, 'id': uuids.canonical(values['id'])}
    with context_manager.writer.using(context) as session:
        row = IMG(**values)
        session.add(row)
        try:
            session.flush()
        except (sa.exc.IntegrityError, db_exc.DBDuplicateEntry):
            raise exception.Conflict(
                reason=f'Image ID {values["id"]} already exists.'
            )
        return as_dict(row)


@retried
def image_get(context: RequestContext, image_id: str) -> dict[str, Any]:
    with context_manager.reader.using(context) as session:
        row = session.get(IMG, uuids.canonical(image_id))
        if row is None:
            raise exception.ImageNotFound(image_id=image_id)
        return as_dict(row)


@retried
def image_get_all(
    context: RequestContext,
    visible_to: str | None,
    filters: dict[str, Any],
    limit: int | None = None,
    marker: str | None = None,
) -> list[dict[str, Any]]:
    """Images a project may see (None: all), newest first.

    ``visible_to`` sees public, community and shared images and its
    own; filters: name, status, visibility, owner, and ``properties``
    (a dict: each property has the value, as a string).
    """
    with context_manager.reader.using(context) as session:
        query = sa.select(IMG)
        if visible_to is not None:
            query = query.where(
                sa.or_(
                    IMG.visibility.in_(['public', 'community', 'shared']),
                    IMG.owner == visible_to,
                )
            )
        for key in ('name', 'status', 'visibility', 'owner'):
            if filters.get(key) is not None:
                query = query.where(getattr(IMG, key) == filters[key])
        if marker is not None:
            mark = session.get(IMG, uuids.canonical(marker))
            if mark is None:
                raise exception.ImageNotFound(image_id=marker)
            query = query.where(
                sa.or_(
                    IMG.created_at < mark.created_at,
                    sa.and_(
                        IMG.created_at == mark.created_at, IMG.id < mark.id
                    ),
                )
            )
        query = query.order_by(IMG.created_at.desc(), IMG.id.desc())
        wanted = filters.get('properties') or {}
        if not wanted:
            if limit is not None:
                query = query.limit(limit)
            return [as_dict(row) for row in session.scalars(query)]
        # Properties are one JSON column: matched here, rows read in
        # batches until the page is full.
        found: list[dict[str, Any]] = []
        rows = session.scalars(query.execution_options(yield_per=200))
        for row in rows:
            props = row.properties or {}
            if all(
                key in props and str(props[key]) == value
                for key, value in wanted.items()
            ):
                found.append(as_dict(row))
                if limit is not None and len(found) >= limit:
                    break
        return found


@retried
def image_update(
    context: RequestContext, image_id: str, values: dict[str, Any]
) -> dict[str, Any]:
    with context_manager.writer.using(context) as session:
        row = session.get(IMG, uuids.canonical(image_id))
        if row is None:
            raise exception.ImageNotFound(image_id=image_id)
        for key, value in values.items():
            setattr(row, key, value)
        session.flush()
        return as_dict(row)


@retried
def image_destroy(context: RequestContext, image_id: str) -> None:
    with context_manager.writer.using(context) as session:
        result = session.execute(
            sa.delete(IMG).where(IMG.id == uuids.canonical(image_id))
        )
        if result.rowcount != 1:
            raise exception.ImageNotFound(image_id=image_id)


@retried
def delete_if_exists(context: RequestContext, image_id: str) -> bool:
    """Delete the image if there is one; whether there was."""
    with context_manager.writer.using(context) as session:
        result = session.execute(
            sa.delete(IMG).where(IMG.id == uuids.canonical(image_id))
        )
        return bool(result.rowcount)


@retried
def transition(
    context: RequestContext,
    image_id: str,
    expected: str,
    values: dict[str, Any],
) -> bool:
    """Write ``values`` (a new status among them) if the image's status
    is still ``expected``; whether it was (one UPDATE: two uploads of
    one image cannot both move it from ``queued`` to ``saving``)."""
    with context_manager.writer.using(context) as session:
        result = session.execute(
            sa.update(IMG)
            .where(IMG.id == uuids.canonical(image_id), IMG.status == expected)
            .values(**values)
            .execution_options(synchronize_session=False)
        )
        return bool(result.rowcount)


@retried
def stored_bytes(context: RequestContext, owner: str | None) -> int:
    """The bytes the images of ``owner`` hold (the sizes of those with
    data: active, or being saved)."""
    with context_manager.reader.using(context) as session:
        total = session.execute(
            sa.select(sa.func.coalesce(sa.func.sum(IMG.size), 0)).where(
                IMG.owner == owner, IMG.status.in_(['active', 'saving'])
            )
        ).scalar_one()
        return int(total)
