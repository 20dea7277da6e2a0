"""Quotas: per-project limits, usage, and the atomic check that
creates instances (or starts a resize) only within them.

Usage is counted from the live instances of a project (deleted ones no
longer count, nor, as upstream, soft-deleted ones: restoring one checks
the quota again); a resize in progress counts the larger of its two
flavors. A check first updates the project's row in
``project_quota_locks`` in the transaction that counts and writes: the
update takes the write lock (SQLite, ``BEGIN IMMEDIATE``) or the row
lock (MariaDB, PostgreSQL) before anything is counted, so concurrent
checks of one project run one after another and cannot together
exceed a limit.
"""

from collections.abc import Callable
from typing import Any

from oslo_config import cfg
from oslo_db import exception as db_exc
import sqlalchemy as sa

from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.common import states
from nova_lite.db import compute_nodes
from nova_lite.db import flavors
from nova_lite.db import models
from nova_lite.db.api import as_dict
from nova_lite.db.api import context_manager
from nova_lite.db.api import retried

INST = models.Instance
QUOTA = models.Quota
LOCK = models.ProjectQuotaLock
# Counted from instances and enforced; the other resources are stored.
COUNTED = ('instances', 'cores', 'ram')
# Upstream's deprecated nova-network resources: shown before 2.36,
# always unlimited, never stored.
NETWORK = (
    'fixed_ips',
    'floating_ips',
    'security_groups',
    'security_group_rules',
)
# Upstream's resource name -> its [quota] option.
OPTION = {
    'instances': 'instances',
    'cores': 'cores',
    'ram': 'ram',
    'metadata_items': 'metadata_items',
    'injected_files': 'injected_files',
    'injected_file_content_bytes': 'injected_file_content_bytes',
    'injected_file_path_bytes': 'injected_file_path_length',
    'key_pairs': 'key_pairs',
    'server_groups': 'server_groups',
    'server_group_members': 'server_group_members',
}
RESOURCES = tuple(sorted((*OPTION, *NETWORK)))
UNLIMITED = -1


def defaults() -> dict[str, int]:
    """Every resource's limit in ``[quota]`` (the class ``default`` may
    change them: see :func:`project_quotas` with no project).

    The process's configuration, ``cfg.CONF``: every nova process loads
    its files there (:mod:`nova_lite.cmd.common`, the all-in-one too),
    and the limits are read deep in the transactions that count (key
    pairs, server groups, metadata, resize, restore), where no caller
    has a configuration to pass."""
    values = {name: UNLIMITED for name in NETWORK}
    for name, option in OPTION.items():
        values[name] = getattr(cfg.CONF.quota, option)
    return values


#: Quota classes (os-quota-class-sets) are kept in the quotas table
#: under this prefix and their name (a project id never has a colon);
#: the class ``default`` gives the defaults of every project, as
#: upstream's.
CLASS_PREFIX = 'quota_class:'
DEFAULT_CLASS = 'default'


def class_key(name: str) -> str:
    return CLASS_PREFIX + name


def _overlaid(session: Any, keys: list[str]) -> dict[str, int]:
    """The defaults with the rows of ``keys`` over them, later keys
    winning, in one query."""
    values = defaults()
    found: dict[str, dict[str, int]] = {}
    rows = session.execute(
        sa.select(QUOTA.project_id, QUOTA.resource, QUOTA.hard_limit).where(
            QUOTA.project_id.in_(keys)
        )
    )
    for key, resource, limit in rows:
        found.setdefault(key, {})[resource] = limit
    for key in keys:
        values.update(
            {
                resource: limit
                for resource, limit in found.get(key, {}).items()
                if resource in values
            }
        )
    return values


def _limits(session: Any, project_id: str | None) -> dict[str, int]:
    """``[quota]``, then the ``default`` class, then the project's own
    rows (None: the defaults)."""
    keys = [class_key(DEFAULT_CLASS)]
    if project_id is not None:
        keys.append(project_id)
    return _overlaid(session, keys)


@retried
def class_quotas(context: RequestContext, name: str) -> dict[str, int]:
    """A quota class's limits: its rows over ``[quota]``."""
    with context_manager.reader.using(context) as session:
        return _overlaid(session, [class_key(name)])


def _usage(session: Any, project_id: str | None) -> dict[str, int]:
    used = {'instances': 0, 'cores': 0, 'ram': 0}
    rows = session.execute(
        sa.select(INST.vcpus, INST.memory_mb, INST.new_flavor).where(
            INST.project_id == project_id,
            INST.deleted == 0,
            INST.vm_state != states.SOFT_DELETED,
        )
    )
    for vcpus, memory_mb, new_flavor in rows:
        new = new_flavor or {}
        used['instances'] += 1
        used['cores'] += max(vcpus or 0, new.get('vcpus') or 0)
        used['ram'] += max(memory_mb or 0, new.get('memory_mb') or 0)
    return used


@retried
def project_quotas(
    context: RequestContext, project_id: str | None
) -> dict[str, int]:
    """resource -> limit of the project (its own or the default)."""
    with context_manager.reader.using(context) as session:
        return _limits(session, project_id)


@retried
def project_usage(
    context: RequestContext, project_id: str | None
) -> dict[str, int]:
    """instances, cores and ram in use by the project."""
    with context_manager.reader.using(context) as session:
        return _usage(session, project_id)


@retried
def quota_set(
    context: RequestContext, project_id: str, limits: dict[str, int]
) -> None:
    """Store the project's limits of the given resources."""
    with context_manager.writer.using(context) as session:
        for resource, limit in limits.items():
            updated = session.execute(
                sa.update(QUOTA)
                .where(
                    QUOTA.project_id == project_id, QUOTA.resource == resource
                )
                .values(hard_limit=limit)
                .execution_options(synchronize_session=False)
            )
            if updated.rowcount == 0:
                session.add(
                    QUOTA(
                        project_id=project_id,
                        resource=resource,
                        hard_limit=limit,
                    )
                )
        session.flush()


