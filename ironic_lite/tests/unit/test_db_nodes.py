"""The nodes table, on a real SQLite file."""

import datetime
import uuid

import pytest

from ironic_lite import exception
from ironic_lite.db import nodes
from lite_common import db as lite_db


def make_node(ctx, **values):
    return nodes.node_create(ctx, {'driver': 'fake-hardware', **values})


# -- create / get


def test_create_defaults_and_generated_uuid(ctx):
    node = make_node(ctx, name='n1')
    assert uuid.UUID(node['uuid'])
    assert isinstance(node['id'], int)
    assert node['provision_state'] == 'enroll'
    assert node['maintenance'] is False
    assert node['automated_clean'] is None
    assert node['reservation'] is None
    for key in (
        'driver_info',
        'driver_internal_info',
        'properties',
        'instance_info',
        'clean_step',
    ):
        assert node[key] == {}
    assert node['created_at'] is not None


def test_get_by_id_uuid_and_name(ctx):
    node = make_node(ctx, name='n1', driver_info={'ipmi': {'port': 623}})
    for ident in (node['id'], node['uuid'], 'n1'):
        got = nodes.node_get(ctx, ident)
        assert got['id'] == node['id']
        assert got['driver_info'] == {'ipmi': {'port': 623}}
    with pytest.raises(exception.NodeNotFound):
        nodes.node_get(ctx, 'missing')
    with pytest.raises(exception.NodeNotFound):
        nodes.node_get(ctx, str(uuid.uuid4()))


def test_create_duplicates(ctx):
    node = make_node(ctx, name='n1', instance_uuid='i' * 36)
    with pytest.raises(exception.DuplicateName) as info:
        make_node(ctx, name='n1')
    assert info.value.code == 409
    assert 'n1' in str(info.value)
    with pytest.raises(exception.NodeAlreadyExists) as info2:
        make_node(ctx, uuid=node['uuid'], name='n2')
    assert node['uuid'] in str(info2.value)
    with pytest.raises(exception.InstanceAssociated):
        make_node(ctx, instance_uuid='i' * 36)
    # Many nodes may have no name and no instance.
    make_node(ctx)
    make_node(ctx)


# -- update / destroy


def test_update(ctx):
    node = make_node(ctx, name='n1')
    make_node(ctx, name='n2')
    updated = nodes.node_update(
        ctx,
        node['uuid'],
        {
            'name': 'renamed',
            'maintenance': True,
            'clean_step': {'step': 'erase_devices', 'interface': 'deploy'},
        },
    )
    assert updated['name'] == 'renamed'
    assert updated['maintenance'] is True
    assert updated['updated_at'] is not None
    assert (
        nodes.node_get(ctx, 'renamed')['clean_step']['step'] == 'erase_devices'
    )
    with pytest.raises(exception.DuplicateName):
        nodes.node_update(ctx, node['id'], {'name': 'n2'})
    assert nodes.node_get(ctx, node['id'])['name'] == 'renamed'


def test_update_refuses_uuid_unknown_fields_and_missing_node(ctx):
    node = make_node(ctx)
    with pytest.raises(exception.InvalidParameterValue):
        nodes.node_update(ctx, node['id'], {'uuid': str(uuid.uuid4())})
    with pytest.raises(exception.InvalidParameterValue):
        nodes.node_update(ctx, node['id'], {'colour': 'blue'})
    with pytest.raises(exception.NodeNotFound):
        nodes.node_update(ctx, 12345, {'name': 'x'})


def test_update_provision_state_sets_provision_updated_at(ctx):
    node = make_node(ctx)
    assert node['provision_updated_at'] is None
    updated = nodes.node_update(
        ctx, node['id'], {'provision_state': 'verifying'}
    )
    assert updated['provision_updated_at'] is not None


def test_update_instance_association(ctx):
    node = make_node(ctx, instance_uuid='a' * 36)
    other = make_node(ctx)
    with pytest.raises(exception.NodeAssociated):
        nodes.node_update(ctx, node['id'], {'instance_uuid': 'b' * 36})
    with pytest.raises(exception.InstanceAssociated):
        nodes.node_update(ctx, other['id'], {'instance_uuid': 'a' * 36})
    nodes.node_update(ctx, node['id'], {'instance_uuid': None})
    nodes.node_update(ctx, other['id'], {'instance_uuid': 'a' * 36})


def test_destroy(ctx):
    node = make_node(ctx, name='n1')
    nodes.node_destroy(ctx, node['uuid'])
    with pytest.raises(exception.NodeNotFound):
        nodes.node_get(ctx, node['id'])
    with pytest.raises(exception.NodeNotFound):
        nodes.node_destroy(ctx, node['id'])
    make_node(ctx, name='n1')


# -- list


def test_list_filters(ctx):
    a = make_node(ctx, name='a', provision_state='available')
    b = make_node(
        ctx,
        name='b',
        provision_state='clean wait',
        maintenance=True,
        instance_uuid='i' * 36,
    )
    c = make_node(ctx, name='c', driver='other', reservation='cond1')

    def names(**filters):
        return [n['name'] for n in nodes.node_list(ctx, filters)]

    assert names() == ['a', 'b', 'c']
    assert names(provision_state='available') == ['a']
    assert names(provision_state=['available', 'clean wait']) == ['a', 'b']
    assert names(maintenance=True) == ['b']
    assert names(maintenance=False) == ['a', 'c']
    assert names(driver='other') == ['c']
    assert names(reservation='cond1') == ['c']
    assert names(reserved=False) == ['a', 'b']
    assert names(instance_uuid='i' * 36) == ['b']
    assert names(associated=True) == ['b']
    assert names(associated=False) == ['a', 'c']
    assert {a['id'], b['id'], c['id']} == {
        n['id'] for n in nodes.node_list(ctx)
    }
    with pytest.raises(exception.InvalidParameterValue):
        nodes.node_list(ctx, {'colour': 'blue'})


