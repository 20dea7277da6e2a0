"""The conductors table: registration, heartbeats, alive and dead, and
one process per host name."""

import datetime
import os
import subprocess
import sys

import pytest
import sqlalchemy as sa

from ironic_lite import exception
from ironic_lite.common.conductor_identity import ConductorIdentity
from ironic_lite.db import api as db_api
from ironic_lite.db import conductors
from ironic_lite.db import models
from lite_common import db as lite_db
from lite_common import process_key

_PROCESSES: dict[str, ConductorIdentity] = {}


def me(hostname):
    """The (one) test process of ``hostname``."""
    return _PROCESSES.setdefault(hostname, ConductorIdentity.new(hostname))


def register(ctx, hostname, *args, **kwargs):
    return conductors.register(ctx, me(hostname), *args, **kwargs)


def _age(ctx, hostname, seconds):
    """Make the last heartbeat of ``hostname`` ``seconds`` old."""
    with db_api.context_manager.writer.using(ctx) as session:
        session.execute(
            sa.update(models.Conductor)
            .where(models.Conductor.hostname == hostname)
            .values(
                heartbeat_at=lite_db.utcnow()
                - datetime.timedelta(seconds=seconds)
            )
        )


def test_register_is_idempotent(ctx):
    first = register(ctx, 'cond1', ['fake-hardware'])
    assert first['online'] is True
    assert first['hardware_types'] == ['fake-hardware']
    conductors.unregister(ctx, me('cond1'))
    assert conductors.get(ctx, 'cond1')['online'] is False

    again = register(ctx, 'cond1', ['fake-hardware', 'ipmi'])
    assert again['id'] == first['id']
    assert again['online'] is True
    assert again['hardware_types'] == ['fake-hardware', 'ipmi']
    assert again['heartbeat_at'] >= first['heartbeat_at']


def test_heartbeat(ctx):
    register(ctx, 'cond1', ['fake-hardware'])
    _age(ctx, 'cond1', 300)
    assert conductors.list_alive(ctx, 60) == []
    beat = conductors.heartbeat(ctx, me('cond1'))
    assert conductors.get(ctx, 'cond1')['heartbeat_at'] == beat
    assert [c['hostname'] for c in conductors.list_alive(ctx, 60)] == ['cond1']
    with pytest.raises(exception.ConductorNotFound):
        conductors.heartbeat(ctx, me('never-registered'))
    with pytest.raises(exception.ConductorNotFound):
        conductors.unregister(ctx, me('never-registered'))
    with pytest.raises(exception.ConductorNotFound):
        conductors.get(ctx, 'never-registered')


def test_alive_and_dead(ctx):
    register(ctx, 'cond1', ['fake-hardware'])
    register(ctx, 'cond2', ['ipmi'])
    register(ctx, 'cond3', ['fake-hardware'])
    register(ctx, 'cond4', ['fake-hardware'])
    _age(ctx, 'cond2', 120)  # silent: dead
    conductors.unregister(ctx, me('cond3'))  # shut down: out of the ring

    assert [
        (c['hostname'], c['hardware_types'])
        for c in conductors.list_alive(ctx, 60)
    ] == [('cond1', ['fake-hardware']), ('cond4', ['fake-hardware'])]
    # Offline but heartbeating lately (stopping, or just stopped): its
    # locks are kept until the heartbeat is old.
    assert conductors.list_dead(ctx, 60) == [
        ('cond2', me('cond2').incarnation)
    ]
    assert conductors.list_dead(ctx, 600) == []
    _age(ctx, 'cond3', 120)
    # (cond3 stopped cleanly: nobody holds its name any more)
    assert conductors.list_dead(ctx, 60) == [
        ('cond2', me('cond2').incarnation),
        ('cond3', None),
    ]


def test_a_stopping_conductor_heartbeats_offline(ctx):
    """Item 1: out of the ring at once, but not dead while it beats."""
    register(ctx, 'stopping', ['fake-hardware'])
    conductors.heartbeat(ctx, me('stopping'), online=False)
    assert conductors.list_alive(ctx, 60) == []
    assert conductors.list_dead(ctx, 60) == []
    assert conductors.get(ctx, 'stopping')['online'] is False


