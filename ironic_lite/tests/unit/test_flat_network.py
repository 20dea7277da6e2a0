"""The ``flat`` network interface through the conductor's VIF endpoint,
on a real SQLite file: which port or portgroup a VIF is bound to
(upstream's order), the records on them, and the refusals."""

import uuid

import pytest

from ironic_lite import exception
from ironic_lite.conductor import ports as port_manager
from ironic_lite.conductor import vifs
from ironic_lite.db import portgroups as db_portgroups
from ironic_lite.db import ports as db_ports
from ironic_lite.tests.unit import make_conf
from ironic_lite.tests.unit.test_manager import Unwrapped
from ironic_lite.tests.unit.test_task_manager import HOLDER
from ironic_lite.tests.unit.test_task_manager import HOST
from ironic_lite.tests.unit.test_task_manager import holder  # noqa: F401
from ironic_lite.tests.unit.test_task_manager import make_node

VIF = '6a2d8b5c-2f0b-4c5e-9f6e-2c1d4e5f6a7b'
VIF2 = '7b3e9c6d-3a1c-4d6f-8a7f-3d2e5f6a7b8c'


@pytest.fixture
def conf():
    return make_conf(
        host=HOST,
        enabled_network_interfaces=['noop', 'flat'],
        neutron__cleaning_network='cleaning-net',
    )


@pytest.fixture
def mgr(conf):
    return Unwrapped(vifs.VifManager(conf, HOLDER))


@pytest.fixture
def ports(conf):
    return Unwrapped(port_manager.PortManager(conf, HOLDER))


def _node(ctx, **values):
    return make_node(ctx, network_interface='flat', **values)


def _port(ctx, ports, node, n, **values):
    return ports.create_port(
        ctx,
        node['uuid'],
        {
            'uuid': str(uuid.uuid4()),
            'node_id': node['id'],
            'address': f'52:54:00:00:00:0{n}',
            **values,
        },
    )


def _group(ctx, node, n):
    return db_portgroups.create(
        ctx,
        {
            'uuid': str(uuid.uuid4()),
            'node_id': node['id'],
            'address': f'52:54:00:00:01:0{n}',
        },
    )


def _tenant_vif(ctx, port):
    return db_ports.get(ctx, port['uuid'])['internal_info'].get(
        'tenant_vif_port_id'
    )


def test_attach_binds_a_port_and_detach_unbinds_it(ctx, mgr, ports):
    node = _node(ctx)
    port = _port(ctx, ports, node, 1)
    mgr.vif_attach(ctx, node['uuid'], {'id': VIF})
    assert _tenant_vif(ctx, port) == VIF
    assert mgr.vif_list(ctx, node['uuid']) == [{'id': VIF}]
    with pytest.raises(
        exception.VifAlreadyAttached,
        match=f'{VIF} is already attached to Ironic Port',
    ):
        mgr.vif_attach(ctx, node['uuid'], {'id': VIF})
    with pytest.raises(
        exception.NoFreePhysicalPorts, match='not enough free physical ports'
    ):
        mgr.vif_attach(ctx, node['uuid'], {'id': VIF2})
    mgr.vif_detach(ctx, node['uuid'], VIF)
    assert _tenant_vif(ctx, port) is None
    assert mgr.vif_list(ctx, node['uuid']) == []
    with pytest.raises(
        exception.VifNotAttached, match='because it is not attached'
    ):
        mgr.vif_detach(ctx, node['uuid'], VIF)


def test_pxe_ports_first_then_the_named_one(ctx, mgr, ports):
    node = _node(ctx)
    plain = _port(ctx, ports, node, 1, pxe_enabled=False)
    pxe = _port(ctx, ports, node, 2)
    mgr.vif_attach(ctx, node['uuid'], {'id': VIF})
    assert (_tenant_vif(ctx, pxe), _tenant_vif(ctx, plain)) == (VIF, None)
    mgr.vif_detach(ctx, node['uuid'], VIF)
    mgr.vif_attach(ctx, node['uuid'], {'id': VIF, 'port_uuid': plain['uuid']})
    assert (_tenant_vif(ctx, pxe), _tenant_vif(ctx, plain)) == (None, VIF)


def test_a_portgroup_goes_before_its_ports(ctx, mgr, ports):
    node = _node(ctx)
    group = _group(ctx, node, 1)
    member = _port(ctx, ports, node, 1, portgroup_id=group['id'])
    mgr.vif_attach(ctx, node['uuid'], {'id': VIF})
    assert db_portgroups.get(ctx, group['uuid'])['internal_info'] == {
        'tenant_vif_port_id': VIF
    }
    assert _tenant_vif(ctx, member) is None
    # The group is taken: its member is not offered on its own.
    with pytest.raises(exception.NoFreePhysicalPorts):
        mgr.vif_attach(ctx, node['uuid'], {'id': VIF2})
    assert sorted(v['id'] for v in mgr.vif_list(ctx, node['uuid'])) == [VIF]
    mgr.vif_detach(ctx, node['uuid'], VIF)
    assert db_portgroups.get(ctx, group['uuid'])['internal_info'] == {}


def test_an_empty_portgroup_is_not_a_candidate(ctx, mgr, ports):
    node = _node(ctx)
    _group(ctx, node, 1)
    with pytest.raises(exception.NoFreePhysicalPorts):
        mgr.vif_attach(ctx, node['uuid'], {'id': VIF})


def test_no_cleaning_network_no_attach(ctx, ports):
    mgr = Unwrapped(
        vifs.VifManager(
            make_conf(host=HOST, enabled_network_interfaces=['noop', 'flat']),
            HOLDER,
        )
    )
    node = _node(ctx)
    _port(ctx, ports, node, 1)
    with pytest.raises(
        exception.MissingParameterValue,
        match='UUID or name of cleaning_network is not set',
    ):
        mgr.vif_attach(ctx, node['uuid'], {'id': VIF})
    # The node's own cleaning network will do.
    other = _node(ctx, driver_info={'cleaning_network': 'net-1'})
    port = _port(ctx, ports, other, 2)
    mgr.vif_attach(ctx, other['uuid'], {'id': VIF})
    assert _tenant_vif(ctx, port) == VIF


def test_a_smart_nic_port_needs_its_link(ctx, mgr, ports):
    node = _node(ctx)
    _port(
        ctx,
        ports,
        node,
        1,
        is_smartnic=True,
        local_link_connection={'hostname': 'host-1'},
    )
    with pytest.raises(exception.NoFreePhysicalPorts):
        mgr.vif_attach(ctx, node['uuid'], {'id': VIF})