def _page_through(ctx, size, **kwargs):
    pages, marker = [], None
    while True:
        page = nodes.node_list(ctx, limit=size, marker=marker, **kwargs)
        if not page:
            return pages
        pages.append([n['name'] for n in page])
        marker = page[-1]['uuid']


def test_paging_with_marker_covers_every_node_once(ctx):
    for i in range(7):
        make_node(ctx, name=f'n{i}')
    assert _page_through(ctx, 3) == [
        ['n0', 'n1', 'n2'],
        ['n3', 'n4', 'n5'],
        ['n6'],
    ]
    assert _page_through(ctx, 3, sort_key='name', sort_dir='desc') == [
        ['n6', 'n5', 'n4'],
        ['n3', 'n2', 'n1'],
        ['n0'],
    ]


@pytest.mark.parametrize('sort_dir', ['asc', 'desc'])
def test_paging_on_a_nullable_key(ctx, sort_dir):
    for name in ('b', None, 'a', None, 'c'):
        make_node(ctx, name=name)
    whole = [
        n['name']
        for n in nodes.node_list(ctx, sort_key='name', sort_dir=sort_dir)
    ]
    expected = ['a', 'b', 'c', None, None]
    assert whole == (expected if sort_dir == 'asc' else expected[::-1])
    for size in (1, 2, 3):
        pages = _page_through(ctx, size, sort_key='name', sort_dir=sort_dir)
        assert [name for page in pages for name in page] == whole


@pytest.mark.parametrize('sort_key', nodes.SORT_KEYS)
@pytest.mark.parametrize('sort_dir', ['asc', 'desc'])
def test_paging_by_every_sort_key_sees_each_node_once(ctx, sort_key, sort_dir):
    # Many ties (two drivers, two states, maintenance both ways, NULLs).
    for i in range(7):
        make_node(
            ctx,
            name=f'n{i}',
            maintenance=bool(i % 2),
            provision_state=('manageable', 'available')[i % 2],
            resource_class=None if i % 3 else 'gold',
            description=None if i % 2 else f'd{i % 4}',
        )
    whole = [
        n['name']
        for n in nodes.node_list(ctx, sort_key=sort_key, sort_dir=sort_dir)
    ]
    assert sorted(whole) == [f'n{i}' for i in range(7)]
    for size in (1, 2, 3):
        pages = _page_through(ctx, size, sort_key=sort_key, sort_dir=sort_dir)
        assert [name for page in pages for name in page] == whole


def test_list_sort_and_bad_parameters(ctx):
    make_node(ctx, name='x', provision_state='manageable')
    make_node(ctx, name='y', provision_state='available')
    listed = nodes.node_list(ctx, sort_key='provision_state')
    assert [n['name'] for n in listed] == ['y', 'x']
    with pytest.raises(
        exception.InvalidParameterValue, match='Marker .* not found'
    ):
        nodes.node_list(ctx, marker=str(uuid.uuid4()))
    with pytest.raises(exception.InvalidParameterValue):
        nodes.node_list(ctx, sort_key='driver_info')
    with pytest.raises(exception.InvalidParameterValue):
        nodes.node_list(ctx, sort_dir='up')


def test_node_list_in_states(ctx):
    now = lite_db.utcnow()
    hour = datetime.timedelta(hours=1)
    old = make_node(
        ctx,
        name='old',
        provision_state='clean wait',
        provision_updated_at=now - 2 * hour,
    )
    make_node(
        ctx, name='new', provision_state='clean wait', provision_updated_at=now
    )
    make_node(ctx, name='other', provision_state='available')
    listed = nodes.node_list_in_states(ctx, ['clean wait'])
    assert [n['name'] for n in listed] == ['old', 'new']
    expired = nodes.node_list_in_states(
        ctx, ['clean wait'], provision_updated_before=now - hour
    )
    assert [n['id'] for n in expired] == [old['id']]
    assert (
        len(
            nodes.node_list_in_states(
                ctx, ['clean wait', 'available'], limit=2
            )
        )
        == 2
    )


# -- compare and swap (the node lock: test_db_node_locks.py)


def test_update_at_a_revision_is_a_compare_and_swap(ctx):
    """Item 3: a write computed from a row read earlier is stored only if
    nothing wrote the node since; else nothing changes (409)."""
    node = make_node(ctx, extra={'a': 1})
    first = nodes.node_update(
        ctx, node['id'], {'extra': {'a': 1, 'b': 2}}, expected_revision=0
    )
    assert first['revision'] == 1
    with pytest.raises(exception.NodeChanged) as info:
        nodes.node_update(
            ctx, node['id'], {'extra': {'a': 1, 'c': 3}}, expected_revision=0
        )
    assert info.value.code == 409
    assert nodes.node_get(ctx, node['id'])['extra'] == {'a': 1, 'b': 2}
