"""The conductors table: registration, heartbeats, alive and dead."""

import datetime

import pytest
import sqlalchemy as sa

from ironic_lite import exception
from ironic_lite.db import api as db_api
from ironic_lite.db import conductors
from ironic_lite.db import models
from lite_common import db as lite_db


def _age(ctx, hostname, seconds):
    """Make the last heartbeat of ``hostname`` ``seconds`` old."""
    with db_api.context_manager.writer.using(ctx) as session:
        session.execute(
            sa.update(models.Conductor)
            .where(models.Conductor.hostname == hostname)
            .values(heartbeat_at=lite_db.utcnow()
                    - datetime.timedelta(seconds=seconds)))


def test_register_is_idempotent(ctx):
    first = conductors.register(ctx, 'cond1', ['fake-hardware'])
    assert first['online'] is True
    assert first['hardware_types'] == ['fake-hardware']
    conductors.unregister(ctx, 'cond1')
    assert conductors.get(ctx, 'cond1')['online'] is False

    again = conductors.register(ctx, 'cond1', ['fake-hardware', 'ipmi'])
    assert again['id'] == first['id']
    assert again['online'] is True
    assert again['hardware_types'] == ['fake-hardware', 'ipmi']
    assert again['heartbeat_at'] >= first['heartbeat_at']


def test_heartbeat(ctx):
    conductors.register(ctx, 'cond1', ['fake-hardware'])
    _age(ctx, 'cond1', 300)
    assert conductors.list_alive(ctx, 60) == []
    beat = conductors.heartbeat(ctx, 'cond1')
    assert conductors.get(ctx, 'cond1')['heartbeat_at'] == beat
    assert [c['hostname'] for c in conductors.list_alive(ctx, 60)] == [
        'cond1']
    with pytest.raises(exception.ConductorNotFound):
        conductors.heartbeat(ctx, 'never-registered')
    with pytest.raises(exception.ConductorNotFound):
        conductors.unregister(ctx, 'never-registered')
    with pytest.raises(exception.ConductorNotFound):
        conductors.get(ctx, 'never-registered')


def test_alive_and_dead(ctx):
    conductors.register(ctx, 'cond1', ['fake-hardware'])
    conductors.register(ctx, 'cond2', ['ipmi'])
    conductors.register(ctx, 'cond3', ['fake-hardware'])
    conductors.register(ctx, 'cond4', ['fake-hardware'])
    _age(ctx, 'cond2', 120)          # silent: dead
    conductors.unregister(ctx, 'cond3')  # shut down: out of the ring

    assert [(c['hostname'], c['hardware_types'])
            for c in conductors.list_alive(ctx, 60)] == [
        ('cond1', ['fake-hardware']), ('cond4', ['fake-hardware'])]
    # Offline but heartbeating lately (stopping, or just stopped): its
    # locks are kept until the heartbeat is old.
    assert conductors.list_dead(ctx, 60) == ['cond2']
    assert conductors.list_dead(ctx, 600) == []
    _age(ctx, 'cond3', 120)
    assert conductors.list_dead(ctx, 60) == ['cond2', 'cond3']


def test_a_stopping_conductor_heartbeats_offline(ctx):
    """Item 1: out of the ring at once, but not dead while it beats."""
    conductors.register(ctx, 'stopping', ['fake-hardware'])
    conductors.heartbeat(ctx, 'stopping', online=False)
    assert conductors.list_alive(ctx, 60) == []
    assert conductors.list_dead(ctx, 60) == []
    assert conductors.get(ctx, 'stopping')['online'] is False


def test_down_hosts_missed_two_heartbeats(ctx):
    conductors.register(ctx, 'up', ['fake-hardware'])
    conductors.register(ctx, 'down', ['fake-hardware'])
    _age(ctx, 'down', 25)
    alive = conductors.list_alive(ctx, 60)
    assert [c['hostname'] for c in alive] == ['down', 'up']
    assert conductors.down_hosts(alive, 10) == {'down'}
    assert conductors.down_hosts(alive, 15) == set()


def test_a_slow_heartbeat_within_the_timeout_is_alive(ctx):
    """Merely slow is not dead: a heartbeat 58 s old with a 60 s timeout
    is alive; one second past the timeout it is dead."""
    conductors.register(ctx, 'slow', ['fake-hardware'])
    _age(ctx, 'slow', 58)
    assert conductors.list_dead(ctx, 60) == []
    assert [c['hostname'] for c in conductors.list_alive(ctx, 60)] == [
        'slow']
    _age(ctx, 'slow', 61)
    assert conductors.list_dead(ctx, 60) == ['slow']
    assert conductors.list_alive(ctx, 60) == []


def test_register_records_the_conductor_group_in_lower_case(ctx):
    conductors.register(ctx, 'cond1', ['fake-hardware'], 'Rack1')
    conductors.register(ctx, 'cond2', ['fake-hardware'])
    groups = {c['hostname']: c['conductor_group']
              for c in conductors.list_alive(ctx, 60)}
    assert groups == {'cond1': 'rack1', 'cond2': ''}
    # A restart in another group moves the conductor.
    conductors.register(ctx, 'cond1', ['fake-hardware'], 'rack2')
    assert conductors.get(ctx, 'cond1')['conductor_group'] == 'rack2'


def test_down_hosts_waits_at_least_a_few_seconds(ctx):
    """A 1 s heartbeat 3 s late is a stall, not a kill; 6 s late, down."""
    conductors.register(ctx, 'stalled', ['fake-hardware'])
    conductors.register(ctx, 'gone', ['fake-hardware'])
    _age(ctx, 'stalled', 3)
    _age(ctx, 'gone', 6)
    alive = conductors.list_alive(ctx, 60)
    assert conductors.down_hosts(alive, 1) == {'gone'}


def test_down_hosts_judges_a_kept_list_as_of_its_read(ctx):
    """A list kept for a while (the API's ring cache) does not make its
    conductors look down merely because time passed since it was read."""
    conductors.register(ctx, 'up', ['fake-hardware'])
    read_at = lite_db.utcnow()
    alive = conductors.list_alive(ctx, 60)
    later = read_at + datetime.timedelta(seconds=30)
    assert conductors.down_hosts(alive, 10, as_of=read_at) == set()
    assert conductors.down_hosts(alive, 10, as_of=later) == {'up'}
