"""Subnets: create, show, list, update, delete.

A subnet is seen by those who see its network (its project, every
project for a shared or external network, administrators). Creating one
counts up its network's revision in the same transaction: concurrent
creates on one network are serialized, so that the overlap check holds.
A subnet with an address in use cannot be deleted.
"""

from typing import Any
import uuid

import sqlalchemy as sa

from lite_common.context import RequestContext
from neutron_lite import exception
from neutron_lite.common import addresses
from neutron_lite.db import api as db_api
from neutron_lite.db import models
from neutron_lite.db import networks
from neutron_lite.db import query
from neutron_lite.db import resources
from neutron_lite.db import tags

KIND = 'subnet'
MODEL = S = models.Subnet
COLUMNS: dict[str, Any] = {
    'id': S.id,
    'name': S.name,
    'description': S.description,
    'project_id': S.project_id,
    'tenant_id': S.project_id,
    'network_id': S.network_id,
    'ip_version': S.ip_version,
    'cidr': S.cidr,
    'gateway_ip': S.gateway_ip,
    'enable_dhcp': S.enable_dhcp,
    'ipv6_ra_mode': S.ipv6_ra_mode,
    'ipv6_address_mode': S.ipv6_address_mode,
    'revision_number': S.revision_number,
    'created_at': S.created_at,
    'updated_at': S.updated_at,
}


def visible(context: RequestContext) -> Any:
    if context.is_admin:
        return sa.true()
    network = models.Network
    return sa.or_(
        resources.owned_by(context, S.project_id),
        S.network_id.in_(
            sa.select(network.id).where(networks.visible(context))
        ),
    )


def _with_tags(session: Any, rows: list[dict[str, Any]]) -> None:
    """Tags, and what the policies read of the network."""
    found = tags.of(session, KIND, [r['id'] for r in rows])
    owners = networks.owners(session, [r['network_id'] for r in rows])
    for r in rows:
        r['tags'] = found[r['id']]
        r.update(owners.get(r['network_id'], {}))


def _overlapping(
    session: Any, network_id: str, cidr: addresses.Network
) -> bool:
    others = session.execute(
        sa.select(S.cidr).where(
            S.network_id == network_id, S.ip_version == cidr.version
        )
    ).scalars()
    return any(addresses.parse_cidr(c).overlaps(cidr) for c in others)


@db_api.retried
def create(context: RequestContext, values: dict[str, Any]) -> dict[str, Any]:
    """``values``: the columns, ``cidr`` checked already.

    :raises NetworkNotFound: the network is not seen.
    :raises OverlappingCidr: another subnet of the network overlaps.
    """
    subnet_id = str(uuid.uuid4())
    network_id = values['network_id']
    with db_api.context_manager.writer.using(context) as session:
        # (the network's row is written first: a lock on it for the
        # rest of this transaction)
        resources.bump(
            session,
            models.Network,
            network_id,
            {},
            None,
            exception.NetworkNotFound(net_id=network_id),
        )
        cidr = addresses.parse_cidr(values['cidr'])
        if _overlapping(session, network_id, cidr):
            raise exception.OverlappingCidr(
                cidr=values['cidr'], net_id=network_id
            )
        session.add(S(id=subnet_id, **values))
        session.flush()
    return get(context, subnet_id)


def get(context: RequestContext, subnet_id: str) -> dict[str, Any]:
    return resources.get(context, TABLE, subnet_id)


def list_(
    context: RequestContext, request: query.ListRequest
) -> list[dict[str, Any]]:
    return resources.list_rows(context, TABLE, request)


def of_network(session: Any, network_id: str) -> list[dict[str, Any]]:
    """Every subnet of a network, oldest first (a session given)."""
    return [
        resources.row(s)
        for s in session.execute(
            sa.select(S)
            .where(S.network_id == network_id)
            .order_by(S.created_at, S.id)
        ).scalars()
    ]


def update(
    context: RequestContext,
    subnet_id: str,
    values: dict[str, Any],
    expected: int | None = None,
) -> dict[str, Any]:
    return resources.update(context, TABLE, subnet_id, values, expected)


@db_api.retried
def delete(
    context: RequestContext, subnet_id: str, expected: int | None = None
) -> None:
    """:raises SubnetInUse: a port has an address of it."""
    with db_api.context_manager.writer.using(context) as session:
        subnet = resources.one(session, context, TABLE, subnet_id)
        resources.check_revision(subnet.revision_number, expected)
        in_use = session.execute(
            sa.select(models.IPAllocation.ip_address)
            .where(models.IPAllocation.subnet_id == subnet_id)
            .limit(1)
        ).first()
        if in_use is not None:
            raise exception.SubnetInUse(subnet_id=subnet_id)
        resources.bump(
            session,
            models.Network,
            subnet.network_id,
            {},
            None,
            exception.NetworkNotFound(net_id=subnet.network_id),
        )
        tags.remove_all(session, KIND, subnet_id)
        session.execute(sa.delete(S).where(S.id == subnet_id))


def not_found(item_id: str) -> exception.NeutronLiteException:
    return exception.SubnetNotFound(subnet_id=item_id)


TABLE = resources.Table(S, KIND, COLUMNS, visible, not_found, _with_tags)
