"""Quotas: each project's limits (its own, else the defaults) and
usage, counted in one query per resource.

A create checks the usage of its project before it writes
(:func:`check`); creates that race past the check at once can exceed a
limit by the number of them (upstream reserves instead).
"""

from collections.abc import Mapping
from typing import Any

import sqlalchemy as sa

from lite_common.context import RequestContext
from neutron_lite import exception
from neutron_lite.db import api as db_api
from neutron_lite.db import models

Q = models.Quota
#: resource -> the model counted.
COUNTED: dict[str, Any] = {
    'network': models.Network,
    'subnet': models.Subnet,
    'port': models.Port,
    'security_group': models.SecurityGroup,
    'security_group_rule': models.SecurityGroupRule,
}


def _own(session: Any, project_id: str) -> dict[str, int]:
    return dict(
        session.execute(
            sa.select(Q.resource, Q.limit).where(Q.project_id == project_id)
        ).all()
    )


def _used(session: Any, project_id: str, resource: str) -> int:
    model = COUNTED[resource]
    return int(
        session.execute(
            sa.select(sa.func.count())
            .select_from(model)
            .where(model.project_id == project_id)
        ).scalar_one()
    )


@db_api.retried
def limits(
    context: RequestContext, project_id: str, defaults: Mapping[str, int]
) -> dict[str, int]:
    with db_api.context_manager.reader.using(context) as session:
        return {**defaults, **_own(session, project_id)}


@db_api.retried
def details(
    context: RequestContext, project_id: str, defaults: Mapping[str, int]
) -> dict[str, dict[str, int]]:
    with db_api.context_manager.reader.using(context) as session:
        own = {**defaults, **_own(session, project_id)}
        return {
            resource: {
                'limit': limit,
                'used': _used(session, project_id, resource),
                'reserved': 0,
            }
            for resource, limit in own.items()
        }


@db_api.retried
def projects_with_own(context: RequestContext) -> dict[str, dict[str, int]]:
    """project -> its own limits, for projects that have some."""
    found: dict[str, dict[str, int]] = {}
    with db_api.context_manager.reader.using(context) as session:
        for project, resource, limit in session.execute(
            sa.select(Q.project_id, Q.resource, Q.limit)
        ):
            found.setdefault(project, {})[resource] = limit
    return found


@db_api.retried
def update(
    context: RequestContext,
    project_id: str,
    values: Mapping[str, int],
    check_limit: bool,
) -> None:
    """:raises HTTPBadRequest: ``check_limit`` and a limit below the
    usage (upstream's message)."""
    with db_api.context_manager.writer.using(context) as session:
        for resource, limit in values.items():
            if check_limit and limit >= 0:
                used = _used(session, project_id, resource)
                if limit < used:
                    raise exception.HTTPBadRequest(
                        msg=f'Quota limit {limit} for {resource} must be '
                        f'greater than or equal to already used {used}'
                    )
            session.execute(
                sa.delete(Q).where(
                    Q.project_id == project_id, Q.resource == resource
                )
            )
            session.add(
                Q(project_id=project_id, resource=resource, limit=limit)
            )


@db_api.retried
def reset(context: RequestContext, project_id: str) -> None:
    with db_api.context_manager.writer.using(context) as session:
        session.execute(sa.delete(Q).where(Q.project_id == project_id))


@db_api.retried
def check(
    context: RequestContext,
    project_id: str,
    resource: str,
    defaults: Mapping[str, int],
) -> None:
    """:raises OverQuota: the project has its limit of ``resource``."""
    with db_api.context_manager.reader.using(context) as session:
        limit = _own(session, project_id).get(resource, defaults[resource])
        if limit >= 0 and _used(session, project_id, resource) >= limit:
            raise exception.OverQuota(overs=[resource])
