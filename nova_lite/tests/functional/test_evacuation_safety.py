"""Evacuation safety with real services in process (local driver,
SQLite, inproc bus): one regression test per defect of the
"no instance lost" issue that can be set up without killing processes
(tests/integration/test_evacuation_safety.py kills and freezes real
ones). Records left behind by a crash are written as the crash left
them; the agents' recovery is then the real code.
"""

from pathlib import Path
import subprocess
import sys
from typing import Any

from lite_common import context as lite_context
from nova_lite.common import states
from nova_lite.db import compute_nodes as node_db
from nova_lite.db import instances as instance_db
from nova_lite.db import migrations as migration_db
from nova_lite.tests.functional import test_evacuate
from nova_lite.tests.functional.test_evacuate import Client
from nova_lite.tests.functional.test_evacuate import _disk
from nova_lite.tests.functional.test_evacuate import _evacuate
from nova_lite.tests.functional.test_evacuate import _host
from nova_lite.tests.functional.test_evacuate import _restart

C1, C2 = 'compute-1', 'compute-2'


# The fixture, by its name: two computes (local driver), flavor f1, an
# image.
client = test_evacuate.client


def _ctx() -> Any:
    return lite_context.get_admin_context()


def _agent(client: Client, host: str) -> Any:
    for runnable in client.stack.launcher.runnables:
        if getattr(runnable, 'name', '') == f'nova-lite-compute ({host})':
            return runnable
    raise AssertionError(f'no agent {host}')


def _stop(client: Client, host: str) -> None:
    """The agent stops (its service still looks up for a while)."""
    _agent(client, host).stop()


def _boot_on(client: Client, host: str, name: str) -> dict[str, Any]:
    """Boot with the other host disabled."""
    other = C2 if host == C1 else C1
    client.ok(
        'PUT',
        f'/os-services/{client.service_id(other)}',
        {'status': 'disabled', 'disabled_reason': 'test'},
    )
    try:
        server = client.boot(name)
    finally:
        client.ok(
            'PUT',
            f'/os-services/{client.service_id(other)}',
            {'status': 'enabled'},
        )
    assert _host(server) == host, server
    return server


def _evacuations(uuid: str) -> list[dict[str, Any]]:
    return [
        m
        for m in migration_db.migration_get_all(
            _ctx(), {'instance_uuid': uuid, 'migration_type': 'evacuation'}
        )
    ]


def _node(host: str) -> dict[str, Any]:
    return node_db.compute_node_get(_ctx(), host=host)


def _evacuate_dead_source(client: Client, uuid: str, source: str) -> None:
    """Stop the source's agent, force its service down, evacuate and
    wait until the evacuation is done."""
    _stop(client, source)
    assert client.force_down(source, True).status_int == 200
    resp = _evacuate(client, uuid, {})
    assert resp.status_int == 200, resp.text
    client.wait(
        lambda: [m['status'] for m in _evacuations(uuid)] == ['done'],
        'the evacuation done',
    )


def _crashed_mid_rebuild(
    client: Client, uuid: str, source: str, dest: str
) -> dict[str, Any]:
    """The records as a crash of the destination during its rebuild
    leaves them: task rebuilding, the evacuation claimed by the
    destination (pre-migrating), no copy there yet."""
    ctx = _ctx()
    node = _node(dest)
    instance_db.instance_update(
        ctx,
        uuid,
        {'task_state': states.REBUILDING},
        expected_task_state=[None],
    )
    inst = instance_db.instance_get_by_uuid(ctx, uuid)
    return migration_db.migration_create(
        ctx,
        {
            'uuid': uuid[:-12] + 'e' * 12,
            'instance_uuid': uuid,
            'migration_type': 'evacuation',
            'status': 'pre-migrating',
            'source_compute': source,
            'source_node': inst['node'],
            'dest_compute': dest,
            'dest_node': node['hypervisor_hostname'],
            'dest_compute_id': node['id'],
        },
    )


# -- defect 1 --------------------------------------------------------------


def test_done_evacuation_of_an_instance_placed_here_again_keeps_it(client):
    """A stale ``done`` record must not destroy an instance that lives on
    its source again (it came back, e.g. by a migration, before the
    source cleaned up)."""
    server = _boot_on(client, C1, 'back')
    uuid = server['id']
    _evacuate_dead_source(client, uuid, C1)
    assert _host(client.server(uuid)) == C2
    # Back on compute-1 (as a cold migration leaves it), with its disk.
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
    _restart(client, C1)
    assert _disk(client, C1, uuid).is_file()
    assert [m['status'] for m in _evacuations(uuid)] == ['completed']


