"""Access to inspection rules (API 1.96).

A rule comes back as a dict of its columns, ``conditions`` and
``actions`` as the lists they were written as. Listing the rules of a
phase for an inspection is one query, whatever their number.
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
from ironic_lite.db.models import InspectionRule
from lite_common.context import RequestContext

#: Columns a list may not be sorted by, as upstream.
UNSORTABLE = ('actions', 'conditions')


def _get(session: Any, ident: int | str) -> dict[str, Any]:
    clause = (
        InspectionRule.id == ident
        if isinstance(ident, int)
        else InspectionRule.uuid == ident
    )
    row = (
        session.execute(sa.select(InspectionRule.__table__).where(clause))
        .mappings()
        .first()
    )
    if row is None:
        raise exception.InspectionRuleNotFound(rule=ident)
    return dict(row)


@retried
def create(context: RequestContext, values: dict[str, Any]) -> dict[str, Any]:
    """Insert a rule; returns it. :raises InspectionRuleAlreadyExists:"""
    values = {'uuid': uuidutils.generate_uuid(), **values}
    try:
        with context_manager.writer.using(context) as session:
            row = InspectionRule(**values)
            session.add(row)
            session.flush()
            return _get(session, row.id)
    except db_exc.DBDuplicateEntry:
        raise exception.InspectionRuleAlreadyExists(uuid=values['uuid'])


@retry_on_disconnect
def get(context: RequestContext, ident: int | str) -> dict[str, Any]:
    """By id or uuid. :raises InspectionRuleNotFound:"""
    with context_manager.reader.using(context) as session:
        return _get(session, ident)


@retry_on_disconnect
def list_page(
    context: RequestContext,
    limit: int | None = None,
    marker: str | None = None,
    sort_key: str = 'id',
    sort_dir: str = 'asc',
    phase: str | None = None,
) -> list[dict[str, Any]]:
    """One page of rules (of ``phase`` only, when given).

    :raises InvalidParameterValue: sort key or direction.
    :raises InspectionRuleNotFound: an unknown marker.
    """
    column = paging.check_sort(InspectionRule, sort_key, sort_dir, UNSORTABLE)
    query = sa.select(InspectionRule.__table__)
    if phase is not None:
        query = query.where(InspectionRule.phase == phase)
    with context_manager.reader.using(context) as session:
        return paging.page(
            session,
            InspectionRule,
            query,
            column,
            sort_dir == 'desc',
            limit,
            marker,
            lambda ident: exception.InspectionRuleNotFound(rule=ident),
        )


@retry_on_disconnect
def of_phase(context: RequestContext, phase: str) -> list[dict[str, Any]]:
    """Every rule of ``phase`` (one query), highest priority first."""
    with context_manager.reader.using(context) as session:
        return [
            dict(row)
            for row in session.execute(
                sa.select(InspectionRule.__table__)
                .where(InspectionRule.phase == phase)
                .order_by(InspectionRule.priority.desc(), InspectionRule.id)
            ).mappings()
        ]


@retried
def update(
    context: RequestContext, ident: int | str, values: dict[str, Any]
) -> dict[str, Any]:
    """Write ``values``. :raises InspectionRuleNotFound:"""
    with context_manager.writer.using(context) as session:
        current = _get(session, ident)
        session.execute(
            sa.update(InspectionRule)
            .where(InspectionRule.id == current['id'])
            .values(**values)
            .execution_options(synchronize_session=False)
        )
        return _get(session, current['id'])


@retried
def destroy(context: RequestContext, ident: int | str) -> None:
    """:raises InspectionRuleNotFound:"""
    with context_manager.writer.using(context) as session:
        current = _get(session, ident)
        session.execute(
            sa.delete(InspectionRule).where(InspectionRule.id == current['id'])
        )
