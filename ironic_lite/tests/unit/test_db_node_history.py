"""Node history and volume rows on a real SQLite file: pruning, paging,
and their removal with the node."""

import pytest

from ironic_lite import exception
from ironic_lite.db import node_history
from ironic_lite.db import nodes
from ironic_lite.db import volumes


def _node(ctx, name='n1'):
    return nodes.node_create(ctx, {'driver': 'fake-hardware', 'name': name})


def _event(node, text):
    return {
        'node_id': node['id'],
        'event': text,
        'severity': 'ERROR',
        'event_type': 'cleaning',
    }


def test_recording_keeps_the_newest_max_entries(ctx):
    node = _node(ctx)
    other = _node(ctx, 'n2')
    node_history.record(ctx, _event(other, 'other'), 2)
    for index in range(5):
        node_history.record(ctx, _event(node, f'e{index}'), 3)
    rows = node_history.list_page(ctx, node['id'])
    assert [row['event'] for row in rows] == ['e2', 'e3', 'e4']
    assert len(node_history.list_page(ctx, other['id'])) == 1


def test_zero_entries_keeps_none(ctx):
    node = _node(ctx)
    node_history.record(ctx, _event(node, 'gone'), 0)
    assert node_history.list_page(ctx, node['id']) == []


def test_paging_and_an_unknown_marker(ctx):
    node = _node(ctx)
    for index in range(3):
        node_history.record(ctx, _event(node, f'e{index}'), 10)
    first = node_history.list_page(ctx, node['id'], limit=2)
    rest = node_history.list_page(
        ctx, node['id'], limit=2, marker=first[-1]['uuid']
    )
    assert [r['event'] for r in first + rest] == ['e0', 'e1', 'e2']
    with pytest.raises(exception.NodeHistoryNotFound):
        node_history.list_page(
            ctx, node['id'], marker='1a1a1a1a-2b2b-3c3c-4d4d-5e5e5e5e5e5e'
        )
    with pytest.raises(exception.InvalidParameterValue):
        node_history.list_page(ctx, node['id'], sort_key='nothing')


def test_an_event_is_found_through_its_node_only(ctx):
    node = _node(ctx)
    other = _node(ctx, 'n2')
    event = node_history.record(ctx, _event(node, 'mine'), 10)
    assert node_history.get(ctx, node['id'], event['uuid'])['event'] == 'mine'
    with pytest.raises(exception.NodeHistoryNotFound):
        node_history.get(ctx, other['id'], event['uuid'])


def test_deleting_a_node_deletes_its_rows(ctx):
    node = _node(ctx)
    node_history.record(ctx, _event(node, 'e'), 10)
    volumes.create(
        ctx,
        volumes.CONNECTORS,
        {
            'node_id': node['id'],
            'type': 'iqn',
            'connector_id': 'iqn.x',
            'extra': {},
        },
    )
    volumes.create(
        ctx,
        volumes.TARGETS,
        {
            'node_id': node['id'],
            'volume_type': 'iscsi',
            'boot_index': 0,
            'volume_id': 'v1',
            'properties': {},
            'extra': {},
        },
    )
    nodes.node_destroy(ctx, node['uuid'])
    assert volumes.list_page(ctx, volumes.CONNECTORS) == []
    assert volumes.list_page(ctx, volumes.TARGETS) == []
    assert node_history.list_page(ctx, node['id']) == []


def test_volume_duplicates_name_their_values(ctx):
    node = _node(ctx)
    values = {
        'node_id': node['id'],
        'type': 'iqn',
        'connector_id': 'x',
        'extra': {},
    }
    volumes.create(ctx, volumes.CONNECTORS, values)
    with pytest.raises(exception.VolumeConnectorTypeAndIdAlreadyExists):
        volumes.create(ctx, volumes.CONNECTORS, values)
    target = {
        'node_id': node['id'],
        'volume_type': 'iscsi',
        'boot_index': 0,
        'volume_id': 'v1',
        'properties': {},
        'extra': {},
    }
    volumes.create(ctx, volumes.TARGETS, target)
    with pytest.raises(exception.VolumeTargetBootIndexAlreadyExists):
        volumes.create(ctx, volumes.TARGETS, target)


def test_a_project_lists_only_its_nodes_items(ctx):
    node = _node(ctx)
    volumes.create(
        ctx,
        volumes.CONNECTORS,
        {
            'node_id': node['id'],
            'type': 'iqn',
            'connector_id': 'iqn.p',
            'extra': {},
        },
    )
    assert len(volumes.list_page(ctx, volumes.CONNECTORS)) == 1
    # The node has no owner or lessee: nothing is the project's.
    assert volumes.list_page(ctx, volumes.CONNECTORS, project='p1') == []