def test_down_hosts_missed_two_heartbeats(ctx):
    register(ctx, 'up', ['fake-hardware'])
    register(ctx, 'down', ['fake-hardware'])
    _age(ctx, 'down', 25)
    alive = conductors.list_alive(ctx, 60)
    assert [c['hostname'] for c in alive] == ['down', 'up']
    assert conductors.down_hosts(alive, 10) == {'down'}
    assert conductors.down_hosts(alive, 15) == set()


def test_a_slow_heartbeat_within_the_timeout_is_alive(ctx):
    """Merely slow is not dead: a heartbeat 58 s old with a 60 s timeout
    is alive; one second past the timeout it is dead."""
    register(ctx, 'slow', ['fake-hardware'])
    _age(ctx, 'slow', 58)
    assert conductors.list_dead(ctx, 60) == []
    assert [c['hostname'] for c in conductors.list_alive(ctx, 60)] == ['slow']
    _age(ctx, 'slow', 61)
    assert conductors.list_dead(ctx, 60) == [('slow', me('slow').incarnation)]
    assert conductors.list_alive(ctx, 60) == []


def test_register_records_the_conductor_group_in_lower_case(ctx):
    register(ctx, 'cond1', ['fake-hardware'], 'Rack1')
    register(ctx, 'cond2', ['fake-hardware'])
    groups = {
        c['hostname']: c['conductor_group']
        for c in conductors.list_alive(ctx, 60)
    }
    assert groups == {'cond1': 'rack1', 'cond2': ''}
    # A restart in another group moves the conductor.
    register(ctx, 'cond1', ['fake-hardware'], 'rack2')
    assert conductors.get(ctx, 'cond1')['conductor_group'] == 'rack2'


def test_down_hosts_waits_at_least_a_few_seconds(ctx):
    """A 1 s heartbeat 3 s late is a stall, not a kill; 6 s late, down."""
    register(ctx, 'stalled', ['fake-hardware'])
    register(ctx, 'gone', ['fake-hardware'])
    _age(ctx, 'stalled', 3)
    _age(ctx, 'gone', 6)
    alive = conductors.list_alive(ctx, 60)
    assert conductors.down_hosts(alive, 1) == {'gone'}


def test_down_hosts_judges_a_kept_list_as_of_its_read(ctx):
    """A list kept for a while (the API's ring cache) does not make its
    conductors look down merely because time passed since it was read."""
    register(ctx, 'up', ['fake-hardware'])
    read_at = lite_db.utcnow()
    alive = conductors.list_alive(ctx, 60)
    later = read_at + datetime.timedelta(seconds=30)
    assert conductors.down_hosts(alive, 10, as_of=read_at) == set()
    assert conductors.down_hosts(alive, 10, as_of=later) == {'up'}


# -- one host name, one live process


def test_a_live_process_keeps_its_host_name(ctx):
    first = ConductorIdentity.new('cond1')
    conductors.register(ctx, first, ['fake-hardware'])
    _age(ctx, 'cond1', 50)
    with pytest.raises(exception.ConductorHostInUse) as info:
        conductors.register(
            ctx,
            ConductorIdentity.new('cond1'),
            ['fake-hardware'],
            heartbeat_timeout=60,
        )
    message = str(info.value)
    assert f'pid {os.getpid()}' in message
    assert first.incarnation in message
    assert 'ironic-lite-manage conductor release cond1' in message
    assert info.value.code == 409
    # The holder goes on as if nothing happened.
    conductors.heartbeat(ctx, first)
    assert conductors.get(ctx, 'cond1')['incarnation'] == first.incarnation


def test_a_stopping_process_keeps_its_host_name(ctx):
    """Offline but heartbeating (finishing its steps): not free."""
    first = ConductorIdentity.new('cond1')
    conductors.register(ctx, first, ['fake-hardware'])
    conductors.heartbeat(ctx, first, online=False)
    with pytest.raises(exception.ConductorHostInUse):
        conductors.register(
            ctx,
            ConductorIdentity.new('cond1'),
            ['fake-hardware'],
            heartbeat_timeout=60,
        )


