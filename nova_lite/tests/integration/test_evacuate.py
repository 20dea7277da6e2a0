"""Evacuation with real agents (three computes as separate processes,
RabbitMQ + MariaDB, local driver), driven by the openstack CLI.

compute-1 holds six servers and dies. They are evacuated (one of them
while no host is valid, one whose destination is still building when the
source returns, one deleted afterwards); a server on compute-2 is never
touched. When compute-1 comes back it destroys exactly the copies of
done evacuations, marks those records ``completed`` and keeps the rest
(also the copy of the evacuation still in progress, until it is done).
compute-2 then dies too and comes back under another host name: it
refuses to start and destroys nothing.

The tests run in order on one deployment.
"""

import secrets
from typing import Any

import devstack_support as support
import pytest

from nova_lite.tests.integration import scenario

pytestmark = pytest.mark.integration

C1, C2, C3 = 'compute-1', 'compute-2', 'compute-3'
# compute-3 takes this long to build, so that one evacuation is still
# in progress on it when compute-1 comes back.
SLOW_SPAWN = 300
TIMEOUT = 120


@pytest.fixture(scope='module')
def cloud(three_computes):
    return three_computes


@pytest.fixture(scope='module')
def servers(cloud) -> dict[str, Any]:
    """Six servers on compute-1, one on compute-2, with their disks."""
    suffix = secrets.token_hex(3)
    flavor = scenario.create_flavor(cloud, f'ev-{suffix}')
    image = scenario.create_image(cloud, f'ev-{suffix}')
    names = {
        'a': C1,
        'b': C1,
        'nohost': C1,
        'deleted': C1,
        'slow': C1,
        'kept': C1,
        'other': C2,
    }
    ids = {}
    for host in (C1, C2):
        mine = [n for n, h in names.items() if h == host]
        ids.update(_boot_on(cloud, host, flavor, image, suffix, mine))
    placed = scenario.placement(cloud, list(ids.values()))
    assert placed == {ids[n]: names[n] for n in names}, placed
    disks = {n: _disk(cloud, names[n], ids[n]) for n in names}
    return {'ids': ids, 'disks': disks, 'flavor': flavor, 'image': image}


def _disk(cloud, host: str, server_id: str) -> tuple[int, str]:
    return support.disk_fingerprint(cloud.disk_path(host, server_id))


def _boot_on(
    cloud, host: str, flavor: str, image: str, suffix: str, names: list[str]
) -> dict[str, str]:
    """Boot ``names`` with every other compute disabled; wait ACTIVE."""
    others = [h for h in (C1, C2, C3) if h != host]
    for other in others:
        scenario.set_compute_enabled(cloud, other, enabled=False)
    try:
        ids = {
            name: cloud.openstack(
                'server',
                'create',
                '--flavor',
                flavor,
                '--image',
                image,
                '--no-network',
                f'ev-{suffix}-{name}',
            )['id']
            for name in names
        }
        _wait_status(cloud, ids.values(), 'ACTIVE')
    finally:
        for other in others:
            scenario.set_compute_enabled(cloud, other, enabled=True)
    return ids


def _wait_status(cloud, ids, status: str) -> None:
    def ready() -> bool:
        rows = {
            r['ID']: r['Status']
            for r in cloud.openstack('server', 'list', '--all-projects')
        }
        errors = [i for i in ids if rows.get(i) == 'ERROR']
        assert not errors or status == 'ERROR', f'ERROR: {errors}'
        return all(rows.get(i) == status for i in ids)

    support.wait_for(ready, TIMEOUT, f'servers {status}', interval=1)


def _show(cloud, server_id: str) -> dict[str, Any]:
    return cloud.openstack('server', 'show', server_id)


def _migrations(cloud, *args: str) -> list[dict[str, Any]]:
    return cloud.openstack('server', 'migration', 'list', *args)


def _evacuations(cloud, server_id: str) -> list[dict[str, Any]]:
    # Not --server: that needs the server to exist, and records of
    # deleted servers matter here.
    rows = _migrations(cloud, '--type', 'evacuation')
    return sorted(
        (r for r in rows if r['Server UUID'] == server_id),
        key=lambda r: r['Id'],
    )


def _status(cloud, server_id: str) -> str:
    [row] = _evacuations(cloud, server_id)
    return row['Status']


def _force(cloud, host: str, down: bool, check: bool = True) -> Any:
    return cloud.openstack(
        '--os-compute-api-version',
        '2.53',
        'compute',
        'service',
        'set',
        '--down' if down else '--up',
        host,
        'nova-compute',
        parse=False,
        check=check,
    )


