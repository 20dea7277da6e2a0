"""Access to instance actions and their events (os-instance-actions).

An action is one request that acted on an instance, keyed by the
request id; its events are the steps it ran on the conductor and the
compute agents, each with where it ran and how it ended. Every write is
one statement or one short transaction; an action's ``updated_at``
moves with each event, so that ``changes-since`` finds actions still
under way.
"""

from typing import Any
from typing import cast

import sqlalchemy as sa

from lite_common import db as lite_db
from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.common import states
from nova_lite.db import compute_nodes
from nova_lite.db import instances
from nova_lite.db import models
from nova_lite.db import quotas
from nova_lite.db.api import context_manager
from nova_lite.db.api import retried

INST = models.Instance
ACTION = models.InstanceAction
EVENT = models.InstanceActionEvent
SUCCESS, ERROR = states.ACTION_SUCCESS, states.ACTION_ERROR


@retried
def action_get(
    context: RequestContext, instance_uuid: str, request_id: str
) -> dict[str, Any] | None:
    with context_manager.reader.using(context) as session:
        row = (
            session.execute(
                sa.select(ACTION.__table__).where(
                    ACTION.instance_uuid == instance_uuid,
                    ACTION.request_id == request_id,
                )
            )
            .mappings()
            .first()
        )
        return dict(row) if row else None


@retried
def actions_get(
    context: RequestContext,
    instance_uuid: str,
    limit: int | None = None,
    marker: str | None = None,
    changes_since: Any = None,
    changes_before: Any = None,
) -> list[dict[str, Any]]:
    """The actions of an instance, newest first; ``marker`` is a request
    id; ``changes_since`` / ``changes_before`` bound ``updated_at``.

    :raises MarkerNotFound:
    """
    with context_manager.reader.using(context) as session:
        query = sa.select(ACTION.__table__).where(
            ACTION.instance_uuid == instance_uuid
        )
        if changes_since is not None:
            query = query.where(ACTION.updated_at >= changes_since)
        if changes_before is not None:
            query = query.where(ACTION.updated_at <= changes_before)
        if marker is not None:
            mark = session.execute(
                sa.select(ACTION.created_at, ACTION.id).where(
                    ACTION.instance_uuid == instance_uuid,
                    ACTION.request_id == marker,
                )
            ).first()
            if mark is None:
                raise exception.MarkerNotFound(marker=marker)
            query = query.where(
                sa.or_(
                    ACTION.created_at < mark.created_at,
                    sa.and_(
                        ACTION.created_at == mark.created_at,
                        ACTION.id < mark.id,
                    ),
                )
            )
        query = query.order_by(ACTION.created_at.desc(), ACTION.id.desc())
        if limit is not None:
            query = query.limit(limit)
        return [dict(row) for row in session.execute(query).mappings()]


@retried
def events_get(
    context: RequestContext, action_id: int
) -> list[dict[str, Any]]:
    """The events of an action, newest first (upstream's order)."""
    with context_manager.reader.using(context) as session:
        query = (
            sa.select(EVENT.__table__)
            .where(EVENT.action_id == action_id)
            .order_by(EVENT.created_at.desc(), EVENT.id.desc())
        )
        return [dict(row) for row in session.execute(query).mappings()]


@compute_nodes.retry_on_deadlock
def event_start(
    context: RequestContext,
    instance_uuid: str,
    request_id: str | None,
    event: str,
    host: str | None,
) -> None:
    """Record that a step starts (on ``host``). A step run again (a
    redelivered request, a resumed flow) starts its event again."""
    now = lite_db.utcnow()
    with context_manager.writer.using(context) as session:
        action = _action_id(session, instance_uuid, request_id)
        if action is None:
            return
        # The action row first: concurrent events of one action then
        # queue on it, instead of each holding the shared lock of its
        # event's foreign key and waiting for the other's (a deadlock).
        _touch(session, action, now)
        updated = session.execute(
            sa.update(EVENT)
            .where(EVENT.action_id == action, EVENT.event == event)
            .values(
                start_time=now,
                finish_time=None,
                result=None,
                traceback=None,
                details=None,
                host=host,
                updated_at=now,
            )
        )
        if updated.rowcount == 0:
            session.execute(
                sa.insert(EVENT).values(
                    action_id=action,
                    event=event,
                    start_time=now,
                    host=host,
                    created_at=now,
                )
            )