@retried
def quota_destroy_all(context: RequestContext, project_id: str) -> None:
    """Back to the defaults for every resource of the project."""
    with context_manager.writer.using(context) as session:
        session.execute(sa.delete(QUOTA).where(QUOTA.project_id == project_id))


@retried
def ensure_lock_row(context: RequestContext, project_id: str) -> None:
    """The project's lock row exists (its own short transaction)."""
    try:
        with context_manager.writer.using(context) as session:
            exists = session.execute(
                sa.select(LOCK.project_id).where(LOCK.project_id == project_id)
            ).first()
            if exists is None:
                session.add(LOCK(project_id=project_id, generation=0))
                session.flush()
    except db_exc.DBDuplicateEntry:
        pass  # another request created it first


def lock(session: Any, project_id: str) -> None:
    """Take the project's quota lock row (until the transaction ends)."""
    _lock(session, project_id)


def limits(session: Any, project_id: str | None) -> dict[str, int]:
    """The project's limits: its own rows over the defaults."""
    return _limits(session, project_id)


def _lock(session: Any, project_id: str) -> None:
    session.execute(
        sa.update(LOCK)
        .where(LOCK.project_id == project_id)
        .values(generation=LOCK.generation + 1)
        .execution_options(synchronize_session=False)
    )


def _headroom(
    limits: dict[str, int],
    used: dict[str, int],
    per_item: dict[str, int],
    wanted: int,
) -> int:
    """How many of ``per_item`` fit, at most ``wanted``."""
    fit = wanted
    for resource in COUNTED:
        limit, need = limits[resource], per_item[resource]
        if limit == UNLIMITED or need <= 0:
            continue
        fit = min(fit, max(0, limit - used[resource]) // need)
    return fit


def _over(
    limits: dict[str, int], used: dict[str, int], requested: dict[str, int]
) -> exception.TooManyInstances:
    overs = [
        r
        for r in COUNTED
        if limits[r] != UNLIMITED
        and requested[r] > 0
        and used[r] + requested[r] > limits[r]
    ]
    return exception.TooManyInstances(
        overs=', '.join(overs),
        req=', '.join(str(requested[r]) for r in overs),
        used=', '.join(str(used[r]) for r in overs),
        allowed=', '.join(str(limits[r]) for r in overs),
    )


@compute_nodes.retry_on_deadlock
def create_instances(
    context: RequestContext,
    project_id: str,
    per_item: dict[str, int],
    low: int,
    high: int,
    make_values: Callable[[int, int], dict[str, Any]],
) -> list[dict[str, Any]]:
    """Create as many instances as the project's quota allows, at most
    ``high``; TooManyInstances if not even ``low`` fit. ``per_item``:
    the instances, cores and ram of one; ``make_values(index, count)``
    gives the values of each record."""
    ensure_lock_row(context, project_id)
    with context_manager.writer.using(context) as session:
        _lock(session, project_id)
        limits = _limits(session, project_id)
        used = _usage(session, project_id)
        count = _headroom(limits, used, per_item, high)
        if count < low:
            raise _over(limits, used, {r: per_item[r] * high for r in COUNTED})
        rows = []
        for index in range(count):
            row = INST(
                **_instance_attrs(
                    flavors.with_type_id(session, make_values(index, count))
                )
            )
            session.add(row)
            rows.append(row)
        session.flush()
        return [as_dict(row) for row in rows]


def _instance_attrs(values: dict[str, Any]) -> dict[str, Any]:
    return {
        ('metadata_' if k == 'metadata' else k): v for k, v in values.items()
    }


def check_resize(
    session: Any, project_id: str, uuid: str, new_flavor: dict[str, Any]
) -> None:
    """In the caller's transaction: TooManyInstances unless the
    project's cores and RAM leave room for ``new_flavor`` on the
    instance ``uuid`` (its growth only; shrinking always fits)."""
    _lock(session, project_id)
    limits = _limits(session, project_id)
    used = _usage(session, project_id)
    current = session.execute(
        sa.select(INST.vcpus, INST.memory_mb).where(
            INST.uuid == uuid, INST.deleted == 0
        )
    ).first()
    if current is None:
        raise exception.InstanceNotFound(instance_id=uuid)
    delta = {
        'instances': 0,
        'cores': max(0, new_flavor['vcpus'] - current.vcpus),
        'ram': max(0, new_flavor['memory_mb'] - current.memory_mb),
    }
    if _headroom(limits, used, {**delta, 'instances': 0}, 1) < 1:
        raise _over(limits, used, delta)


def check_restore(session: Any, project_id: str, uuid: str) -> None:
    """In the caller's transaction: TooManyInstances unless the project's
    quota leaves room for the soft-deleted instance ``uuid`` again (one
    instance, its cores and RAM), as upstream's restore checks."""
    _lock(session, project_id)
    limits = _limits(session, project_id)
    used = _usage(session, project_id)
    current = session.execute(
        sa.select(INST.vcpus, INST.memory_mb).where(
            INST.uuid == uuid, INST.deleted == 0
        )
    ).first()
    if current is None:
        raise exception.InstanceNotFound(instance_id=uuid)
    need = {
        'instances': 1,
        'cores': current.vcpus or 0,
        'ram': current.memory_mb or 0,
    }
    if _headroom(limits, used, need, 1) < 1:
        raise _over(limits, used, need)
