"""Cold migrations and resizes interrupted by a crash resume when the
agent whose step it was starts again; repeated requests destroy
nothing; what an ended move left on its destination is reaped.

Real services in process (local driver, SQLite, inproc bus). The state a
crash leaves is written as it would be (records and disk files); the
recovery is the real code.
"""

import datetime
import logging
import shutil
from typing import Any
import uuid as uuid_lib

from lite_common import db as lite_db
from nova_lite.common import states
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.compute_api import servers as servers_api
from nova_lite.db import flavors as flavor_db
from nova_lite.db import instances as instance_db
from nova_lite.db import migrations as migration_db
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import migration as migration_obj
from nova_lite.tests.functional import test_move
from nova_lite.tests.functional.test_evacuate import _restart
from nova_lite.tests.functional.test_evacuation_safety import _boot_on
from nova_lite.tests.functional.test_evacuation_safety import _stop
from nova_lite.tests.functional.test_move import _action
from nova_lite.tests.functional.test_move import _ctx
from nova_lite.tests.functional.test_move import _disk
from nova_lite.tests.functional.test_move import _instance
from nova_lite.tests.functional.test_move import _migration
from nova_lite.tests.functional.test_move import _node
from nova_lite.tests.functional.test_move import _wait_migration
from nova_lite.tests.functional.test_move import _wait_status

C1, C2 = 'compute-1', 'compute-2'
# The fixture, by its name: two computes, flavors f1 and f2, an image.
client = test_move.client


def _migrate_to_verify(client, name: str) -> str:
    """A server moved from compute-1 to compute-2, in VERIFY_RESIZE."""
    uuid = _boot_on(client, C1, name)['id']
    assert _action(client, uuid, {'migrate': {'host': C2}}).status_int == 202
    _wait_status(client, uuid, 'VERIFY_RESIZE')
    assert _disk(client, C2, uuid).is_file()
    assert _disk(client, C1, uuid + '_resize').is_file()
    return uuid


def _sent_but_not_finished(client, name: str, task: str) -> str:
    """compute-1 sent the disk to compute-2 (claimed), then compute-2
    crashed before (or while) it finished."""
    uuid = _boot_on(client, C1, name)['id']
    inst = _instance(uuid)
    node = _node(C2)
    migration_db.migration_create(
        _ctx(),
        {
            'uuid': uuid[:-12] + 'c' * 12,
            'instance_uuid': uuid,
            'migration_type': 'migration',
            'status': 'post-migrating',
            'source_compute': C1,
            'source_node': inst['node'],
            'dest_compute': C2,
            'dest_node': node['hypervisor_hostname'],
            'dest_compute_id': node['id'],
            'old_flavor_id': 'f1',
            'new_flavor_id': 'f1',
        },
    )
    instance_db.instance_update(
        _ctx(),
        uuid,
        {
            'task_state': task,
            'old_flavor': inst['flavor'],
            'new_flavor': inst['flavor'],
        },
    )
    here = _disk(client, C1, uuid).parent
    _disk(client, C2, uuid).parent.mkdir(parents=True)
    shutil.copy(here / 'disk', _disk(client, C2, uuid))
    here.rename(here.with_name(here.name + '_resize'))
    return uuid


def test_destination_restart_finishes_an_interrupted_move(client):
    for name, task in (
        ('migrated', states.RESIZE_MIGRATED),
        ('finishing', states.RESIZE_FINISH),
    ):
        uuid = _sent_but_not_finished(client, name, task)
        _restart(client, C2)
        _wait_status(client, uuid, 'VERIFY_RESIZE')
        assert _instance(uuid)['host'] == C2
        assert _migration(uuid)['status'] == 'finished'
        assert _action(client, uuid, {'confirmResize': None}).status_int == 204
        _wait_migration(client, uuid, 'confirmed')
        client.wait(
            lambda u=uuid: not _disk(client, C1, u + '_resize').exists(),
            'the copy kept aside deleted',
        )


