"""Records that start or end a move, each written in one transaction.

Starting a move sets the instance's task state (a compare-and-swap on
"no task") and creates its migration record together: a crash cannot
leave one without the other; it is refused while an older move of the
instance is still open (issue 29: a resize accepted beside a migration
that a state reset had stranded; the migration then completed under the
resize's task state and the resize's record stayed ``pre-migrating``).

A state reset ends, in the same transaction, the moves it takes the
instance out of: every later step of an evacuation or a cold move is a
compare-and-swap on a task state the reset clears, so nothing else would
end them. Upstream's os-resetState changes only the instance and leaves
such records to periodic tasks (a ``finished`` move whose instance is no
longer resized becomes ``error``); here they end at once, and the copies
they made are kept (compute/cleanup.py decides on them from the
records, as for any move that ended).
"""

from typing import Any

import sqlalchemy as sa

from lite_common import db as lite_db
from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.db import compute_nodes
from nova_lite.db import instance_actions
from nova_lite.db import models
from nova_lite.db import quotas
from nova_lite.db.api import as_dict
from nova_lite.db.api import context_manager
from nova_lite.db.api import retried

INST = models.Instance
MIG = models.Migration


def _start_task(session: Any, uuid: str, values: dict[str, Any]) -> None:
    """``values`` (a task state among them) only while the instance has
    no task: one conditional UPDATE."""
    result = session.execute(
        sa.update(INST)
        .where(INST.uuid == uuid, INST.deleted == 0, INST.task_state.is_(None))
        .values(values)
        .execution_options(synchronize_session=False)
    )
    if result.rowcount == 1:
        return
    row = session.execute(
        sa.select(INST.task_state).where(INST.uuid == uuid, INST.deleted == 0)
    ).first()
    if row is None:
        raise exception.InstanceNotFound(instance_id=uuid)
    raise exception.UnexpectedTaskState(
        instance_uuid=uuid, expected=[None], actual=row.task_state
    )


# Moves of an instance that a new one may not start beside: from its
# acceptance until it ends (``finished`` waits for confirm or revert
# with the instance RESIZED, which refuses new moves itself; a
# ``confirming`` one only deletes the source's copy kept aside).
OPEN_MOVE_STATUSES = (
    'accepted',
    'pre-migrating',
    'migrating',
    'post-migrating',
    'reverting',
)
# Cold moves a state reset strands (each next step needs the task state
# the reset clears).
STRANDED_BY_RESET = (
    'pre-migrating',
    'migrating',
    'post-migrating',
    'reverting',
)
COLD_MOVE_TYPES = ('migration', 'resize')


def _check_no_open_move(session: Any, uuid: str) -> None:
    """MoveInProgress when a move of the instance is still open."""
    row = session.execute(
        sa.select(MIG.uuid, MIG.migration_type, MIG.status)
        .where(
            MIG.instance_uuid == uuid,
            MIG.deleted == 0,
            MIG.status.in_(OPEN_MOVE_STATUSES),
        )
        .order_by(MIG.id)
        .limit(1)
    ).first()
    if row is not None:
        raise exception.MoveInProgress(
            instance_uuid=uuid,
            migration_uuid=row.uuid,
            migration_type=row.migration_type,
            status=row.status,
        )


@retried
def start_task(
    context: RequestContext,
    uuid: str,
    values: dict[str, Any],
    action: dict[str, Any] | None = None,
) -> None:
    """``values`` (a task state among them) only while the instance has
    no task, and the request's instance ``action`` if given; raises
    UnexpectedTaskState or InstanceNotFound."""
    with context_manager.writer.using(context) as session:
        _start_task(session, uuid, values)
        if action is not None:
            instance_actions.insert_action(session, action)