# -- defect 2 --------------------------------------------------------------


def test_destination_restart_claims_its_queued_evacuation(client):
    """The destination was down when the conductor chose it; its
    start-up must not fill in the link of the unclaimed record (its own
    claim would then be refused and the server lost)."""
    server = _boot_on(client, C1, 'queued')
    uuid = server['id']
    _stop(client, C1)
    assert client.force_down(C1, True).status_int == 200
    _stop(client, C2)  # still up for service_down_time
    resp = _evacuate(client, uuid, {'host': C2})
    assert resp.status_int == 200, resp.text
    client.wait(
        lambda: _evacuations(uuid)[0]['dest_node'] is not None,
        'the conductor to choose compute-2',
    )
    # The source comes back first: the accepted evacuation may still
    # fail, so its copy is kept and the record left alone.
    _restart(client, C1)
    assert _disk(client, C1, uuid).is_file()
    assert _evacuations(uuid)[0]['status'] == 'accepted'
    _restart(client, C2)
    client.wait(
        lambda: (
            client.server(uuid)['status'] == 'ACTIVE'
            and _evacuations(uuid)[0]['status'] == 'done'
        ),
        'the evacuation done on compute-2',
    )
    assert _host(client.server(uuid)) == C2
    assert _disk(client, C2, uuid).is_file()
    # The running source destroys its copy on its next pass.
    _agent_manager(client, C1).housekeeping()
    assert not _disk(client, C1, uuid).exists()
    assert _evacuations(uuid)[0]['status'] == 'completed'


def test_destination_restart_claims_its_queued_migration(client):
    """The cold migration variant: not abandoned with a false "no
    room"."""
    server = _boot_on(client, C1, 'cold')
    uuid = server['id']
    _stop(client, C2)
    resp = client.call(
        'POST',
        f'/servers/{uuid}/action',
        {'migrate': {'host': C2}},
        version='2.56',
    )
    assert resp.status_int == 202, resp.text
    client.wait(
        lambda: (
            migration_db.migration_get_all(_ctx(), {'instance_uuid': uuid})[0][
                'dest_node'
            ]
            is not None
        ),
        'the conductor to choose compute-2',
    )
    _restart(client, C2)
    client.wait(
        lambda: client.server(uuid)['status'] == 'VERIFY_RESIZE',
        'the migration finished on compute-2',
    )
    assert _host(client.server(uuid)) == C2


# -- defect 3 --------------------------------------------------------------


def test_crash_during_the_destination_rebuild_is_recovered(client):
    """The source keeps its copy while the evacuation is pre-migrating;
    the destination's start-up resumes the rebuild."""
    server = _boot_on(client, C1, 'crashed')
    uuid = server['id']
    _stop(client, C1)
    assert client.force_down(C1, True).status_int == 200
    _stop(client, C2)
    _crashed_mid_rebuild(client, uuid, C1, C2)
    _restart(client, C1)  # the source comes back first
    assert _disk(client, C1, uuid).is_file()
    assert _evacuations(uuid)[0]['status'] == 'pre-migrating'
    _restart(client, C2)
    client.wait(
        lambda: (
            client.server(uuid)['status'] == 'ACTIVE'
            and _evacuations(uuid)[0]['status'] in ('done', 'completed')
        ),
        'the rebuild resumed on compute-2',
    )
    assert _host(client.server(uuid)) == C2
    assert _disk(client, C2, uuid).is_file()
    # The running source then cleans up on its next pass.
    _agent_manager(client, C1).housekeeping()
    assert not _disk(client, C1, uuid).exists()
    assert _evacuations(uuid)[0]['status'] == 'completed'


def _agent_manager(client: Client, host: str) -> Any:
    for runnable in reversed(client.stack._cleanups):
        owner = getattr(runnable, '__self__', None)
        if getattr(owner, 'name', '') == f'nova-lite-compute ({host})':
            return owner.endpoints[0]._endpoint
    raise AssertionError(f'no restarted agent {host}')


