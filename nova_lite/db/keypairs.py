"""Access to key pairs: a user's public keys, by name.

A user's key pairs are capped by the ``key_pairs`` quota of the
project the request acts for ([quota]key_pairs by default), checked in
the transaction that creates one, under the project's quota lock row,
so that two concurrent creates cannot both take the last one.
"""

from typing import Any

from oslo_db import exception as db_exc
import sqlalchemy as sa

from lite_common import db as lite_db
from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.db import models
from nova_lite.db import quotas
from nova_lite.db.api import as_dict
from nova_lite.db.api import context_manager
from nova_lite.db.api import retried

KEY = models.KeyPair


def _live(user_id: str | None) -> Any:
    return sa.and_(KEY.user_id == user_id, KEY.deleted == 0)


@retried
def create(
    context: RequestContext, project_id: str, values: dict[str, Any]
) -> dict[str, Any]:
    """:raises KeyPairExists, KeypairLimitExceeded:"""
    quotas.ensure_lock_row(context, project_id)
    try:
        with context_manager.writer.using(context) as session:
            quotas.lock(session, project_id)
            limit = quotas.limits(session, project_id)['key_pairs']
            count = session.execute(
                sa.select(sa.func.count())
                .select_from(KEY)
                .where(_live(values['user_id']))
            ).scalar_one()
            if limit != quotas.UNLIMITED and count >= limit:
                raise exception.KeypairLimitExceeded()
            row = KEY(**values)
            session.add(row)
            session.flush()
            return as_dict(row)
    except db_exc.DBDuplicateEntry:
        raise exception.KeyPairExists(key_name=values['name']) from None


@retried
def get(
    context: RequestContext, user_id: str | None, name: str
) -> dict[str, Any]:
    """:raises KeypairNotFound:"""
    with context_manager.reader.using(context) as session:
        row = session.scalars(
            sa.select(KEY).where(_live(user_id), KEY.name == name)
        ).first()
        if row is None:
            raise exception.KeypairNotFound(name=name, user_id=user_id)
        return as_dict(row)


@retried
def list_page(
    context: RequestContext,
    user_id: str,
    limit: int | None = None,
    marker: str | None = None,
) -> list[dict[str, Any]]:
    """A user's key pairs by id; ``marker`` is a name.

    :raises MarkerNotFound:
    """
    with context_manager.reader.using(context) as session:
        query = sa.select(KEY).where(_live(user_id))
        if marker is not None:
            after = session.execute(
                sa.select(KEY.id).where(_live(user_id), KEY.name == marker)
            ).scalar()
            if after is None:
                raise exception.MarkerNotFound(marker=marker)
            query = query.where(KEY.id > after)
        query = query.order_by(KEY.id)
        if limit is not None:
            query = query.limit(limit)
        return [as_dict(row) for row in session.scalars(query)]


@retried
def destroy(context: RequestContext, user_id: str, name: str) -> None:
    """Soft delete (the name is free again). :raises KeypairNotFound:"""
    with context_manager.writer.using(context) as session:
        result = session.execute(
            sa.update(KEY)
            .where(_live(user_id), KEY.name == name)
            .values(deleted=KEY.id, deleted_at=lite_db.utcnow())
            .execution_options(synchronize_session=False)
        )
        if result.rowcount != 1:
            raise exception.KeypairNotFound(name=name, user_id=user_id)
