"""The rows of a node on every backend: history pruning (a delete with a
limited subquery, which MySQL restricts) and the removal of volume rows
and history with the node (foreign keys enforced)."""

import pytest

from ironic_lite import exception
from ironic_lite.db import node_history
from ironic_lite.db import nodes
from ironic_lite.db import volumes
from ironic_lite.tests import db_fixture
from lite_common.tests import backends

db_url = backends.db_url


@pytest.fixture
def ctx(db_url):
    with db_fixture.migrated_db(db_url) as context:
        yield context


def test_history_pruning_and_node_delete(ctx):
    node = nodes.node_create(ctx, {'driver': 'fake-hardware'})
    for index in range(4):
        node_history.record(
            ctx, {'node_id': node['id'], 'event': f'e{index}'}, 2
        )
    rows = node_history.list_page(ctx, node['id'])
    assert [row['event'] for row in rows] == ['e2', 'e3']
    connector = {
        'node_id': node['id'],
        'type': 'iqn',
        'connector_id': 'iqn.x',
        'extra': {},
    }
    created = volumes.create(ctx, volumes.CONNECTORS, connector)
    with pytest.raises(exception.VolumeConnectorTypeAndIdAlreadyExists):
        volumes.create(ctx, volumes.CONNECTORS, connector)
    with pytest.raises(exception.VolumeConnectorAlreadyExists):
        volumes.create(
            ctx,
            volumes.CONNECTORS,
            dict(connector, uuid=created['uuid'], type='mac'),
        )
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
    nodes.node_destroy(ctx, node['uuid'])
    assert volumes.list_page(ctx, volumes.CONNECTORS) == []
    assert volumes.list_page(ctx, volumes.TARGETS) == []
    assert node_history.list_page(ctx, node['id']) == []
