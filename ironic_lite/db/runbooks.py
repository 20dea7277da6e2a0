"""Access to runbooks (API 1.92), their steps and traits.

A runbook comes back as a dict with its ``steps`` (dicts of interface,
step, args, order, in the order they were given) and ``traits`` (a
sorted list). Its steps are written with it, in one transaction: a
runbook is never seen half written. A list reads the steps and traits
of its whole page in two more queries.
"""

from typing import Any

from oslo_db import exception as db_exc
from oslo_utils import uuidutils
import sqlalchemy as sa

from ironic_lite import exception
from ironic_lite.db import paging
from ironic_lite.db import step_rows
from ironic_lite.db.api import context_manager
from ironic_lite.db.api import retried
from ironic_lite.db.api import retry_on_disconnect
from ironic_lite.db.models import Runbook
from ironic_lite.db.models import RunbookStep
from ironic_lite.db.models import RunbookTrait
from lite_common.context import RequestContext

#: Columns a list may not be sorted by, as upstream.
UNSORTABLE = ('extra', 'steps', 'traits')
STEP_FIELDS = ('interface', 'step', 'args', 'order')


def _duplicate(
    exc: db_exc.DBDuplicateEntry, values: dict[str, Any]
) -> Exception:
    if 'name' in set(exc.columns or ()):
        return exception.RunbookDuplicateName(name=values.get('name'))
    return exception.RunbookAlreadyExists(uuid=values.get('uuid'))


def _clause(ident: int | str) -> Any:
    if isinstance(ident, int):
        return Runbook.id == ident
    if uuidutils.is_uuid_like(ident):
        return Runbook.uuid == ident
    return Runbook.name == ident


def _complete(
    session: Any, rows: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    rows = step_rows.attach(
        session, RunbookStep, 'runbook_id', STEP_FIELDS, rows
    )
    ids = [row['id'] for row in rows]
    traits: dict[int, list[str]] = {i: [] for i in ids}
    if ids:
        for runbook_id, trait in session.execute(
            sa.select(RunbookTrait.runbook_id, RunbookTrait.trait)
            .where(RunbookTrait.runbook_id.in_(ids))
            .order_by(RunbookTrait.trait)
        ):
            traits[runbook_id].append(trait)
    return [{**row, 'traits': traits[row['id']]} for row in rows]


def _get(session: Any, ident: int | str) -> dict[str, Any]:
    row = (
        session.execute(sa.select(Runbook.__table__).where(_clause(ident)))
        .mappings()
        .first()
    )
    if row is None:
        raise exception.RunbookNotFound(runbook=ident)
    return _complete(session, [dict(row)])[0]


@retried
def create(context: RequestContext, values: dict[str, Any]) -> dict[str, Any]:
    """Insert a runbook with its ``steps``; returns it.

    :raises: RunbookAlreadyExists, RunbookDuplicateName.
    """
    values = dict(values)
    steps = values.pop('steps')
    if not values.get('uuid'):
        values['uuid'] = uuidutils.generate_uuid()
    try:
        with context_manager.writer.using(context) as session:
            row = Runbook(**values)
            session.add(row)
            session.flush()
            step_rows.replace(
                session, RunbookStep, 'runbook_id', STEP_FIELDS, row.id, steps
            )
            return _get(session, row.id)
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, values)


@retry_on_disconnect
def get(context: RequestContext, ident: int | str) -> dict[str, Any]:
    """By id, uuid or name. :raises RunbookNotFound:"""
    with context_manager.reader.using(context) as session:
        return _get(session, ident)


@retry_on_disconnect
def list_page(
    context: RequestContext,
    project: str | None = None,
    limit: int | None = None,
    marker: str | None = None,
    sort_key: str = 'id',
    sort_dir: str = 'asc',
) -> list[dict[str, Any]]:
    """One page of runbooks; with ``project``, those it owns and the
    public ones (upstream's project filter).

    :raises InvalidParameterValue: sort key or direction.
    :raises RunbookNotFound: an unknown marker.
    """
    column = paging.check_sort(Runbook, sort_key, sort_dir, UNSORTABLE)
    query = sa.select(Runbook.__table__)
    if project is not None:
        query = query.where(
            sa.or_(Runbook.owner == project, Runbook.public.is_(True))
        )
    with context_manager.reader.using(context) as session:
        rows = paging.page(
            session,
            Runbook,
            query,
            column,
            sort_dir == 'desc',
            limit,
            marker,
            lambda ident: exception.RunbookNotFound(runbook=ident),
        )
        return _complete(session, rows)


@retried
def update(
    context: RequestContext, ident: int | str, values: dict[str, Any]
) -> dict[str, Any]:
    """Write ``values`` (``steps`` replaces every step).

    :raises: RunbookNotFound, RunbookDuplicateName.
    """
    values = dict(values)
    steps = values.pop('steps', None)
    try:
        with context_manager.writer.using(context) as session:
            current = _get(session, ident)
            if values:
                session.execute(
                    sa.update(Runbook)
                    .where(Runbook.id == current['id'])
                    .values(**values)
                    .execution_options(synchronize_session=False)
                )
            if steps is not None:
                step_rows.replace(
                    session,
                    RunbookStep,
                    'runbook_id',
                    STEP_FIELDS,
                    current['id'],
                    steps,
                )
            return _get(session, current['id'])
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, values)


@retried
def destroy(context: RequestContext, ident: int | str) -> None:
    """:raises RunbookNotFound:"""
    with context_manager.writer.using(context) as session:
        current = _get(session, ident)
        for model in (RunbookStep, RunbookTrait):
            session.execute(
                sa.delete(model).where(model.runbook_id == current['id'])
            )
        session.execute(sa.delete(Runbook).where(Runbook.id == current['id']))


@retried
def set_traits(
    context: RequestContext, runbook_id: int, traits: list[str], replace: bool
) -> None:
    """Add ``traits`` to the runbook (``replace``: they become its only
    ones); one transaction."""
    with context_manager.writer.using(context) as session:
        query = sa.select(RunbookTrait.trait).where(
            RunbookTrait.runbook_id == runbook_id
        )
        current = set(session.execute(query).scalars())
        if replace:
            session.execute(
                sa.delete(RunbookTrait).where(
                    RunbookTrait.runbook_id == runbook_id,
                    RunbookTrait.trait.not_in(traits),
                )
            )
        for trait in sorted(set(traits) - current):
            session.add(RunbookTrait(runbook_id=runbook_id, trait=trait))
        session.flush()


@retried
def remove_traits(
    context: RequestContext, runbook_id: int, traits: list[str] | None
) -> None:
    """Remove ``traits`` (every one with None); one not there is not an
    error, as upstream."""
    with context_manager.writer.using(context) as session:
        query = sa.delete(RunbookTrait).where(
            RunbookTrait.runbook_id == runbook_id
        )
        if traits is not None:
            query = query.where(RunbookTrait.trait.in_(traits))
        session.execute(query)
