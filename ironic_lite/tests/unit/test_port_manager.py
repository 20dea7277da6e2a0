"""The conductor's port rules (upstream's), on a real SQLite file: MAC
changes only without an instance, connectivity changes only in the
states that allow them or in maintenance, VIF-bound ports kept, one
physical network per portgroup, one port per MAC."""

import uuid

import pytest
import sqlalchemy as sa

from ironic_lite import exception
from ironic_lite.common import states
from ironic_lite.conductor import ports as port_manager
from ironic_lite.db import nodes as db_nodes
from ironic_lite.db import ports as db_ports
from ironic_lite.db.api import context_manager
from ironic_lite.db.models import Portgroup
from ironic_lite.tests.unit import test_task_manager as fixtures
from ironic_lite.tests.unit.test_manager import Unwrapped
from ironic_lite.tests.unit.test_task_manager import HOLDER
from ironic_lite.tests.unit.test_task_manager import holder  # noqa: F401
from ironic_lite.tests.unit.test_task_manager import make_node

conf = fixtures.conf


@pytest.fixture
def mgr(conf):
    return Unwrapped(port_manager.PortManager(conf, HOLDER))


def _port(ctx, mgr, node, address='52:54:00:00:00:01', **values):
    return mgr.create_port(
        ctx,
        node['uuid'],
        {
            'uuid': str(uuid.uuid4()),
            'node_id': node['id'],
            'address': address,
            **values,
        },
    )


def _portgroup(ctx, node, physical_network=None):
    with context_manager.writer.using(ctx) as session:
        group = Portgroup(
            uuid=str(uuid.uuid4()),
            node_id=node['id'],
            physical_network=physical_network,
        )
        session.add(group)
        session.flush()
        return group.id


def test_create_update_destroy(ctx, mgr):
    node = make_node(ctx)
    port = _port(ctx, mgr, node)
    assert port['node_uuid'] == node['uuid']
    assert port['pxe_enabled'] is True and port['is_smartnic'] is False
    updated = mgr.update_port(
        ctx, node['uuid'], port['uuid'], {'address': '52:54:00:00:00:02'}
    )
    assert updated['address'] == '52:54:00:00:00:02'
    mgr.destroy_port(ctx, node['uuid'], port['uuid'])
    with pytest.raises(exception.PortNotFound):
        db_ports.get(ctx, port['uuid'])


def test_one_port_per_mac_and_per_name(ctx, mgr):
    node = make_node(ctx)
    _port(ctx, mgr, node, name='eth0')
    with pytest.raises(exception.MACAlreadyExists):
        _port(ctx, mgr, node)
    with pytest.raises(exception.PortDuplicateName):
        _port(ctx, mgr, node, address='52:54:00:00:00:09', name='eth0')


def test_the_mac_of_a_node_with_an_instance_stays(ctx, mgr):
    node = make_node(ctx, instance_uuid=str(uuid.uuid4()))
    port = _port(ctx, mgr, node)
    with pytest.raises(exception.InvalidState, match='hardware address'):
        mgr.update_port(
            ctx, node['uuid'], port['uuid'], {'address': '52:54:00:00:00:02'}
        )
    db_nodes.node_update(ctx, node['id'], {'maintenance': True})
    mgr.update_port(
        ctx, node['uuid'], port['uuid'], {'address': '52:54:00:00:00:02'}
    )


@pytest.mark.parametrize(
    'field,value',
    [
        ('pxe_enabled', False),
        ('physical_network', 'physnet1'),
        ('local_link_connection', {'port_id': 'p', 'switch_id': 'x'}),
    ],
)
def test_connectivity_changes_only_where_allowed(ctx, mgr, field, value):
    node = make_node(ctx, provision_state=states.AVAILABLE)
    port = _port(ctx, mgr, node)
    with pytest.raises(exception.InvalidState, match='connectivity'):
        mgr.update_port(ctx, node['uuid'], port['uuid'], {field: value})
    assert db_ports.get(ctx, port['uuid'])[field] != value
    # Other fields change in any state.
    mgr.update_port(ctx, node['uuid'], port['uuid'], {'extra': {'a': 1}})
    db_nodes.node_update(
        ctx, node['id'], {'provision_state': states.MANAGEABLE}
    )
    assert (
        mgr.update_port(ctx, node['uuid'], port['uuid'], {field: value})[field]
        == value
    )


def test_a_port_bound_to_a_vif_is_kept_out_of_maintenance(ctx, mgr):
    node = make_node(ctx)
    port = _port(ctx, mgr, node, internal_info={'tenant_vif_port_id': 'vif-1'})
    with pytest.raises(exception.InvalidState, match='VIF vif-1'):
        mgr.destroy_port(ctx, node['uuid'], port['uuid'])
    db_nodes.node_update(ctx, node['id'], {'maintenance': True})
    mgr.destroy_port(ctx, node['uuid'], port['uuid'])


