"""An operator-driven compute host rename, in one transaction.

The host name moves on the service, its compute nodes, the instances and
the migrations that name it; integer links (service_id, compute_id,
dest_compute_id) do not change, so nothing is re-linked. A node whose
hypervisor_hostname is the old host name (the default of the fake and
local drivers, and usual for hypervisors named after their host) is
renamed too, and so is ``node`` on its instances and migrations.
"""

import datetime
from typing import Any

import sqlalchemy as sa

from lite_common import db as lite_db
from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.db import models
from nova_lite.db.api import context_manager
from nova_lite.db.api import retried

COMPUTE = 'nova-compute'


def _refuse(reason: str) -> exception.HostRenameRefused:
    return exception.HostRenameRefused(reason=reason)


def _check(session: Any, old: str, new: str, down_time: int) -> Any:
    svc = models.Service
    live = sa.select(svc).where(svc.deleted == 0, svc.binary == COMPUTE)
    service = session.scalars(live.where(svc.host == old)).first()
    if service is None:
        raise _refuse(f'there is no compute service on host {old!r}.')
    if session.scalars(live.where(svc.host == new)).first() is not None:
        raise _refuse(f'a compute service already exists on host {new!r}.')
    cn = models.ComputeNode
    taken = session.scalars(
        sa.select(cn.uuid).where(cn.deleted == 0, cn.host == new)
    ).first()
    if taken is not None:
        raise _refuse(f'compute node {taken} already has host {new!r}.')
    if service.last_seen_up is not None:
        age = lite_db.utcnow() - service.last_seen_up
        if age < datetime.timedelta(seconds=down_time):
            raise _refuse(
                f'the compute service on {old!r} reported '
                f'{int(age.total_seconds())} s ago: it is still up. Stop '
                f'its agent and wait until "openstack compute service '
                f'list" shows it down (service_down_time = {down_time} '
                f's), then run the rename again.'
            )
    return service


def _update(
    session: Any, model: Any, column: str, old: str, new: str, *where: Any
) -> int:
    col = getattr(model, column)
    result = session.execute(
        sa.update(model).where(col == old, *where).values({column: new})
    )
    return int(result.rowcount)


@retried
def rename_compute_host(
    context: RequestContext, old: str, new: str, down_time: int
) -> dict[str, int]:
    """Rename compute host ``old`` to ``new``; returns rows changed."""
    if not new or new == old:
        raise _refuse('the new host name must differ from the old one.')
    with context_manager.writer.using(context) as session:
        service = _check(session, old, new, down_time)
        cn, inst, mig = models.ComputeNode, models.Instance, models.Migration
        node_rows = session.execute(
            sa.select(cn.id).where(
                cn.service_id == service.id, cn.hypervisor_hostname == old
            )
        )
        counts = {
            'services': _update(
                session,
                models.Service,
                'host',
                old,
                new,
                models.Service.id == service.id,
            ),
            'compute nodes': _update(session, cn, 'host', old, new),
            'instances': _update(session, inst, 'host', old, new),
            'migrations': (
                _update(session, mig, 'source_compute', old, new)
                + _update(session, mig, 'dest_compute', old, new)
            ),
        }
        if list(node_rows):
            _update(
                session, cn, 'hypervisor_hostname', old, new, cn.host == new
            )
            _update(session, inst, 'node', old, new, inst.host == new)
            _update(
                session,
                mig,
                'source_node',
                old,
                new,
                mig.source_compute == new,
            )
            _update(
                session, mig, 'dest_node', old, new, mig.dest_compute == new
            )
    return counts
