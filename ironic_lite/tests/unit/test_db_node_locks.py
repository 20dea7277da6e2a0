"""The node lock, held by conductor processes, on a real SQLite file.

A lock names a host and counts only for the process holding that host
name in the conductors table (its incarnation)."""

import datetime
import threading

import pytest
import sqlalchemy as sa

from ironic_lite import exception
from ironic_lite.common.conductor_identity import ConductorIdentity
from ironic_lite.db import api as db_api
from ironic_lite.db import conductors
from ironic_lite.db import models
from ironic_lite.db import node_locks
from ironic_lite.db import nodes
from lite_common import db as lite_db


def make_node(ctx, **values):
    return nodes.node_create(ctx, {'driver': 'fake-hardware', **values})


def start(ctx, host):
    """A conductor process of ``host`` that took its name."""
    identity = ConductorIdentity.new(host)
    conductors.register(ctx, identity, ['fake-hardware'], heartbeat_timeout=60)
    return identity


def age(ctx, host, seconds):
    with db_api.context_manager.writer.using(ctx) as session:
        session.execute(
            sa.update(models.Conductor)
            .where(models.Conductor.hostname == host)
            .values(
                heartbeat_at=lite_db.utcnow()
                - datetime.timedelta(seconds=seconds)
            )
        )


def replace(ctx, old):
    """A new process of ``old``'s host, once ``old`` was found dead."""
    age(ctx, old.host, 61)
    return start(ctx, old.host)


def test_reserve_then_second_reserve_names_the_holder(ctx):
    node = make_node(ctx)
    one, two = start(ctx, 'cond1'), start(ctx, 'cond2')
    reserved = node_locks.reserve(ctx, one, node['id'])
    assert reserved['reservation'] == 'cond1'
    with pytest.raises(exception.NodeLocked) as info:
        node_locks.reserve(ctx, two, node['uuid'])
    assert info.value.code == 409
    assert 'cond1' in str(info.value) and node['uuid'] in str(info.value)
    # Not re-entrant either.
    with pytest.raises(exception.NodeLocked):
        node_locks.reserve(ctx, one, node['id'])
    with pytest.raises(exception.NodeNotFound):
        node_locks.reserve(ctx, one, 999)


