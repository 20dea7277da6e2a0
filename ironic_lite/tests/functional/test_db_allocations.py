"""Concurrent allocations never take the same node, on every backend:
allocations processed at once on threads (as conductor workers, or
several conductors, would) against fewer matching nodes."""

import threading

import pytest

from ironic_lite.conductor import allocations
from ironic_lite.db import allocations as db_allocations
from ironic_lite.db import nodes
from ironic_lite.tests import db_fixture
from lite_common.tests import backends

db_url = backends.db_url

NODES = 4
ALLOCATIONS = 12
ROUNDS = 3


@pytest.fixture
def ctx(db_url):
    with db_fixture.migrated_db(db_url) as context:
        yield context


def _at_once(count, func):
    barrier = threading.Barrier(count)
    errors = []

    def run(index):
        barrier.wait()
        try:
            func(index)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors, errors


def test_concurrent_allocations_take_distinct_nodes(ctx):
    for round_ in range(ROUNDS):
        rc = f'CUSTOM_R{round_}'
        for index in range(NODES):
            nodes.node_create(
                ctx,
                {
                    'driver': 'fake-hardware',
                    'name': f'r{round_}-n{index}',
                    'provision_state': 'available',
                    'power_state': 'power off',
                    'resource_class': rc,
                },
            )
        rows = [
            db_allocations.create(
                ctx,
                {
                    'name': f'r{round_}-a{index}',
                    'resource_class': rc,
                    'traits': [],
                    'candidate_nodes': [],
                    'extra': {},
                },
            )
            for index in range(ALLOCATIONS)
        ]
        ids = [row['id'] for row in rows]
        _at_once(
            ALLOCATIONS,
            lambda i, ids=ids: allocations.do_allocate(ctx, ids[i]),
        )
        done = [db_allocations.get(ctx, row['id']) for row in rows]
        active = [row for row in done if row['state'] == 'active']
        failed = [row for row in done if row['state'] == 'error']
        assert len(active) == NODES, done
        assert len(failed) == ALLOCATIONS - NODES, done
        assert len({row['node_id'] for row in active}) == NODES
        for row in active:
            node = nodes.node_get(ctx, row['node_id'])
            assert node['allocation_id'] == row['id']
            assert node['instance_uuid'] == row['uuid']
        for row in failed:
            assert row['node_id'] is None
            # None left when it looked, or taken between its look and
            # its try.
            assert (
                f'resource class {rc}' in row['last_error']
                or 'filtered out during reservation' in row['last_error']
            )


def test_a_node_goes_with_its_allocation(ctx):
    node = nodes.node_create(
        ctx,
        {
            'driver': 'fake-hardware',
            'provision_state': 'available',
            'power_state': 'power off',
            'resource_class': 'CUSTOM_X',
        },
    )
    row = db_allocations.create(
        ctx,
        {
            'resource_class': 'CUSTOM_X',
            'traits': [],
            'candidate_nodes': [],
            'extra': {},
        },
    )
    allocations.do_allocate(ctx, row['id'])
    assert db_allocations.get(ctx, row['id'])['node_id'] == node['id']
    nodes.node_destroy(ctx, node['id'])
    with pytest.raises(Exception, match='could not be found'):
        db_allocations.get(ctx, row['id'])