@compute_nodes.retry_on_deadlock
def event_finish(
    context: RequestContext,
    instance_uuid: str,
    request_id: str | None,
    event: str,
    result: str = SUCCESS,
    traceback: str | None = None,
    details: str | None = None,
) -> None:
    """Record how a step ended; an error also marks its action
    (``message`` "Error", as upstream)."""
    now = lite_db.utcnow()
    with context_manager.writer.using(context) as session:
        action = _action_id(session, instance_uuid, request_id)
        if action is None:
            return
        values: dict[str, Any] = {'updated_at': now}
        if result == ERROR:
            values['message'] = 'Error'
        session.execute(
            sa.update(ACTION).where(ACTION.id == action).values(**values)
        )  # the action row first
        session.execute(
            sa.update(EVENT)
            .where(EVENT.action_id == action, EVENT.event == event)
            .values(
                finish_time=now,
                result=result,
                traceback=traceback,
                details=details,
                updated_at=now,
            )
        )


def _action_id(
    session: Any, instance_uuid: str, request_id: str | None
) -> int | None:
    """The action of the request; without a request id (a step resumed
    by an agent after a restart), the instance's latest action, as
    upstream."""
    query = sa.select(ACTION.id).where(ACTION.instance_uuid == instance_uuid)
    if request_id is None:
        query = query.order_by(ACTION.created_at.desc(), ACTION.id.desc())
    else:
        query = query.where(ACTION.request_id == request_id)
    return cast('int | None', session.execute(query.limit(1)).scalar())


def _touch(session: Any, action: int, now: Any) -> None:
    session.execute(
        sa.update(ACTION).where(ACTION.id == action).values(updated_at=now)
    )


@compute_nodes.retry_on_deadlock
def begin(
    context: RequestContext,
    uuid: str,
    values: dict[str, Any],
    action: dict[str, Any],
    task_states: list[str | None],
    vm_states: tuple[str, ...] | None = None,
    unlocked: bool = False,
    quota_project: str | None = None,
) -> None:
    """Start an operation: ``values`` (its task state) only while the
    instance is in one of ``vm_states`` (any, None) with a task among
    ``task_states`` (and, with ``unlocked``, not locked), and its action
    record, in one transaction: a crash cannot leave one without the
    other, and two requests cannot both start. With ``quota_project``,
    first the quota check of a restore (the project's lock held until
    the end).

    :raises InstanceNotFound:
    :raises TooManyInstances: (``quota_project``) no room to restore.
    :raises UnexpectedTaskState: the instance's state did not allow it
        (the caller re-reads it to say why).
    """
    if quota_project is not None:
        quotas.ensure_lock_row(context, quota_project)
    with context_manager.writer.using(context) as session:
        if quota_project is not None:
            quotas.check_restore(session, quota_project, uuid)
        query = sa.update(INST).where(
            INST.uuid == uuid,
            INST.deleted == 0,
            instances.task_state_in(task_states),
        )
        if vm_states is not None:
            query = query.where(INST.vm_state.in_(vm_states))
        if unlocked:
            query = query.where(INST.locked == sa.false())
        result = session.execute(
            query.values(values).execution_options(synchronize_session=False)
        )
        if result.rowcount != 1:
            row = session.execute(
                sa.select(INST.task_state).where(
                    INST.uuid == uuid, INST.deleted == 0
                )
            ).first()
            if row is None:
                raise exception.InstanceNotFound(instance_id=uuid)
            raise exception.UnexpectedTaskState(
                instance_uuid=uuid, expected=task_states, actual=row.task_state
            )
        insert_action(session, action)


@compute_nodes.retry_on_deadlock
def record(context: RequestContext, action: dict[str, Any]) -> None:
    """Record an action that changes no task state (lock, unlock)."""
    with context_manager.writer.using(context) as session:
        insert_action(session, action)


@compute_nodes.retry_on_deadlock
def record_many(
    context: RequestContext, actions: list[dict[str, Any]]
) -> None:
    """Record one action per new instance (a create), in one
    statement."""
    if not actions:
        return
    now = lite_db.utcnow()
    with context_manager.writer.using(context) as session:
        session.execute(
            sa.insert(ACTION),
            [
                {
                    'start_time': now,
                    'created_at': now,
                    'updated_at': now,
                    **action,
                }
                for action in actions
            ],
        )


def insert_action(session: Any, action: dict[str, Any]) -> None:
    """Record ``action`` in the caller's transaction, unless its request
    recorded it already."""
    now = lite_db.utcnow()
    exists = _action_id(session, action['instance_uuid'], action['request_id'])
    if exists is not None:
        return
    session.execute(
        sa.insert(ACTION).values(
            start_time=now, created_at=now, updated_at=now, **action
        )
    )
