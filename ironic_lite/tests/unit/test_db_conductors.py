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
    conductors.unregister(ctx, 'cond3')  # clean shutdown: dead

    assert conductors.list_alive(ctx, 60) == [
        {'hostname': 'cond1', 'hardware_types': ['fake-hardware']},
        {'hostname': 'cond4', 'hardware_types': ['fake-hardware']},
    ]
    assert conductors.list_dead(ctx, 60) == ['cond2', 'cond3']
    # A longer timeout forgives cond2 but not the offline cond3.
    assert conductors.list_dead(ctx, 600) == ['cond3']


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
