"""Access to deploy templates (API 1.55) and their steps.

A template comes back as a dict with its ``steps`` (dicts of interface,
step, args, priority, in the order they were given). Its steps are
written with it, in one transaction: a template is never seen half
written. A list reads the steps of its whole page in one more query.
"""

from collections.abc import Iterable
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
from ironic_lite.db.models import DeployTemplate
from ironic_lite.db.models import DeployTemplateStep
from lite_common.context import RequestContext

#: Columns a list may not be sorted by, as upstream.
UNSORTABLE = ('extra', 'steps')
STEP_FIELDS = ('interface', 'step', 'args', 'priority')


def _duplicate(
    exc: db_exc.DBDuplicateEntry, values: dict[str, Any]
) -> Exception:
    if 'name' in set(exc.columns or ()):
        return exception.DeployTemplateDuplicateName(name=values.get('name'))
    return exception.DeployTemplateAlreadyExists(uuid=values.get('uuid'))


def _clause(ident: int | str) -> Any:
    if isinstance(ident, int):
        return DeployTemplate.id == ident
    if uuidutils.is_uuid_like(ident):
        return DeployTemplate.uuid == ident
    return DeployTemplate.name == ident


def _with_steps(
    session: Any, rows: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    return step_rows.attach(
        session, DeployTemplateStep, 'deploy_template_id', STEP_FIELDS, rows
    )


def _get(session: Any, ident: int | str) -> dict[str, Any]:
    row = (
        session.execute(
            sa.select(DeployTemplate.__table__).where(_clause(ident))
        )
        .mappings()
        .first()
    )
    if row is None:
        raise exception.DeployTemplateNotFound(template=ident)
    return _with_steps(session, [dict(row)])[0]


def _write_steps(
    session: Any, template_id: int, steps: list[dict[str, Any]]
) -> None:
    step_rows.replace(
        session,
        DeployTemplateStep,
        'deploy_template_id',
        STEP_FIELDS,
        template_id,
        steps,
    )


@retried
def create(context: RequestContext, values: dict[str, Any]) -> dict[str, Any]:
    """Insert a template with its ``steps``; returns it.

    :raises: DeployTemplateAlreadyExists, DeployTemplateDuplicateName.
    """
    values = dict(values)
    steps = values.pop('steps')
    if not values.get('uuid'):
        values['uuid'] = uuidutils.generate_uuid()
    try:
        with context_manager.writer.using(context) as session:
            row = DeployTemplate(**values)
            session.add(row)
            session.flush()
            _write_steps(session, row.id, steps)
            return _get(session, row.id)
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, values)


@retry_on_disconnect
def get(context: RequestContext, ident: int | str) -> dict[str, Any]:
    """By id, uuid or name. :raises DeployTemplateNotFound:"""
    with context_manager.reader.using(context) as session:
        return _get(session, ident)


@retry_on_disconnect
def list_page(
    context: RequestContext,
    limit: int | None = None,
    marker: str | None = None,
    sort_key: str = 'id',
    sort_dir: str = 'asc',
) -> list[dict[str, Any]]:
    """One page of templates, with their steps (two queries).

    :raises InvalidParameterValue: sort key or direction.
    :raises DeployTemplateNotFound: an unknown marker.
    """
    column = paging.check_sort(DeployTemplate, sort_key, sort_dir, UNSORTABLE)
    with context_manager.reader.using(context) as session:
        rows = paging.page(
            session,
            DeployTemplate,
            sa.select(DeployTemplate.__table__),
            column,
            sort_dir == 'desc',
            limit,
            marker,
            lambda ident: exception.DeployTemplateNotFound(template=ident),
        )
        return _with_steps(session, rows)


@retry_on_disconnect
def by_names(
    context: RequestContext, names: Iterable[str]
) -> list[dict[str, Any]]:
    """The templates named by any of ``names`` (traits), by name, with
    their steps (two queries)."""
    wanted = sorted(set(names))
    if not wanted:
        return []
    with context_manager.reader.using(context) as session:
        rows = [
            dict(row)
            for row in session.execute(
                sa.select(DeployTemplate.__table__)
                .where(DeployTemplate.name.in_(wanted))
                .order_by(DeployTemplate.name)
            ).mappings()
        ]
        return _with_steps(session, rows)


@retried
def update(
    context: RequestContext, ident: int | str, values: dict[str, Any]
) -> dict[str, Any]:
    """Write ``values`` (``steps`` replaces every step).

    :raises: DeployTemplateNotFound, DeployTemplateDuplicateName.
    """
    values = dict(values)
    steps = values.pop('steps', None)
    try:
        with context_manager.writer.using(context) as session:
            current = _get(session, ident)
            if values:
                session.execute(
                    sa.update(DeployTemplate)
                    .where(DeployTemplate.id == current['id'])
                    .values(**values)
                    .execution_options(synchronize_session=False)
                )
            if steps is not None:
                _write_steps(session, current['id'], steps)
            return _get(session, current['id'])
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, values)


@retried
def destroy(context: RequestContext, ident: int | str) -> None:
    """:raises DeployTemplateNotFound:"""
    with context_manager.writer.using(context) as session:
        current = _get(session, ident)
        session.execute(
            sa.delete(DeployTemplateStep).where(
                DeployTemplateStep.deploy_template_id == current['id']
            )
        )
        session.execute(
            sa.delete(DeployTemplate).where(DeployTemplate.id == current['id'])
        )