def test_destination_restart_asks_the_source_again(client):
    """Claimed, but the request to the source was lost."""
    uuid, _migration_row = _claimed_move(
        client, 'lost', states.RESIZE_PREP, 'd'
    )
    _restart(client, C2)
    _wait_status(client, uuid, 'VERIFY_RESIZE')
    assert _instance(uuid)['host'] == C2
    assert _disk(client, C2, uuid).is_file()


def test_source_restart_finishes_an_interrupted_confirm(client):
    uuid = _migrate_to_verify(client, 'confirm')
    _stop(client, C1)
    assert migration_db.migration_transition(
        _ctx(), _migration(uuid)['id'], ('finished',), 'confirming'
    )
    _restart(client, C1)
    assert _migration(uuid)['status'] == 'confirmed'
    assert client.server(uuid)['status'] == 'ACTIVE'
    assert not _disk(client, C1, uuid + '_resize').exists()
    assert _disk(client, C2, uuid).is_file()


def _revert_started(uuid: str) -> None:
    """What the API did for a revert."""
    assert migration_db.migration_transition(
        _ctx(), _migration(uuid)['id'], ('finished',), 'reverting'
    )
    instance_db.instance_update(
        _ctx(),
        uuid,
        {'task_state': states.RESIZE_REVERTING},
        expected_task_state=[None],
    )


def test_source_restart_finishes_an_interrupted_revert(client):
    """The destination destroyed its copy and crashed before it asked
    the source to restore: the source restores at its start."""
    uuid = _migrate_to_verify(client, 'revert')
    _stop(client, C1)
    _revert_started(uuid)
    shutil.rmtree(_disk(client, C2, uuid).parent)
    _restart(client, C1)
    assert _migration(uuid)['status'] == 'reverted'
    shown = client.server(uuid)
    assert shown['status'] == 'ACTIVE' and _instance(uuid)['host'] == C1
    assert _disk(client, C1, uuid).is_file()


def test_a_revert_that_placed_the_server_back_is_ended_at_restart(client):
    """The source restored its copy and put the record back, then
    crashed before it ended the migration: the record names the host
    that has the copy (a crash in the other order left it naming the
    destination, which had destroyed its copy: the model test, seed
    7027), and the source's start-up ends the migration ``reverted``
    and gives the destination its room back."""
    uuid = _migrate_to_verify(client, 'revert-ended')
    before = _node(C2)['running_vms']
    _stop(client, C1)
    _revert_started(uuid)
    shutil.rmtree(_disk(client, C2, uuid).parent)
    aside = _disk(client, C1, uuid + '_resize').parent
    aside.rename(_disk(client, C1, uuid).parent)
    node = _node(C1)
    inst = _instance(uuid)
    instance_db.instance_update(
        _ctx(),
        uuid,
        {
            'host': C1,
            'node': node['hypervisor_hostname'],
            'compute_id': node['id'],
            'vm_state': states.ACTIVE,
            'task_state': None,
            'flavor': inst['old_flavor'],
            'old_flavor': None,
            'new_flavor': None,
        },
    )
    assert _migration(uuid)['status'] == 'reverting'
    _restart(client, C1)
    _wait_migration(client, uuid, 'reverted')
    assert _instance(uuid)['host'] == C1
    assert client.server(uuid)['status'] == 'ACTIVE'
    assert _disk(client, C1, uuid).is_file()
    assert _node(C2)['running_vms'] == before - 1


def test_destination_restart_goes_on_with_a_revert(client):
    """The revert request reached the destination, which crashed before
    it destroyed its copy: it does its step at start-up."""
    uuid = _migrate_to_verify(client, 'revert-dest')
    _revert_started(uuid)
    _restart(client, C2)
    _wait_migration(client, uuid, 'reverted')
    _wait_status(client, uuid, 'ACTIVE')
    assert _instance(uuid)['host'] == C1
    assert _disk(client, C1, uuid).is_file()
    client.wait(
        lambda: not _disk(client, C2, uuid).exists(),
        'the copy on compute-2 destroyed',
    )