def test_concurrent_reserves_have_one_winner(ctx):
    node = make_node(ctx)
    holders = [start(ctx, f'cond{i}') for i in range(8)]
    winners, losers = [], []
    barrier = threading.Barrier(len(holders))

    def try_reserve(holder):
        barrier.wait()
        try:
            node_locks.reserve(ctx, holder, node['id'])
            winners.append(holder.host)
        except exception.NodeLocked:
            losers.append(holder.host)

    threads = [
        threading.Thread(target=try_reserve, args=(h,)) for h in holders
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(winners) == 1 and len(losers) == len(holders) - 1
    assert nodes.node_get(ctx, node['id'])['reservation'] == winners[0]


def test_release(ctx):
    node = make_node(ctx)
    one, two = start(ctx, 'cond1'), start(ctx, 'cond2')
    node_locks.reserve(ctx, one, node['id'])
    with pytest.raises(exception.NodeNotLocked) as info:
        node_locks.release(ctx, two, node['id'])
    assert 'cond1' in str(info.value)
    assert nodes.node_get(ctx, node['id'])['reservation'] == 'cond1'
    node_locks.release(ctx, one, node['uuid'])
    assert nodes.node_get(ctx, node['id'])['reservation'] is None
    with pytest.raises(exception.NodeNotLocked):
        node_locks.release(ctx, one, node['id'])
    with pytest.raises(exception.NodeNotFound):
        node_locks.release(ctx, one, 999)
    node_locks.reserve(ctx, two, node['id'])


def test_clear_dead_clears_only_locks_of_the_dead_incarnation(ctx):
    ids = {}
    holders = {host: start(ctx, host) for host in ('cond1', 'cond2', 'cond3')}
    for name, host in (
        ('a', 'cond1'),
        ('b', 'cond1'),
        ('c', 'cond2'),
        ('d', 'cond3'),
        ('e', None),
    ):
        ids[name] = make_node(ctx, name=name)['id']
        if host:
            node_locks.reserve(ctx, holders[host], ids[name])
    age(ctx, 'cond1', 61)
    age(ctx, 'cond3', 61)
    dead = conductors.list_dead(ctx, 60)
    assert [host for host, _inc in dead] == ['cond1', 'cond3']
    # cond3 came back meanwhile, as a new process that took the locks
    # of its previous one: those are not the dead one's any more.
    new3 = start(ctx, 'cond3')
    assert [i for i, _u in node_locks.clear_own(ctx, new3)] == [ids['d']]
    node_locks.reserve(ctx, new3, ids['d'])
    released = node_locks.clear_dead(ctx, dead)
    assert [node_id for node_id, _uuid in released] == [ids['a'], ids['b']]
    held = {n['name']: n['reservation'] for n in nodes.node_list(ctx)}
    assert held == {
        'a': None,
        'b': None,
        'c': 'cond2',
        'd': 'cond3',
        'e': None,
    }
    assert node_locks.clear_dead(ctx, []) == []


def test_clear_own_of_some_nodes_and_reserved_by(ctx):
    a, b, c = (make_node(ctx, name=name)['id'] for name in 'abc')
    one, two = start(ctx, 'cond1'), start(ctx, 'cond2')
    for node_id in (a, b):
        node_locks.reserve(ctx, one, node_id)
    node_locks.reserve(ctx, two, c)
    uuids = {n['id']: n['uuid'] for n in nodes.node_list(ctx)}
    assert node_locks.reserved_by(ctx, one) == [(a, uuids[a]), (b, uuids[b])]
    # Only the nodes named, only while the process still holds them.
    assert node_locks.clear_own(ctx, one, [b, c]) == [(b, uuids[b])]
    assert node_locks.clear_own(ctx, one, []) == []
    assert node_locks.reserved_by(ctx, one) == [(a, uuids[a])]
    assert nodes.node_get(ctx, c)['reservation'] == 'cond2'


def test_update_only_while_locked_by(ctx):
    node = make_node(ctx)
    one, two = start(ctx, 'cond1'), start(ctx, 'cond2')
    with pytest.raises(exception.NodeNotLocked, match='holder: None'):
        nodes.node_update(ctx, node['id'], {'name': 'x'}, locked_by=one)
    node_locks.reserve(ctx, two, node['id'])
    with pytest.raises(exception.NodeNotLocked, match='holder: cond2'):
        nodes.node_update(ctx, node['id'], {'name': 'x'}, locked_by=one)
    assert nodes.node_get(ctx, node['id'])['name'] is None
    assert (
        nodes.node_update(ctx, node['uuid'], {'name': 'x'}, locked_by=two)[
            'name'
        ]
        == 'x'
    )
    # The lock is checked first: a lost lock is not a stale revision.
    with pytest.raises(exception.NodeNotLocked):
        nodes.node_update(
            ctx, node['id'], {'name': 'y'}, locked_by=one, expected_revision=0
        )


def test_every_write_increments_the_revision_and_the_lock_does_not(ctx):
    node = make_node(ctx)
    one = start(ctx, 'cond1')
    assert node['revision'] == 0
    assert nodes.node_update(ctx, node['id'], {'name': 'a'})['revision'] == 1
    node_locks.reserve(ctx, one, node['id'])
    node_locks.release(ctx, one, node['id'])
    assert nodes.node_get(ctx, node['id'])['revision'] == 1
    with pytest.raises(exception.InvalidParameterValue, match='revision'):
        nodes.node_update(ctx, node['id'], {'revision': 7})


def test_reserve_adopts_a_stale_reservation_of_its_own_host(ctx):
    """Only when asked to (the conductor's in-process claim proves no
    task of its own holds the node)."""
    node = make_node(ctx)
    one, two = start(ctx, 'cond1'), start(ctx, 'cond2')
    node_locks.reserve(ctx, one, node['id'])
    with pytest.raises(exception.NodeLocked):
        node_locks.reserve(ctx, one, node['id'])
    assert (
        node_locks.reserve(ctx, one, node['id'], adopt=True)['reservation']
        == 'cond1'
    )
    with pytest.raises(exception.NodeLocked):
        node_locks.reserve(ctx, two, node['id'], adopt=True)


def test_lock_state(ctx):
    node = make_node(ctx, driver_internal_info={'k': 1})
    assert node_locks.lock_state(ctx, node['id']) == (None, None, {'k': 1})
    one = start(ctx, 'cond1')
    node_locks.reserve(ctx, one, node['id'])
    state = node_locks.lock_state(ctx, node['id'])
    assert state == ('cond1', one.incarnation, {'k': 1})
    assert state.held_by(one)
    with pytest.raises(exception.NodeNotFound):
        node_locks.lock_state(ctx, 12345)


# -- a replaced process


def test_a_replaced_process_writes_nothing_under_its_locks(ctx):
    """From the moment a new process took the host name, the old one's
    writes, releases and lock checks fail, even before the new one
    cleared the old locks; the new one adopts them."""
    node = make_node(ctx)
    old = start(ctx, 'cond1')
    node_locks.reserve(ctx, old, node['id'])
    new = replace(ctx, old)
    with pytest.raises(exception.NodeNotLocked) as info:
        nodes.node_update(ctx, node['id'], {'name': 'stale'}, locked_by=old)
    assert new.incarnation in str(info.value)
    with pytest.raises(exception.NodeNotLocked):
        node_locks.release(ctx, old, node['id'])
    assert not node_locks.lock_state(ctx, node['id']).held_by(old)
    assert node_locks.reserved_by(ctx, old) == []
    assert node_locks.clear_own(ctx, old) == []
    assert nodes.node_get(ctx, node['id'])['name'] is None
    # The new process: the lock of its host is its own to adopt.
    assert node_locks.lock_state(ctx, node['id']).held_by(new)
    node_locks.reserve(ctx, new, node['id'], adopt=True)
    assert (
        nodes.node_update(ctx, node['id'], {'name': 'x'}, locked_by=new)[
            'name'
        ]
        == 'x'
    )


def test_a_replaced_process_takes_no_lock(ctx):
    node = make_node(ctx)
    old = start(ctx, 'cond1')
    new = replace(ctx, old)
    with pytest.raises(exception.ConductorReplaced) as info:
        node_locks.reserve(ctx, old, node['id'])
    assert new.incarnation in str(info.value)
    assert nodes.node_get(ctx, node['id'])['reservation'] is None


def test_a_process_that_never_registered_takes_no_lock(ctx):
    node = make_node(ctx)
    with pytest.raises(exception.ConductorReplaced, match='released'):
        node_locks.reserve(ctx, ConductorIdentity.new('ghost'), node['id'])
    assert nodes.node_get(ctx, node['id'])['reservation'] is None