def test_reset_state_then_evacuate_again(client):
    """A way out: os-resetState ends the stuck evacuation, and an
    instance in ERROR can be evacuated again."""
    server = _boot_on(client, C1, 'stuck')
    uuid = server['id']
    _stop(client, C1)
    assert client.force_down(C1, True).status_int == 200
    _crashed_mid_rebuild(client, uuid, C1, C2)
    again = _evacuate(client, uuid, {})
    assert again.status_int == 409, again.text
    bad = client.call(
        'POST',
        f'/servers/{uuid}/action',
        {'os-resetState': {'state': 'rebuilding'}},
    )
    assert bad.status_int == 400, bad.text
    resp = client.call(
        'POST',
        f'/servers/{uuid}/action',
        {'os-resetState': {'state': 'error'}},
    )
    assert resp.status_int == 202, resp.text
    shown = client.server(uuid)
    assert (
        shown['status'] == 'ERROR' and shown['OS-EXT-STS:task_state'] is None
    ), shown
    assert _host(shown) == C1
    assert _evacuations(uuid)[0]['status'] == 'failed'
    resp = _evacuate(client, uuid, {})
    assert resp.status_int == 200, resp.text
    client.wait(
        lambda: (
            client.server(uuid)['status'] == 'ACTIVE'
            and _host(client.server(uuid)) == C2
        ),
        'the second evacuation done',
    )
    assert _disk(client, C1, uuid).is_file()  # compute-1 still away


# -- defect 5 --------------------------------------------------------------


def test_deleting_a_service_with_uncleaned_evacuations_is_refused(client):
    server = _boot_on(client, C1, 'away')
    _evacuate_dead_source(client, server['id'], C1)
    svc = client.service_id(C1)
    resp = client.call('DELETE', f'/os-services/{svc}')
    assert resp.status_int == 409, resp.text
    assert '1 done' in resp.text and 'forget-evacuations' in resp.text
    _restart(client, C1)
    assert not _disk(client, C1, server['id']).exists()
    assert client.call('DELETE', f'/os-services/{svc}').status_int == 204


def test_forget_evacuations_of_a_host_gone_for_good(client, tmp_path):
    server = _boot_on(client, C1, 'gone')
    _evacuate_dead_source(client, server['id'], C1)
    conf = tmp_path / 'manage.conf'
    conf.write_text(
        f'[DEFAULT]\nservice_down_time = 10\n[database]\n'
        f'connection = {client.stack.conf.database.connection}\n'
    )
    result = subprocess.run(
        [
            str(Path(sys.executable).parent / 'nova-lite-manage'),
            '--config-file',
            str(conf),
            'compute',
            'forget-evacuations',
            '--host',
            C1,
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert 'Marked 1 done evacuation(s)' in result.stdout, result.stdout
    assert [m['status'] for m in _evacuations(server['id'])] == ['completed']
    svc = client.service_id(C1)
    assert client.call('DELETE', f'/os-services/{svc}').status_int == 204


def test_agent_of_a_deleted_service_starts_and_cleans_up(client):
    """Its service was deleted while it was away (nothing is left to
    clean up on record): the agent recognises its own node, registers
    again and reaps the copy of the instance deleted meanwhile."""
    server = _boot_on(client, C1, 'orphan')
    uuid = server['id']
    _stop(client, C1)
    assert client.force_down(C1, True).status_int == 200
    resp = client.call('DELETE', f'/servers/{uuid}')
    assert resp.status_int == 204, resp.text  # record-only delete
    assert _disk(client, C1, uuid).is_file()
    svc = client.service_id(C1)
    assert client.call('DELETE', f'/os-services/{svc}').status_int == 204
    _restart(client, C1)
    assert client.service_id(C1) != svc
    assert not _disk(client, C1, uuid).exists()


# -- defect 8 --------------------------------------------------------------


def test_a_deleted_instance_left_on_its_source_is_reaped(client):
    """Deleted during its (failed) evacuation: the source reaps the copy
    when it comes back instead of only warning."""
    server = _boot_on(client, C1, 'deleted')
    uuid = server['id']
    _stop(client, C1)
    assert client.force_down(C1, True).status_int == 200
    client.ok(
        'PUT',
        f'/os-services/{client.service_id(C2)}',
        {'status': 'disabled', 'disabled_reason': 'full'},
    )
    resp = _evacuate(client, uuid, {})
    assert resp.status_int == 200, resp.text
    client.wait(
        lambda: _evacuations(uuid)[0]['status'] == 'error',
        'the evacuation to fail',
    )
    assert client.call('DELETE', f'/servers/{uuid}').status_int == 204
    _restart(client, C1)
    assert not _disk(client, C1, uuid).exists()


def test_a_copy_no_record_explains_is_kept(client, caplog):
    """The other side of reaping: an instance unknown to the database is
    never touched."""
    _stop(client, C1)
    stray = (
        Path(client.stack.state_path)
        / C1
        / 'instances'
        / '0badc0de-0000-4000-8000-000000000000'
    )
    stray.mkdir(parents=True)
    (stray / 'disk').write_bytes(b'unknown')
    _restart(client, C1)
    assert (stray / 'disk').read_bytes() == b'unknown'
    assert '0badc0de-0000-4000-8000-000000000000' in caplog.text