def test_a_repeated_revert_request_destroys_nothing(client, caplog):
    """finish_revert_resize and revert_resize delivered again after the
    revert finished (a broker redelivery, a resumed step) keep the
    restored copy."""
    caplog.set_level(logging.INFO, logger='nova_lite.compute')
    uuid = _migrate_to_verify(client, 'twice')
    assert _action(client, uuid, {'revertResize': None}).status_int == 202
    _wait_migration(client, uuid, 'reverted')
    _wait_status(client, uuid, 'ACTIVE')
    ctx = _ctx()
    rpc = compute_rpcapi.ComputeAPI(client.stack.conf)
    migration = migration_obj.Migration.get_by_id(ctx, _migration(uuid)['id'])
    instance = instance_obj.Instance.get_by_uuid(ctx, uuid)
    instance.task_state = states.RESIZE_REVERTING  # as first sent
    rpc.finish_revert_resize(ctx, instance, migration, C1)
    rpc.revert_resize(ctx, instance, migration, C2)

    def handled(step: str, done: str) -> bool:
        # Handled, or skipped: the agent's thread of the first request
        # may still hold the migration (it logged and is returning), and
        # a second request for it is then refused (seen under load).
        return (
            done in caplog.text
            or f': {step} is already under way here' in caplog.text
        )

    client.wait(
        lambda: (
            handled('finish_revert_resize', 'no longer reverting')
            and handled('revert_resize', 'it is reverted')
        ),
        'both handled',
    )
    assert _disk(client, C1, uuid).is_file()
    assert client.server(uuid)['status'] == 'ACTIVE'


def test_copy_left_by_an_ended_move_is_reaped(client):
    """compute-1 was sending when it crashed: at its start the move is
    error and its copy is back; the copy that reached compute-2 is
    destroyed by compute-2's clean-up (not an unexplained copy)."""
    uuid = _sent_but_not_finished(client, 'aborted', states.RESIZE_MIGRATED)
    instance_db.instance_update(
        _ctx(), uuid, {'task_state': states.RESIZE_MIGRATING}
    )
    migration_db.migration_update(
        _ctx(), _migration(uuid)['id'], {'status': 'migrating'}
    )
    _restart(client, C1)
    assert _migration(uuid)['status'] == 'error'
    assert _disk(client, C1, uuid).is_file()
    assert _disk(client, C2, uuid).is_file()
    _restart(client, C2)
    assert not _disk(client, C2, uuid).exists()
    assert client.server(uuid)['status'] == 'ACTIVE'
    assert _disk(client, C1, uuid).is_file()


def test_copy_left_by_a_revert_is_reaped_after_later_moves(client):
    """compute-2 was down while a move to it was reverted: the source
    restored its own copy, the revert is ``reverted`` and compute-2
    still holds its copy. The instance moved on before compute-2 came
    back (a later move that never involved compute-2): compute-2's
    clean-up still reaps its copy, as the move recovery promises (found
    by the model test, seed 5173: the rule looked only at the newest
    move of the instance)."""
    uuid = _migrate_to_verify(client, 'revert-away')
    _stop(client, C2)
    _revert_started(uuid)
    _restart(client, C1)
    assert _migration(uuid)['status'] == 'reverted'
    assert _instance(uuid)['host'] == C1
    assert _disk(client, C2, uuid).is_file()
    inst = _instance(uuid)
    migration_db.migration_create(
        _ctx(),
        {
            'uuid': uuid[:-12] + 'e' * 12,
            'instance_uuid': uuid,
            'migration_type': 'migration',
            'status': 'error',
            'source_compute': C1,
            'source_node': inst['node'],
            'dest_compute': 'compute-9',
            'dest_node': 'compute-9',
            'old_flavor_id': 'f1',
            'new_flavor_id': 'f1',
        },
    )
    _restart(client, C2)
    assert not _disk(client, C2, uuid).exists()
    assert _disk(client, C1, uuid).is_file()
    assert client.server(uuid)['status'] == 'ACTIVE'