def test_a_portgroup_has_one_physical_network(ctx, mgr):
    node = make_node(ctx)
    group = _portgroup(ctx, node)
    _port(ctx, mgr, node, portgroup_id=group, physical_network='a')
    with pytest.raises(exception.Conflict, match='same physical network'):
        _port(
            ctx,
            mgr,
            node,
            address='52:54:00:00:00:02',
            portgroup_id=group,
            physical_network='b',
        )
    _port(
        ctx,
        mgr,
        node,
        address='52:54:00:00:00:03',
        portgroup_id=group,
        physical_network='a',
    )
    own = _portgroup(ctx, node, physical_network='c')
    with pytest.raises(exception.Conflict):
        _port(
            ctx,
            mgr,
            node,
            address='52:54:00:00:00:04',
            portgroup_id=own,
            physical_network='a',
        )


def test_ports_go_with_their_node(ctx, mgr):
    node = make_node(ctx)
    _port(ctx, mgr, node)
    _portgroup(ctx, node)
    db_nodes.node_destroy(ctx, node['id'])
    with context_manager.reader.using(ctx) as session:
        assert (
            session.execute(sa.text('SELECT count(*) FROM ports')).scalar()
            == 0
        )


def test_a_page_of_ports_is_one_query(ctx, mgr):
    nodes = [make_node(ctx) for _ in range(3)]
    for index in range(30):
        _port(
            ctx, mgr, nodes[index % 3], address=f'52:54:00:00:01:{index:02x}'
        )
    statements = []

    def count(_conn, _cursor, statement, *_args):
        if statement.startswith('SELECT'):
            statements.append(statement)

    engine = context_manager.writer.get_engine()
    sa.event.listen(engine, 'before_cursor_execute', count)
    try:
        rows = db_ports.list_page(ctx, db_ports.Filters(), limit=25)
    finally:
        sa.event.remove(engine, 'before_cursor_execute', count)
    assert len(rows) == 25 and len(statements) == 1, statements
    assert {row['node_uuid'] for row in rows} == {n['uuid'] for n in nodes}


def _group_uuid(ctx, group_id):
    with context_manager.reader.using(ctx) as session:
        return session.execute(
            sa.select(Portgroup.uuid).where(Portgroup.id == group_id)
        ).scalar_one()


def test_a_portgroup_with_ports_is_neither_moved_nor_deleted(ctx, mgr):
    node, other = make_node(ctx), make_node(ctx)
    group = _portgroup(ctx, node)
    uuid_ = _group_uuid(ctx, group)
    port = _port(ctx, mgr, node, portgroup_id=group)
    with pytest.raises(exception.PortgroupNotEmpty):
        mgr.update_portgroup(
            ctx, other['uuid'], uuid_, {'node_id': other['id']}
        )
    with pytest.raises(exception.PortgroupNotEmpty):
        mgr.destroy_portgroup(ctx, node['uuid'], uuid_)
    mgr.destroy_port(ctx, node['uuid'], port['uuid'])
    moved = mgr.update_portgroup(
        ctx, other['uuid'], uuid_, {'node_id': other['id']}
    )
    assert moved['node_uuid'] == other['uuid']
    mgr.destroy_portgroup(ctx, other['uuid'], uuid_)


def test_a_portgroup_moves_only_to_a_node_in_a_connectivity_state(ctx, mgr):
    node = make_node(ctx)
    other = make_node(ctx, provision_state=states.AVAILABLE)
    uuid_ = _group_uuid(ctx, _portgroup(ctx, node))
    with pytest.raises(exception.InvalidState, match='can not be associated'):
        mgr.update_portgroup(
            ctx, other['uuid'], uuid_, {'node_id': other['id']}
        )


def test_the_physical_network_of_a_portgroup_goes_to_its_ports(ctx, mgr):
    node = make_node(ctx)
    group = _portgroup(ctx, node)
    ports = [
        _port(
            ctx,
            mgr,
            node,
            address=f'52:54:00:00:02:0{index}',
            portgroup_id=group,
            physical_network='a',
        )
        for index in range(2)
    ]
    outside = _port(
        ctx, mgr, node, address='52:54:00:00:02:09', physical_network='a'
    )
    mgr.update_portgroup(
        ctx, node['uuid'], _group_uuid(ctx, group), {'physical_network': 'b'}
    )
    assert [
        db_ports.get(ctx, port['uuid'])['physical_network'] for port in ports
    ] == ['b', 'b']
    assert db_ports.get(ctx, outside['uuid'])['physical_network'] == 'a'