def _evacuate(cloud, server_id: str, *args: str, wait: bool = False) -> None:
    """``openstack server evacuate``. Its ``--wait`` never returns in
    python-openstackclient 10.5 (it compares the lower-cased status with
    'ACTIVE'), so the test polls the server itself."""
    cloud.openstack(
        '--os-compute-api-version',
        '2.29',
        'server',
        'evacuate',
        *args,
        server_id,
    )
    if wait:
        _wait_for(
            'the evacuation to finish',
            lambda: (
                _status(cloud, server_id) != 'accepted'
                and _show(cloud, server_id)['OS-EXT-STS:task_state'] is None
            ),
        )


def _set_option(cloud, name: str, section: str, key: str, value: Any) -> None:
    config = cloud.computes[name].config
    config.write_text(config.read_text() + f'\n[{section}]\n{key} = {value}\n')


def _wait_for(what: str, predicate, timeout: float = TIMEOUT) -> Any:
    return support.wait_for(predicate, timeout, what, interval=1)


def test_evacuate_two_servers_of_a_dead_compute(cloud, servers):
    ids = servers['ids']
    early = cloud.openstack(
        '--os-compute-api-version',
        '2.29',
        'server',
        'evacuate',
        ids['a'],
        parse=False,
        check=False,
    )
    assert early.returncode != 0, early
    assert f'Compute service of {C1} is still in use' in early.stderr, early
    assert cloud.stop_compute(C1) == 0
    _force(cloud, C1, down=True)
    assert scenario.compute_services(cloud)[C1]['State'] == 'down'

    for name in ('a', 'b'):
        _evacuate(cloud, ids[name], wait=True)
    for name in ('a', 'b'):
        shown = _show(cloud, ids[name])
        assert shown['status'] == 'ACTIVE', shown
        host = shown[scenario.HOST_KEY]
        assert host in (C2, C3), shown
        assert cloud.disk_path(host, ids[name]).is_file()
        [row] = _evacuations(cloud, ids[name])
        assert row['Status'] == 'done', row
        assert (row['Source Compute'], row['Dest Compute']) == (C1, host)
        assert row['Type'] == 'evacuation', row
        # Not yet cleaned up: compute-1 is dead.
        assert cloud.disk_path(C1, ids[name]).is_file()


def test_no_valid_host_leaves_an_error_record(cloud, servers):
    server = servers['ids']['nohost']
    for host in (C2, C3):
        scenario.set_compute_enabled(cloud, host, enabled=False)
    try:
        _evacuate(cloud, server)
        _wait_for(
            'the evacuation to fail', lambda: _status(cloud, server) == 'error'
        )
    finally:
        for host in (C2, C3):
            scenario.set_compute_enabled(cloud, host, enabled=True)
    shown = _show(cloud, server)
    assert shown[scenario.HOST_KEY] == C1, shown
    assert shown['OS-EXT-STS:task_state'] is None, shown


def test_evacuated_then_deleted(cloud, servers):
    server = servers['ids']['deleted']
    _evacuate(cloud, server, wait=True)
    host = _show(cloud, server)[scenario.HOST_KEY]
    cloud.openstack('server', 'delete', '--wait', server, parse=False)
    assert not cloud.disk_path(host, server).exists()
    assert cloud.disk_path(C1, server).is_file()
    assert _status(cloud, server) == 'done'


def test_forcing_up_with_done_evacuations_is_refused(cloud, servers):
    refused = _force(cloud, C1, down=False, check=False)
    assert refused.returncode != 0, refused
    # The CLI hides the reason; the API's answer:
    service = scenario.compute_services(cloud)[C1]['ID']
    status, body = cloud.api_call(
        'PUT', f'/v2.1/os-services/{service}', {'forced_down': False}
    )
    assert status == 400, body
    message = body['badRequest']['message']
    assert f'the nova-lite-compute agent on {C1}' in message, body
    assert '3 done' in message, body
    assert scenario.compute_services(cloud)[C1]['State'] == 'down'


