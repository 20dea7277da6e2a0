"""``/v2.0/networks``: networks, with the provider, external-net,
port-security and MTU attributes.

A network without provider attributes is a ``local`` network of its
own (no segment). ``flat`` needs a physical network; ``vlan`` a physical
network and a segmentation id (1-4094); each is one network at most
(409 otherwise). The MTU is ``[DEFAULT]global_physnet_mtu`` unless a
smaller one is asked.
"""

from typing import Any

import webob

from neutron_lite import exception
from neutron_lite.api import crud
from neutron_lite.api import definitions
from neutron_lite.api import util
from neutron_lite.api import views
from neutron_lite.api.handlers import quotas
from neutron_lite.db import networks as db

Row = dict[str, Any]
NETWORK_TYPES = ('local', 'flat', 'vlan')
MAX_VLAN = 4094


def target(req: webob.Request, row: Row) -> Row:
    return {
        'project_id': row['project_id'],
        'tenant_id': row['project_id'],
        'network:shared': row['shared'],
        'network:router:external': row['external'],
    }


RESOURCE = crud.Resource(
    'network', 'networks', db, definitions.NETWORK, views.network, target
)


def _segment(values: Row) -> Row:
    """The provider attributes as columns, checked."""
    kind = values.pop('provider:network_type', None)
    physnet = values.pop('provider:physical_network', None)
    segment = values.pop('provider:segmentation_id', None)
    if kind is not None and kind not in NETWORK_TYPES:
        raise exception.InvalidInput(
            error_message=f"network_type value '{kind}' not supported"
        )
    if segment is not None and not 1 <= segment <= MAX_VLAN:
        raise exception.InvalidInput(
            error_message=f'segmentation_id out of range (1 through '
            f'{MAX_VLAN})'
        )
    if kind is None:
        if physnet is not None or segment is not None:
            raise exception.InvalidInput(error_message='network_type required')
        kind = 'local'
    if kind == 'local' and (physnet or segment is not None):
        raise exception.InvalidInput(
            error_message='provider:physical_network and segmentation_id '
            'are prohibited for a local provider network'
        )
    if kind == 'flat':
        if not physnet:
            raise exception.InvalidInput(
                error_message='physical_network required for flat provider '
                'network'
            )
        if segment is not None:
            raise exception.InvalidInput(
                error_message='segmentation_id prohibited for flat provider '
                'network'
            )
    if kind == 'vlan' and (not physnet or segment is None):
        raise exception.InvalidInput(
            error_message='physical_network and segmentation_id required '
            'for vlan provider network'
        )
    return {
        'network_type': kind,
        'physical_network': physnet,
        'segmentation_id': segment,
    }


def _mtu(req: webob.Request, values: Row) -> int:
    largest: int = util.deps(req).conf.global_physnet_mtu
    mtu = values.pop('mtu', None)
    if mtu is None:
        return largest
    if mtu > largest:
        raise exception.InvalidInput(
            error_message=f'Requested MTU is too big, maximum is {largest}'
        )
    return int(mtu)


def _columns(values: Row) -> Row:
    """API names to column names (the stored attributes)."""
    if 'router:external' in values:
        values['external'] = values.pop('router:external')
    for name in ('availability_zone_hints',):
        values.pop(name, None)
    return values


def list_networks(req: webob.Request) -> webob.Response:
    return crud.list_items(req, RESOURCE)


def show_network(req: webob.Request) -> webob.Response:
    return crud.show(req, RESOURCE, req.urlvars['network_id'])


def create_network(req: webob.Request) -> webob.Response:
    values = crud.parse(req, RESOURCE, create=True)
    project = crud.project_of(req, values)
    crud.check_attributes(
        req,
        RESOURCE,
        'create',
        values,
        {
            'project_id': project,
            'tenant_id': project,
            'network:shared': values.get('shared', False),
            'network:router:external': values.get('router:external', False),
        },
    )
    quotas.check(req, project, 'network')
    columns = {
        **_segment(values),
        'mtu': _mtu(req, values),
        **_columns(values),
        'project_id': project,
        'status': 'ACTIVE',
    }
    row = db.create(util.context(req), columns)
    return crud.created(req, RESOURCE, row)


def update_network(req: webob.Request) -> webob.Response:
    network_id = req.urlvars['network_id']
    values = crud.parse(req, RESOURCE, create=False)
    row = crud.one(req, RESOURCE, network_id)
    crud.check_attributes(req, RESOURCE, 'update', values, target(req, row))
    if 'mtu' in values:
        values['mtu'] = _mtu(req, values)
    row = db.update(
        util.context(req),
        network_id,
        _columns(values),
        util.expected_revision(req),
    )
    return crud.updated(req, RESOURCE, row)


def delete_network(req: webob.Request) -> webob.Response:
    return crud.delete(req, RESOURCE, req.urlvars['network_id'])
