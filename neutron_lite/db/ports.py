"""Ports: create (with a MAC and addresses), show, list, update, delete.

A port is seen by its project, by its network's project and by
administrators. Its addresses are allocated in the transaction that
creates it (:mod:`neutron_lite.db.ipam`) and freed in the one that
deletes it.
"""

import random
from typing import Any
import uuid

from oslo_db import exception as db_exc
import sqlalchemy as sa

from lite_common.context import RequestContext
from neutron_lite import exception
from neutron_lite.common import addresses
from neutron_lite.db import api as db_api
from neutron_lite.db import ipam
from neutron_lite.db import models
from neutron_lite.db import networks
from neutron_lite.db import query
from neutron_lite.db import resources
from neutron_lite.db import security_groups
from neutron_lite.db import subnets
from neutron_lite.db import tags

KIND = 'port'
MODEL = P = models.Port
#: Tries at a random MAC address before giving up.
MAC_TRIES = 16
_rng = random.SystemRandom()
COLUMNS: dict[str, Any] = {
    'id': P.id,
    'name': P.name,
    'description': P.description,
    'project_id': P.project_id,
    'tenant_id': P.project_id,
    'network_id': P.network_id,
    'mac_address': P.mac_address,
    'admin_state_up': P.admin_state_up,
    'status': P.status,
    'device_id': P.device_id,
    'device_owner': P.device_owner,
    'port_security_enabled': P.port_security_enabled,
    'binding:host_id': P.binding_host_id,
    'binding:vnic_type': P.binding_vnic_type,
    'binding:vif_type': P.binding_vif_type,
    'dns_name': P.dns_name,
    'revision_number': P.revision_number,
    'created_at': P.created_at,
    'updated_at': P.updated_at,
}


def visible(context: RequestContext) -> Any:
    if context.is_admin:
        return sa.true()
    network = models.Network
    return sa.or_(
        resources.owned_by(context, P.project_id),
        P.network_id.in_(
            sa.select(network.id).where(
                resources.owned_by(context, network.project_id)
            )
        ),
    )


def _fixed_ip_filter(values: list[str]) -> Any:
    """``fixed_ips=ip_address=X`` / ``subnet_id=Y`` (any of them)."""
    clauses = []
    for value in values:
        key, _, wanted = str(value).partition('=')
        column = {
            'ip_address': models.IPAllocation.ip_address,
            'subnet_id': models.IPAllocation.subnet_id,
        }.get(key)
        if column is None:
            raise exception.InvalidInput(
                error_message=f'Invalid fixed_ips filter {value!r}'
            )
        clauses.append(column == wanted)
    return P.id.in_(
        sa.select(models.IPAllocation.port_id).where(sa.or_(*clauses))
    )


def _with_children(session: Any, rows: list[dict[str, Any]]) -> None:
    ids = [r['id'] for r in rows]
    fixed = ipam.of_ports(session, ids)
    groups = security_groups.of_ports(session, ids)
    tagged = tags.of(session, KIND, ids)
    owners = networks.owners(session, [r['network_id'] for r in rows])
    for r in rows:
        r['fixed_ips'] = fixed[r['id']]
        r['security_groups'] = groups[r['id']]
        r['tags'] = tagged[r['id']]
        r.update(owners.get(r['network_id'], {}))


def _insert_port(session: Any, values: dict[str, Any], port_id: str) -> str:
    """The port row, with the MAC given or a free random one.

    :raises MacAddressInUse: the given MAC is on the network already.
    """
    given = values.pop('mac_address', None)
    base_mac = values.pop('base_mac')
    for _ in range(1 if given else MAC_TRIES):
        mac = given or addresses.random_mac(base_mac, _rng)
        try:
            with session.begin_nested():
                session.add(P(id=port_id, mac_address=mac, **values))
            return mac
        except db_exc.DBDuplicateEntry:
            if given:
                raise exception.MacAddressInUse(
                    net_id=values['network_id'], mac=mac
                ) from None
    raise exception.MacAddressGenerationFailure(net_id=values['network_id'])


@db_api.retried
def create(
    context: RequestContext,
    values: dict[str, Any],
    fixed_ips: list[dict[str, Any]] | None,
    base_mac: str,
    groups: list[str] | None = None,
) -> dict[str, Any]:
    """``values``: the columns (``mac_address`` optional); ``groups``:
    its security groups (None: its project's default group).

    :raises NetworkNotFound: the network is not seen.
    """
    port_id = str(uuid.uuid4())
    network_id = values['network_id']
    if groups is None:
        groups = [
            security_groups.ensure_default_of(context, values['project_id'])
        ]
    with db_api.context_manager.writer.using(context) as session:
        found = session.execute(
            sa.select(models.Network.id).where(
                models.Network.id == network_id, networks.visible(context)
            )
        ).first()
        if found is None:
            raise exception.NetworkNotFound(net_id=network_id)
        mac = _insert_port(session, {**values, 'base_mac': base_mac}, port_id)
        security_groups.bind_port(
            session, port_id, values['project_id'], groups
        )
        ipam.allocate(
            session,
            port_id,
            mac,
            network_id,
            subnets.of_network(session, network_id),
            fixed_ips,
        )
    return get(context, port_id)


def get(context: RequestContext, port_id: str) -> dict[str, Any]:
    return resources.get(context, TABLE, port_id)


def list_(
    context: RequestContext,
    request: query.ListRequest,
    fixed_ips: list[str] | None = None,
) -> list[dict[str, Any]]:
    where = _fixed_ip_filter(fixed_ips) if fixed_ips else None
    return resources.list_rows(context, TABLE, request, where)


@db_api.retried
def update(
    context: RequestContext,
    port_id: str,
    values: dict[str, Any],
    fixed_ips: list[dict[str, Any]] | None = None,
    expected: int | None = None,
    groups: list[str] | None = None,
) -> dict[str, Any]:
    """``fixed_ips``: the port's new addresses (the others are freed);
    ``groups``: its new security groups.

    :raises MacAddressInUse: a new MAC another port of the network has.
    """
    with db_api.context_manager.writer.using(context) as session:
        port = resources.one(session, context, TABLE, port_id)
        try:
            with session.begin_nested():
                resources.bump(
                    session,
                    P,
                    port_id,
                    values,
                    expected,
                    exception.PortNotFound(port_id=port_id),
                )
        except db_exc.DBDuplicateEntry:
            raise exception.MacAddressInUse(
                net_id=port.network_id, mac=values.get('mac_address')
            ) from None
        if groups is not None:
            security_groups.bind_port(
                session, port_id, port.project_id, groups
            )
        if fixed_ips is not None:
            ipam.release(session, port_id)
            ipam.allocate(
                session,
                port_id,
                port.mac_address,
                port.network_id,
                subnets.of_network(session, port.network_id),
                fixed_ips,
            )
    return get(context, port_id)


@db_api.retried
def delete(
    context: RequestContext, port_id: str, expected: int | None = None
) -> None:
    with db_api.context_manager.writer.using(context) as session:
        port = resources.one(session, context, TABLE, port_id)
        resources.check_revision(port.revision_number, expected)
        ipam.release(session, port_id)
        tags.remove_all(session, KIND, port_id)
        session.execute(sa.delete(P).where(P.id == port_id))


def not_found(item_id: str) -> exception.NeutronLiteException:
    return exception.PortNotFound(port_id=item_id)


TABLE = resources.Table(P, KIND, COLUMNS, visible, not_found, _with_children)
