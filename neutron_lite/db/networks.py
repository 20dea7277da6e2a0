"""Networks: create, show, list, update, delete.

A network is seen by its project, by every project when it is
``shared`` or external (``router:external``), and by administrators.
Deleting it deletes its subnets, unless a port is still on it.
"""

from typing import Any
import uuid

from oslo_db import exception as db_exc
import sqlalchemy as sa

from lite_common.context import RequestContext
from neutron_lite import exception
from neutron_lite.db import api as db_api
from neutron_lite.db import models
from neutron_lite.db import query
from neutron_lite.db import resources
from neutron_lite.db import tags

KIND = 'network'
MODEL = N = models.Network
#: API attribute -> column, for filters and sorting.
COLUMNS: dict[str, Any] = {
    'id': N.id,
    'name': N.name,
    'description': N.description,
    'project_id': N.project_id,
    'tenant_id': N.project_id,
    'status': N.status,
    'admin_state_up': N.admin_state_up,
    'shared': N.shared,
    'router:external': N.external,
    'mtu': N.mtu,
    'port_security_enabled': N.port_security_enabled,
    'provider:network_type': N.network_type,
    'provider:physical_network': N.physical_network,
    'provider:segmentation_id': N.segmentation_id,
    'revision_number': N.revision_number,
    'created_at': N.created_at,
    'updated_at': N.updated_at,
}


def visible(context: RequestContext) -> Any:
    """The networks ``context`` sees (SQL condition)."""
    if context.is_admin:
        return sa.true()
    return sa.or_(
        resources.owned_by(context, N.project_id), N.shared, N.external
    )


def segment_key(values: dict[str, Any]) -> str | None:
    kind = values['network_type']
    if kind == 'flat':
        return f'flat:{values["physical_network"]}'
    if kind == 'vlan':
        return f'vlan:{values["physical_network"]}:{values["segmentation_id"]}'
    return None


def _with_children(session: Any, rows: list[dict[str, Any]]) -> None:
    """Each network's subnet ids and tags, in two queries."""
    ids = [r['id'] for r in rows]
    subnets: dict[str, list[str]] = {i: [] for i in ids}
    if ids:
        found = session.execute(
            sa.select(models.Subnet.network_id, models.Subnet.id)
            .where(models.Subnet.network_id.in_(ids))
            .order_by(models.Subnet.created_at, models.Subnet.id)
        )
        for network_id, subnet_id in found:
            subnets[network_id].append(subnet_id)
    tagged = tags.of(session, KIND, ids)
    for r in rows:
        r['subnets'] = subnets[r['id']]
        r['tags'] = tagged[r['id']]


@db_api.retried
def create(context: RequestContext, values: dict[str, Any]) -> dict[str, Any]:
    """:raises Conflict: the segment is another network's."""
    network_id = str(uuid.uuid4())
    try:
        with db_api.context_manager.writer.using(context) as session:
            session.add(
                N(id=network_id, segment_key=segment_key(values), **values)
            )
            session.flush()
    except db_exc.DBDuplicateEntry:
        if values['network_type'] == 'flat':
            raise exception.FlatNetworkInUse(
                physical_network=values['physical_network']
            ) from None
        raise exception.VlanIdInUse(
            vlan_id=values['segmentation_id'],
            physical_network=values['physical_network'],
        ) from None
    return get(context, network_id)


def get(context: RequestContext, network_id: str) -> dict[str, Any]:
    """:raises NetworkNotFound: no such network, or not seen."""
    return resources.get(context, TABLE, network_id)


def list_(
    context: RequestContext, request: query.ListRequest
) -> list[dict[str, Any]]:
    return resources.list_rows(context, TABLE, request)


def update(
    context: RequestContext,
    network_id: str,
    values: dict[str, Any],
    expected: int | None = None,
) -> dict[str, Any]:
    return resources.update(context, TABLE, network_id, values, expected)


@db_api.retried
def delete(
    context: RequestContext, network_id: str, expected: int | None = None
) -> None:
    """The network and its subnets.

    :raises NetworkInUse: a port is on it.
    """
    with db_api.context_manager.writer.using(context) as session:
        network = resources.one(session, context, TABLE, network_id)
        resources.check_revision(network.revision_number, expected)
        in_use = session.execute(
            sa.select(models.Port.id)
            .where(models.Port.network_id == network_id)
            .limit(1)
        ).first()
        if in_use is not None:
            raise exception.NetworkInUse(net_id=network_id)
        subnet_ids = list(
            session.execute(
                sa.select(models.Subnet.id).where(
                    models.Subnet.network_id == network_id
                )
            ).scalars()
        )
        for subnet_id in subnet_ids:
            tags.remove_all(session, 'subnet', subnet_id)
        session.execute(
            sa.delete(models.Subnet).where(
                models.Subnet.network_id == network_id
            )
        )
        tags.remove_all(session, KIND, network_id)
        session.execute(sa.delete(N).where(N.id == network_id))


def not_found(item_id: str) -> exception.NeutronLiteException:
    return exception.NetworkNotFound(net_id=item_id)


def owners(session: Any, network_ids: list[str]) -> dict[str, dict[str, Any]]:
    """What the policies of a subnet or port read of its network
    (project, shared, external), for each network, in one query."""
    if not network_ids:
        return {}
    rows = session.execute(
        sa.select(N.id, N.project_id, N.shared, N.external).where(
            N.id.in_(set(network_ids))
        )
    )
    return {
        r.id: {
            'network_project_id': r.project_id,
            'network_shared': r.shared,
            'network_external': r.external,
        }
        for r in rows
    }


TABLE = resources.Table(N, KIND, COLUMNS, visible, not_found, _with_children)
