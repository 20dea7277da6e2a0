"""Why no bare metal node was a candidate: the reason a NoValidHost
gives a whole-machine request, read from the compute node records.

The ironic virt driver reports every node it serves; a node that cannot
take a server now (cleaning, in maintenance, failed, deploying, or
holding one) is reported without a resource class, and a node in use
counts a running server. One query counts them all.
"""

import datetime
from typing import Any

from oslo_config import cfg
import sqlalchemy as sa

from lite_common import db as lite_db
from nova_lite.db import models
from nova_lite.objects.service import COMPUTE_BINARY

CN = models.ComputeNode
SVC = models.Service


def _count(condition: Any) -> Any:
    return sa.func.coalesce(sa.func.sum(sa.case((condition, 1), else_=0)), 0)


def node_counts(
    session: Any,
    conf: cfg.ConfigOpts,
    resource_class: str,
    hypervisor_type: str,
) -> dict[str, int]:
    """The records of whole machines (nodes of ``hypervisor_type``)
    by what keeps them from ``resource_class`` requests (one aggregate
    query)."""
    horizon = lite_db.utcnow() - datetime.timedelta(
        seconds=conf.service_down_time
    )
    serving = sa.and_(
        SVC.disabled == sa.false(),
        SVC.forced_down == sa.false(),
        SVC.last_seen_up >= horizon,
    )
    of_class = CN.resource_class == resource_class
    free = sa.and_(of_class, CN.running_vms == 0)
    row = session.execute(
        sa.select(
            sa.func.count(CN.id).label('reported'),
            _count(CN.running_vms > 0).label('in_use'),
            _count(
                sa.and_(CN.resource_class.is_(None), CN.running_vms == 0)
            ).label('unavailable'),
            _count(sa.and_(CN.resource_class.is_not(None), ~of_class)).label(
                'other_class'
            ),
            _count(free).label('free'),
            _count(sa.and_(free, serving)).label('free_served'),
        )
        .select_from(CN)
        .join(SVC, SVC.id == CN.service_id)
        .where(
            CN.deleted == 0,
            SVC.deleted == 0,
            SVC.binary == COMPUTE_BINARY,
            CN.hypervisor_type == hypervisor_type,
        )
    ).one()
    return {key: int(value) for key, value in row._mapping.items()}


def no_bare_metal_node(
    counts: dict[str, int], resource_class: str, constraints: str
) -> str:
    """The reason for ``counts`` (see :func:`node_counts`);
    ``constraints``: what else the request asked, described."""
    if counts['reported'] == 0:
        return (
            f'no bare metal node of resource class {resource_class}'
            f'{constraints or ""}: none has been reported yet (no '
            'ironic compute agent is up, or it has not listed the '
            'nodes: it does every resource_update_interval).'
        )
    parts = []
    if counts['in_use']:
        parts.append(f'{counts["in_use"]} in use')
    if counts['unavailable']:
        parts.append(
            f'{counts["unavailable"]} not available (cleaning, '
            'in maintenance, failed or being deployed: see '
            '"openstack baremetal node list")'
        )
    if counts['other_class']:
        parts.append(f'{counts["other_class"]} of another resource class')
    if counts['free'] and not counts['free_served']:
        parts.append(
            f'{counts["free"]} free but served by a compute '
            'service that is down or disabled'
        )
    elif counts['free_served']:
        parts.append(
            f'{counts["free_served"]} free but excluded by the '
            f'request{constraints or ""}'
        )
    return (
        f'no available bare metal node of resource class '
        f'{resource_class}: of {counts["reported"]} reported, '
        f'{", ".join(parts)}.'
    )