def test_a_dead_process_loses_its_name_and_is_fenced(ctx):
    old, new = ConductorIdentity.new('cond1'), ConductorIdentity.new('cond1')
    conductors.register(ctx, old, ['fake-hardware'])
    _age(ctx, 'cond1', 61)
    row = conductors.register(
        ctx, new, ['fake-hardware'], heartbeat_timeout=60
    )
    assert row['incarnation'] == new.incarnation
    assert row['online'] is True
    # The old process wakes up: nothing it writes counts.
    with pytest.raises(exception.ConductorReplaced) as info:
        conductors.heartbeat(ctx, old)
    assert new.incarnation in str(info.value)
    assert info.value.code == 503
    with pytest.raises(exception.ConductorReplaced):
        conductors.unregister(ctx, old)
    with pytest.raises(exception.ConductorHostInUse):
        conductors.register(ctx, old, ['fake-hardware'])
    after = conductors.get(ctx, 'cond1')
    assert (after['online'], after['incarnation']) == (True, new.incarnation)


def test_a_clean_stop_frees_the_name_at_once(ctx):
    old, new = ConductorIdentity.new('cond1'), ConductorIdentity.new('cond1')
    conductors.register(ctx, old, ['fake-hardware'])
    conductors.unregister(ctx, old)
    assert conductors.get(ctx, 'cond1')['incarnation'] is None
    assert (
        conductors.register(ctx, new, ['fake-hardware'])['incarnation']
        == new.incarnation
    )


def test_registering_again_keeps_the_name(ctx):
    """A process registers again (the row was lost, or the answer of its
    first registration): the same process, the same name."""
    first = ConductorIdentity.new('cond1')
    before = conductors.register(ctx, first, ['fake-hardware'])
    again = conductors.register(ctx, first, ['ipmi'])
    assert again['id'] == before['id']
    assert again['hardware_types'] == ['ipmi']


def test_an_operator_releases_a_name(ctx):
    old, new = ConductorIdentity.new('cond1'), ConductorIdentity.new('cond1')
    conductors.register(ctx, old, ['fake-hardware'])
    before = conductors.release(ctx, 'cond1')
    assert before['incarnation'] == old.incarnation
    with pytest.raises(exception.ConductorReplaced) as info:
        conductors.heartbeat(ctx, old)
    assert 'released' in str(info.value)
    conductors.register(ctx, new, ['fake-hardware'])
    with pytest.raises(exception.ConductorNotFound):
        conductors.release(ctx, 'never-registered')


def _hold_as(ctx, hostname, key):
    """The row of ``hostname`` says its holder is the process ``key``."""
    with db_api.context_manager.writer.using(ctx) as session:
        session.execute(
            sa.update(models.Conductor)
            .where(models.Conductor.hostname == hostname)
            .values(process_key=key)
        )


def test_a_holder_proven_dead_on_this_machine_loses_its_name_at_once(ctx):
    """A crash, then a restart: no wait for the heartbeat to age."""
    child = subprocess.Popen([sys.executable, '-c', 'pass'])
    started = process_key.start_time(child.pid)
    child.wait()
    me_now = process_key.this_process()
    assert me_now is not None
    old, new = ConductorIdentity.new('cond1'), ConductorIdentity.new('cond1')
    conductors.register(ctx, old, ['fake-hardware'])
    _hold_as(
        ctx,
        'cond1',
        str(
            process_key.ProcessKey(
                me_now.boot, me_now.pid_namespace, child.pid, started or 1
            )
        ),
    )
    row = conductors.register(
        ctx, new, ['fake-hardware'], heartbeat_timeout=60
    )
    assert row['incarnation'] == new.incarnation
    assert row['process_key'] == str(me_now)
    with pytest.raises(exception.ConductorReplaced):
        conductors.heartbeat(ctx, old)


def test_a_holder_on_another_machine_is_never_judged_by_its_pid(ctx):
    old = ConductorIdentity.new('cond1')
    conductors.register(ctx, old, ['fake-hardware'])
    _hold_as(ctx, 'cond1', 'another-boot/pid:[4026531836]/999999/1')
    with pytest.raises(exception.ConductorHostInUse):
        conductors.register(
            ctx,
            ConductorIdentity.new('cond1'),
            ['fake-hardware'],
            heartbeat_timeout=60,
        )