# -- moves the conductor lost ------------------------------------------------


def _conductor(client) -> Any:
    for runnable in client.stack.launcher.runnables:
        if getattr(runnable, 'name', '').startswith('nova-lite-conductor'):
            return runnable.endpoints[0]._endpoint
    raise AssertionError('no conductor')


def _lost(uuid: str, values: dict[str, Any], task: str) -> dict[str, Any]:
    """A move recorded long ago that no conductor drove on."""
    inst = _instance(uuid)
    migration = migration_db.migration_create(
        _ctx(),
        {
            'uuid': uuid[:-12] + 'f' * 12,
            'instance_uuid': uuid,
            'source_compute': inst['host'],
            'source_node': inst['node'],
            'created_at': lite_db.utcnow() - datetime.timedelta(hours=1),
            **values,
        },
    )
    instance_db.instance_update(
        _ctx(),
        uuid,
        {
            'task_state': task,
            'old_flavor': inst['flavor'],
            'new_flavor': inst['flavor'],
        },
        expected_task_state=[None],
    )
    return migration


def test_conductor_drives_a_lost_evacuation_again(client):
    uuid = _boot_on(client, C1, 'lost-evac')['id']
    _stop(client, C1)
    assert client.force_down(C1, True).status_int == 200
    _lost(
        uuid,
        {'migration_type': 'evacuation', 'status': 'accepted'},
        states.REBUILDING,
    )
    assert _conductor(client).recovery.run() == 1
    client.wait(
        lambda: (
            client.server(uuid)['status'] == 'ACTIVE'
            and _instance(uuid)['host'] == C2
            and _migration(uuid)['status'] == 'done'
        ),
        'evacuated',
    )
    assert _conductor(client).recovery.run() == 0


def test_conductor_drives_lost_cold_migrations_again(client):
    chosen = _boot_on(client, C1, 'lost-chosen')['id']
    unchosen = _boot_on(client, C1, 'lost-unchosen')['id']
    node = _node(C2)
    _lost(
        unchosen,
        {'migration_type': 'migration', 'status': 'pre-migrating'},
        states.RESIZE_PREP,
    )
    _lost(
        chosen,
        {
            'migration_type': 'migration',
            'status': 'pre-migrating',
            'dest_compute': C2,
            'dest_host': C2,
            'dest_node': node['hypervisor_hostname'],
        },
        states.RESIZE_PREP,
    )
    assert _conductor(client).recovery.run() == 2
    for uuid in (chosen, unchosen):
        _wait_status(client, uuid, 'VERIFY_RESIZE')
        assert _instance(uuid)['host'] == C2


def _running_manager(client, host: str) -> Any:
    for runnable in client.stack.launcher.runnables:
        if getattr(runnable, 'name', '') == f'nova-lite-compute ({host})':
            return runnable.endpoints[0]._endpoint
    raise AssertionError(f'no agent {host}')


def test_a_running_destination_takes_up_a_stalled_move(client):
    """The destination claimed, but its request to the source was lost
    (or its flow died on an error) and it never restarted: a
    housekeeping pass asks the source again once the record has not
    changed for three intervals; a fresh record is left alone."""
    uuid, migration = _claimed_move(client, 'stalled', states.RESIZE_PREP, 'a')
    manager = _running_manager(client, C2)
    manager.housekeeping()
    assert _migration(uuid)['status'] == 'pre-migrating'  # not stalled
    long_ago = lite_db.utcnow() - datetime.timedelta(hours=1)
    migration_db.migration_update(
        _ctx(),
        migration['id'],
        {'created_at': long_ago, 'updated_at': long_ago},
    )
    manager.housekeeping()
    _wait_status(client, uuid, 'VERIFY_RESIZE')
    assert _instance(uuid)['host'] == C2