@compute_nodes.retry_on_deadlock
def begin_move(
    context: RequestContext,
    uuid: str,
    instance_values: dict[str, Any],
    migration_values: dict[str, Any],
    quota_project: str | None = None,
    action: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Start a move: the instance's task state (and other values) only
    while it has no task, and its migration record, in one transaction.
    Raises UnexpectedTaskState (another operation started first),
    MoveInProgress (an older move of the instance is still open) or
    InstanceNotFound; returns the migration. With ``quota_project``
    (a resize), the growth to ``instance_values['new_flavor']`` is
    checked against that project's quota in the same transaction
    (TooManyInstances). The request's instance ``action`` is recorded
    with them."""
    if quota_project is not None:
        quotas.ensure_lock_row(context, quota_project)
    with context_manager.writer.using(context) as session:
        if quota_project is not None:
            quotas.check_resize(
                session, quota_project, uuid, instance_values['new_flavor']
            )
        _check_no_open_move(session, uuid)
        _start_task(session, uuid, instance_values)
        if action is not None:
            instance_actions.insert_action(session, action)
        row = MIG(**migration_values)
        session.add(row)
        session.flush()
        return as_dict(row)


def _end_evacuations(
    session: Any, uuid: str, compute_id: int | None
) -> dict[str, int]:
    """An instance's unfinished evacuations after a state reset: one
    whose destination already holds the instance (it is placed there)
    is ``done``, every other one ``failed`` (the instance stays where
    its record places it, and so does its copy there)."""
    unfinished = (
        MIG.instance_uuid == uuid,
        MIG.deleted == 0,
        MIG.migration_type == 'evacuation',
        MIG.status.in_(('accepted', 'pre-migrating')),
    )
    nodes = {
        node
        for (node,) in session.execute(
            sa.select(MIG.dest_compute_id).where(*unfinished)
        )
    } - {None}
    now = lite_db.utcnow()
    arrived = sa.and_(
        MIG.dest_compute_id.is_not(None), MIG.dest_compute_id == compute_id
    )
    done = session.execute(
        sa.update(MIG)
        .where(*unfinished, arrived)
        .values(status='done', updated_at=now)
        .execution_options(synchronize_session=False)
    ).rowcount
    failed = session.execute(
        sa.update(MIG)
        .where(*unfinished)
        .values(status='failed', updated_at=now)
        .execution_options(synchronize_session=False)
    ).rowcount
    if nodes:
        # A claimed evacuation counted on its destination until now.
        session.execute(compute_nodes.usage_refresh_statement(nodes))
    return {'done': int(done), 'failed': int(failed)}


def _end_cold_moves(session: Any, uuid: str) -> int:
    """An instance's cold moves a state reset strands end ``error``: the
    instance stays where its record places it; the copies stay where
    they are, for the agents' clean-up to decide on from the records
    (the source puts back a copy it kept aside, a destination's copy
    of an instance living elsewhere goes). Returns how many."""
    stranded = (
        MIG.instance_uuid == uuid,
        MIG.deleted == 0,
        MIG.migration_type.in_(COLD_MOVE_TYPES),
        MIG.status.in_(STRANDED_BY_RESET),
    )
    rows = session.execute(
        sa.select(
            MIG.dest_compute_id, MIG.source_compute, MIG.source_node
        ).where(*stranded)
    ).all()
    if not rows:
        return 0
    ended = session.execute(
        sa.update(MIG)
        .where(*stranded)
        .values(status='error', updated_at=lite_db.utcnow())
        .execution_options(synchronize_session=False)
    ).rowcount
    # Claimed on a destination, or held on the source, until now.
    nodes = {r.dest_compute_id for r in rows} - {None}
    CN = models.ComputeNode
    nodes |= set(
        session.scalars(
            sa.select(CN.id).where(
                CN.deleted == 0,
                sa.or_(
                    *(
                        sa.and_(
                            CN.host == host, CN.hypervisor_hostname == node
                        )
                        for host, node in {
                            (r.source_compute, r.source_node) for r in rows
                        }
                    )
                ),
            )
        )
    )
    if nodes:
        session.execute(compute_nodes.usage_refresh_statement(nodes))
    return int(ended)


@compute_nodes.retry_on_deadlock
def reset_state(
    context: RequestContext,
    uuid: str,
    vm_state: str,
    action: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], dict[str, int]]:
    """os-resetState: ``vm_state``, no task, and the instance's
    unfinished evacuations and stranded cold moves ended, in one
    transaction (with the request's instance ``action``). Returns the
    instance and how many evacuations became done / failed and cold
    moves error."""
    with context_manager.writer.using(context) as session:
        result = session.execute(
            sa.update(INST)
            .where(INST.uuid == uuid, INST.deleted == 0)
            .values(vm_state=vm_state, task_state=None)
            .execution_options(synchronize_session=False)
        )
        if result.rowcount != 1:
            raise exception.InstanceNotFound(instance_id=uuid)
        row = session.scalars(
            sa.select(INST)
            .where(INST.uuid == uuid)
            .execution_options(populate_existing=True)
        ).one()
        ended = _end_evacuations(session, uuid, row.compute_id)
        ended['error'] = _end_cold_moves(session, uuid)
        if action is not None:
            instance_actions.insert_action(session, action)
        return as_dict(row), ended