def test_source_returns_while_an_evacuation_is_in_progress(cloud, servers):
    """compute-3 builds slowly; compute-1 returns before it is done."""
    ids, disks = servers['ids'], servers['disks']
    server = ids['slow']
    # The build on compute-3 lasts until the hold file goes (at most
    # SLOW_SPAWN), so that compute-1's return surely overlaps it however
    # slow the machine is.
    hold = cloud.workdir / 'slow-build-hold'
    hold.touch()
    assert cloud.stop_compute(C3) == 0
    _set_option(cloud, C3, 'virt_resources', 'spawn_seconds', SLOW_SPAWN)
    _set_option(cloud, C3, 'virt_resources', 'spawn_hold_file', hold)
    cloud.start_compute(C3)
    scenario.set_compute_enabled(cloud, C2, enabled=False)
    try:
        _evacuate(cloud, server, '--host', C3)
        _wait_for(
            'the evacuation to be in progress',
            lambda: _status(cloud, server) == 'pre-migrating',
        )
    finally:
        scenario.set_compute_enabled(cloud, C2, enabled=True)
    cloud.start_compute(C1, up=False)
    # The evacuation may still fail: the source keeps its copy.
    assert _status(cloud, server) == 'pre-migrating'
    assert _disk(cloud, C1, server) == disks['slow']

    # The recovery destroyed exactly the copies of done evacuations.
    for name in ('a', 'b', 'deleted'):
        assert not cloud.disk_path(C1, ids[name]).exists(), name
        assert _status(cloud, ids[name]) == 'completed', name
    for name, host in (('nohost', C1), ('kept', C1), ('other', C2)):
        assert _disk(cloud, host, ids[name]) == disks[name], name
    assert _status(cloud, ids['nohost']) == 'error'
    log = (cloud.logs / f'{C1}.log').read_text()
    assert 'Destroyed the local copy' in log
    assert 'Keeping the local copies of 1 instance(s)' in log

    # The destination finishes; the source cleans up on its next pass
    # (here: its next start). It is stopped first: a periodic pass of the
    # running agent could otherwise clean up before 'done' is seen.
    assert cloud.stop_compute(C1) == 0
    hold.unlink()
    _wait_status(cloud, [server], 'ACTIVE')
    assert _show(cloud, server)[scenario.HOST_KEY] == C3
    assert cloud.disk_path(C3, server).is_file()
    assert _status(cloud, server) == 'done'
    assert _disk(cloud, C1, server) == disks['slow']
    cloud.start_compute(C1, up=False)
    assert not cloud.disk_path(C1, server).exists()
    assert _status(cloud, server) == 'completed'


def test_forcing_up_after_recovery(cloud, servers):
    _force(cloud, C1, down=False)
    scenario.wait_computes_up(cloud, minimum=3)
    shown = _show(cloud, servers['ids']['kept'])
    assert shown['status'] == 'ACTIVE', shown
    assert shown[scenario.HOST_KEY] == C1, shown
    # No valid host left it in ERROR (as upstream), with its copy here;
    # an administrator resets it.
    nohost = servers['ids']['nohost']
    shown = _show(cloud, nohost)
    assert shown['status'] == 'ERROR', shown
    assert 'No valid host' in shown['fault']['message'], shown
    cloud.openstack(
        'server',
        'set',
        '--auto-approve',
        '--state',
        'active',
        nohost,
        parse=False,
    )
    shown = _show(cloud, nohost)
    assert shown['status'] == 'ACTIVE' and shown[scenario.HOST_KEY] == C1
    assert not _migrations(cloud, '--host', C1, '--status', 'done')


def test_renamed_source_destroys_nothing(cloud, servers):
    """compute-2 dies, its server is evacuated, and it comes back with
    another host name: it refuses to start and keeps every file."""
    ids, disks = servers['ids'], servers['disks']
    server = ids['other']
    assert cloud.stop_compute(C2) == 0
    _force(cloud, C2, down=True)
    _evacuate(cloud, server, '--host', C1, wait=True)
    assert _show(cloud, server)[scenario.HOST_KEY] == C1
    assert _status(cloud, server) == 'done'

    config = cloud.computes[C2].config
    original = config.read_text()
    config.write_text(original.replace(f'host = {C2}', 'host = renamed'))
    code, log = cloud.start_compute_expecting_exit(C2)
    assert code == 78, log
    assert 'refuses to start' in log, log
    assert _disk(cloud, C2, server) == disks['other']
    assert _status(cloud, server) == 'done'

    config.write_text(original)
    cloud.start_compute(C2, up=False)
    assert not cloud.disk_path(C2, server).exists()
    assert _status(cloud, server) == 'completed'
    _force(cloud, C2, down=False)
    scenario.wait_computes_up(cloud, minimum=3)