def test_a_build_whose_request_was_lost_is_failed_at_restart(client):
    """Placed on compute-1 but never built (the conductor's request to
    the agent was lost with it): at restart the agent sets ERROR, as
    upstream, instead of leaving the server in BUILD for ever. Found by
    the model test (seed 1200 on a loaded machine)."""
    uuid = _boot_on(client, C1, 'lost-build')['id']
    shutil.rmtree(_disk(client, C1, uuid).parent)
    instance_db.instance_update(
        _ctx(),
        uuid,
        {
            'vm_state': states.BUILDING,
            'task_state': states.SCHEDULING,
            'power_state': 0,
        },
    )
    _restart(client, C1)
    client.wait(
        lambda: client.server(uuid)['status'] == 'ERROR', 'the server in ERROR'
    )
    row = _instance(uuid)
    assert row['task_state'] is None
    assert 'Build interrupted' in row['fault']['message']
    assert not _disk(client, C1, uuid).exists()


def _claimed_move(
    client, name: str, task: str, mark: str
) -> tuple[str, dict[str, Any]]:
    """A migration of a server on compute-1 that compute-2 claimed
    (``pre-migrating``), the instance in task state ``task``."""
    uuid = _boot_on(client, C1, name)['id']
    inst = _instance(uuid)
    node = _node(C2)
    migration = migration_db.migration_create(
        _ctx(),
        {
            'uuid': uuid[:-12] + mark * 12,
            'instance_uuid': uuid,
            'migration_type': 'migration',
            'status': 'pre-migrating',
            'source_compute': C1,
            'source_node': inst['node'],
            'dest_compute': C2,
            'dest_node': node['hypervisor_hostname'],
            'dest_compute_id': node['id'],
        },
    )
    instance_db.instance_update(
        _ctx(),
        uuid,
        {
            'task_state': task,
            'old_flavor': inst['flavor'],
            'new_flavor': inst['flavor'],
        },
    )
    return uuid, migration


def _begun_at_source(client, name: str) -> tuple[str, dict[str, Any]]:
    """compute-2 claimed a migration of a server on compute-1; compute-1
    took the request (task state ``resize_migrating``) and went no
    further: the record is still ``pre-migrating``, nothing was sent."""
    return _claimed_move(client, name, states.RESIZE_MIGRATING, 'e')


def _put_back(client, uuid: str) -> None:
    client.wait(
        lambda: _migration(uuid)['status'] == 'error', 'the migration in error'
    )
    _wait_status(client, uuid, 'ACTIVE')
    row = _instance(uuid)
    assert (row['host'], row['task_state'], row['new_flavor']) == (
        C1,
        None,
        None,
    )
    assert _disk(client, C1, uuid).is_file()
    assert not _disk(client, C2, uuid).exists()


def test_source_restart_puts_back_a_move_it_had_begun(client):
    """Found by the model test (seeds 6092, 6110, 6116: a migrate or
    resize issued while the source was frozen, then the source
    restarted): the server stayed in RESIZE for good."""
    uuid, _migration_row = _begun_at_source(client, 'begun')
    _restart(client, C1)
    _put_back(client, uuid)


def test_a_running_source_puts_back_a_stalled_move_it_had_begun(client):
    uuid, migration = _begun_at_source(client, 'begun-running')
    manager = _running_manager(client, C1)
    manager.housekeeping()
    assert _migration(uuid)['status'] == 'pre-migrating'  # not stalled
    long_ago = lite_db.utcnow() - datetime.timedelta(hours=1)
    migration_db.migration_update(
        _ctx(),
        migration['id'],
        {'created_at': long_ago, 'updated_at': long_ago},
    )
    manager.housekeeping()
    _put_back(client, uuid)


