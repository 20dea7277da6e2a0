"""Access to the flavors table (flavors are deleted for real)."""

from collections.abc import Callable
from typing import Any

from oslo_db import exception as db_exc
import sqlalchemy as sa

from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.db import models
from nova_lite.db.api import as_dict
from nova_lite.db.api import context_manager
from nova_lite.db.api import retried

FL = models.Flavor
ACCESS = models.FlavorProject


@retried
def flavor_create(
    context: RequestContext, values: dict[str, Any]
) -> dict[str, Any]:
    with context_manager.writer.using(context) as session:
        for field in ('flavorid', 'name'):
            taken = session.scalar(
                sa.select(FL.id).where(getattr(FL, field) == values[field])
            )
            if taken is not None:
                raise exception.FlavorExists(field=field, value=values[field])
        row = FL(**values)
        session.add(row)
        try:
            session.flush()
        except (sa.exc.IntegrityError, db_exc.DBDuplicateEntry):
            raise exception.FlavorExists(
                field='name or id', value=values['name']
            )
        return as_dict(row)


@retried
def flavor_update_description(
    context: RequestContext, flavorid: str, description: str | None
) -> dict[str, Any]:
    with context_manager.writer.using(context) as session:
        row = session.scalars(
            sa.select(FL).where(FL.flavorid == flavorid)
        ).first()
        if row is None:
            raise exception.FlavorNotFound(flavor_id=flavorid)
        row.description = description
        session.flush()
        return as_dict(row)


@retried
def flavor_get(context: RequestContext, flavorid: str) -> dict[str, Any]:
    with context_manager.reader.using(context) as session:
        row = session.scalars(
            sa.select(FL).where(FL.flavorid == flavorid)
        ).first()
        if row is None:
            raise exception.FlavorNotFound(flavor_id=flavorid)
        return as_dict(row)


@retried
def flavor_get_all(
    context: RequestContext,
    is_public: bool | None = None,
    project_id: str | None = None,
    min_vcpus: int | None = None,
    min_memory_mb: int | None = None,
    min_root_gb: int | None = None,
    limit: int | None = None,
    marker: str | None = None,
) -> list[dict[str, Any]]:
    """Flavors ordered by flavorid, paged by marker flavorid. With
    ``is_public`` true and ``project_id``, the private flavors that
    project was given access to are listed too (upstream's rule)."""
    with context_manager.reader.using(context) as session:
        query = sa.select(FL)
        if is_public and project_id is not None:
            query = query.where(
                sa.or_(
                    FL.is_public == sa.true(),
                    FL.id.in_(
                        sa.select(ACCESS.flavor_id).where(
                            ACCESS.project_id == project_id
                        )
                    ),
                )
            )
        elif is_public is not None:
            query = query.where(FL.is_public == is_public)
        if min_vcpus is not None:
            query = query.where(FL.vcpus >= min_vcpus)
        if min_memory_mb is not None:
            query = query.where(FL.memory_mb >= min_memory_mb)
        if min_root_gb is not None:
            query = query.where(FL.root_gb >= min_root_gb)
        if marker is not None:
            if (
                session.scalar(sa.select(FL.id).where(FL.flavorid == marker))
                is None
            ):
                raise exception.FlavorNotFound(flavor_id=marker)
            query = query.where(FL.flavorid > marker)
        query = query.order_by(FL.flavorid)
        if limit is not None:
            query = query.limit(limit)
        return [as_dict(row) for row in session.scalars(query)]


@retried
def flavor_destroy(context: RequestContext, flavorid: str) -> None:
    with context_manager.writer.using(context) as session:
        session.execute(
            sa.delete(ACCESS).where(
                ACCESS.flavor_id.in_(
                    sa.select(FL.id).where(FL.flavorid == flavorid)
                )
            )
        )
        result = session.execute(sa.delete(FL).where(FL.flavorid == flavorid))
        if result.rowcount != 1:
            raise exception.FlavorNotFound(flavor_id=flavorid)


@retried
def flavor_change_extra_specs(
    context: RequestContext,
    flavorid: str,
    new: Callable[[dict[str, str]], dict[str, str]],
) -> dict[str, str]:
    """Write ``new(current extra specs)`` under the flavor's row lock
    (concurrent changes of different keys all land); returns them.

    :raises FlavorNotFound: (and what ``new`` raises)
    """
    with context_manager.writer.using(context) as session:
        row = session.scalars(
            sa.select(FL).where(FL.flavorid == flavorid).with_for_update()
        ).first()
        if row is None:
            raise exception.FlavorNotFound(flavor_id=flavorid)
        specs = new(dict(row.extra_specs or {}))
        row.extra_specs = specs
        session.flush()
        return specs


@retried
def access_list(context: RequestContext, flavor_id: int) -> list[str]:
    """The projects given access to a flavor (its row id), sorted."""
    with context_manager.reader.using(context) as session:
        return list(
            session.scalars(
                sa.select(ACCESS.project_id)
                .where(ACCESS.flavor_id == flavor_id)
                .order_by(ACCESS.project_id)
            )
        )


@retried
def has_access(
    context: RequestContext, flavor_id: int, project_id: str | None
) -> bool:
    with context_manager.reader.using(context) as session:
        return (
            session.execute(
                sa.select(ACCESS.id).where(
                    ACCESS.flavor_id == flavor_id,
                    ACCESS.project_id == project_id,
                )
            ).first()
            is not None
        )


@retried
def access_add(
    context: RequestContext, flavor: dict[str, Any], project_id: str
) -> None:
    """:raises FlavorAccessExists:"""
    try:
        with context_manager.writer.using(context) as session:
            session.execute(
                sa.insert(ACCESS).values(
                    flavor_id=flavor['id'], project_id=project_id
                )
            )
    except db_exc.DBDuplicateEntry:
        raise exception.FlavorAccessExists(
            flavor_id=flavor['flavorid'], project_id=project_id
        ) from None


@retried
def access_remove(
    context: RequestContext, flavor: dict[str, Any], project_id: str
) -> None:
    """:raises FlavorAccessNotFound:"""
    with context_manager.writer.using(context) as session:
        result = session.execute(
            sa.delete(ACCESS).where(
                ACCESS.flavor_id == flavor['id'],
                ACCESS.project_id == project_id,
            )
        )
        if result.rowcount != 1:
            raise exception.FlavorAccessNotFound(
                flavor_id=flavor['flavorid'], project_id=project_id
            )


def with_type_id(session: Any, values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with ``instance_type_id`` (the flavors.id of the
    snapshot's flavorid, None when it is gone) whenever ``flavor`` is
    written: the column the server list filters ``?flavor=`` on."""
    if 'flavor' not in values:
        return values
    flavorid = (values['flavor'] or {}).get('flavorid')
    type_id = (
        None
        if flavorid is None
        else session.scalar(
            sa.select(FL.id).where(FL.flavorid == str(flavorid))
        )
    )
    return {**values, 'instance_type_id': type_id}