def _unscheduled(client, name: str, long_ago: bool = True) -> str:
    """A server the API recorded (BUILD, scheduling, on no host) whose
    request to the conductor was lost."""
    flavor = servers_api.flavor_snapshot(flavor_db.flavor_get(_ctx(), 'f1'))
    when = lite_db.utcnow() - datetime.timedelta(hours=1 if long_ago else 0)
    row = instance_db.instance_create(
        _ctx(),
        {
            'uuid': str(uuid_lib.uuid4()),
            'display_name': name,
            'project_id': 'p',
            'user_id': 'u',
            'image_ref': client.image,
            'flavor': flavor,
            'vcpus': flavor['vcpus'],
            'memory_mb': flavor['memory_mb'],
            'root_gb': flavor['root_gb'],
            'vm_state': states.BUILDING,
            'task_state': states.SCHEDULING,
            'created_at': when,
            'updated_at': when,
        },
    )
    return str(row['uuid'])


def test_conductor_schedules_a_lost_build_again(client):
    """Found by the model test (seeds 6027, 6194: a boot issued just
    before the conductor was frozen and restarted): the server stayed in
    BUILD on no host for good. Driven twice, it is placed once."""
    fresh = _unscheduled(client, 'lost-fresh', long_ago=False)
    lost = _unscheduled(client, 'lost-request')
    conductor = _conductor(client)
    usage = _usage()
    assert conductor.recovery.run() == 1  # the fresh one waits
    conductor.builder.schedule_and_build(_ctx(), lost)  # driven twice
    _wait_status(client, lost, 'ACTIVE')
    assert _instance(lost)['host'] in (C1, C2)
    assert _instance(fresh)['host'] is None
    assert _usage() == usage + 1
    assert conductor.recovery.run() == 0
    instance_db.instance_destroy(_ctx(), fresh)


def _usage() -> int:
    return sum(_node(host)['running_vms'] for host in (C1, C2))


def test_a_running_agent_builds_a_placed_server_whose_request_was_lost(client):
    """Placed on compute-1 by a conductor that died before it asked the
    agent to build: the agent's housekeeping builds it once the record
    has not changed for three intervals."""
    uuid = _unscheduled(client, 'placed-lost', long_ago=False)
    node = _node(C1)
    instance_db.instance_update(
        _ctx(),
        uuid,
        {
            'host': C1,
            'node': node['hypervisor_hostname'],
            'compute_id': node['id'],
        },
    )
    manager = _running_manager(client, C1)
    manager.housekeeping()
    assert _instance(uuid)['task_state'] == states.SCHEDULING  # not stale
    long_ago = lite_db.utcnow() - datetime.timedelta(hours=1)
    with_old = instance_db.instance_update(
        _ctx(), uuid, {'updated_at': long_ago}
    )
    assert with_old['updated_at'] < lite_db.utcnow()
    manager.housekeeping()
    _wait_status(client, uuid, 'ACTIVE')
    assert _instance(uuid)['host'] == C1
    assert _disk(client, C1, uuid).is_file()


def test_a_lost_forced_evacuation_keeps_its_request(client):
    """Driven again by the conductor, a forced evacuation asked at 2.95
    is still forced (not held to the zone the server is pinned to) and
    still ends stopped: both are on its record."""
    uuid = _boot_on(client, C1, 'lost-forced')['id']
    instance_db.instance_update(
        _ctx(), uuid, {'pinned_availability_zone': 'elsewhere'}
    )
    _stop(client, C1)
    assert client.force_down(C1, True).status_int == 200
    _lost(
        uuid,
        {
            'migration_type': 'evacuation',
            'status': 'accepted',
            'dest_compute': C2,
            'forced': True,
            'target_state': states.STOPPED,
        },
        states.REBUILDING,
    )
    assert _conductor(client).recovery.run() == 1
    client.wait(
        lambda: (
            client.server(uuid)['status'] == 'SHUTOFF'
            and _instance(uuid)['host'] == C2
            and _migration(uuid)['status'] == 'done'
        ),
        'evacuated, stopped',
    )
    assert _instance(uuid)['power_state'] == 4
