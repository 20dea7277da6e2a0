"""Evacuation under crashes and freezes of real agent processes (three
computes, RabbitMQ + MariaDB, local driver), driven by the openstack CLI
and the API: the defects of the "no instance lost" issue that need a
process frozen (SIGSTOP/SIGCONT) or killed (SIGKILL) to happen.

The tests run in order on one deployment; each leaves every compute
running, up and not forced down.
"""

import re
import secrets
import signal
from typing import Any

import devstack_support as support
import pytest

from nova_lite.tests.integration import scenario
from nova_lite.tests.integration import test_evacuate as ev

pytestmark = pytest.mark.integration

C1, C2, C3 = 'compute-1', 'compute-2', 'compute-3'
TIMEOUT = 120
# The destination's build time in the crash test: long enough to kill it
# while it rebuilds.
SLOW_SPAWN = 30
#: The compute agent's debug line at the end of each housekeeping pass.
HOUSEKEEPING_DONE = re.compile(rb'Housekeeping pass done')


@pytest.fixture(scope='module')
def cloud(three_computes):
    return three_computes


@pytest.fixture(scope='module')
def refs(cloud) -> dict[str, str]:
    suffix = secrets.token_hex(3)
    return {
        'flavor': scenario.create_flavor(cloud, f'safe-{suffix}'),
        'image': scenario.create_image(cloud, f'safe-{suffix}'),
        'suffix': suffix,
    }


def _boot_on(cloud, refs, host: str, name: str) -> str:
    ids = ev._boot_on(
        cloud, host, refs['flavor'], refs['image'], refs['suffix'], [name]
    )
    return ids[name]


def _signal(cloud, name: str, signum: int) -> None:
    support.signal_pid(cloud.procs[name].pid, signum)


def _wait(what: str, predicate: Any, timeout: float = TIMEOUT) -> Any:
    return support.wait_for(predicate, timeout, what, interval=1)


def _state(cloud, host: str) -> str:
    return scenario.compute_services(cloud)[host]['State']


def _restart(cloud, name: str, up: bool = True, **options: Any) -> None:
    """Stop compute ``name`` (SIGTERM) and start it again, with extra
    [DEFAULT] options from now on; with ``up``, until its service is up
    (a forced-down one stays down) and its first housekeeping pass (due
    soon after start) has run, so that the next one is a whole
    ``cleanup_interval`` away."""
    assert cloud.stop_compute(name) == 0
    for key, value in options.items():
        ev._set_option(cloud, name, 'DEFAULT', key, value)
    offset = cloud.log_offset(name)
    cloud.start_compute(name, up=up)
    if up:
        cloud.wait_logged(
            name,
            HOUSEKEEPING_DONE,
            offset,
            120,
            f'the first housekeeping pass of {name}',
        )


def _freeze_and_evacuate(cloud, server: str) -> None:
    """Freeze compute-1 (SIGSTOP) until it is down, evacuate ``server``
    and wait until the evacuation is done, then resume compute-1 (its
    process goes on: no restart)."""
    _signal(cloud, C1, signal.SIGSTOP)
    try:
        _wait('compute-1 down', lambda: _state(cloud, C1) == 'down')
        ev._evacuate(cloud, server, wait=True)
    finally:
        _signal(cloud, C1, signal.SIGCONT)


def _migrate_to(cloud, server: str, host: str) -> dict[str, Any]:
    """Cold migrate to ``host``; the migration record once it ended or
    reached VERIFY_RESIZE."""
    status, body = cloud.api_call(
        'POST',
        f'/v2.1/servers/{server}/action',
        {'migrate': {'host': host}},
        version='2.56',
    )
    assert status == 202, body

    def ended() -> Any:
        rows = [
            r
            for r in ev._migrations(cloud, '--type', 'cold-migration')
            if r['Server UUID'] == server
        ]
        row = max(rows, key=lambda r: r['Id']) if rows else None
        return (
            row
            if row and row['Status'] in ('finished', 'error', 'failed')
            else None
        )

    return _wait('the migration to end', ended)


def test_frozen_source_converges_without_a_restart(cloud, refs):
    """compute-1 freezes past service_down_time, a server is evacuated,
    then it resumes (no restart): it destroys that stale copy by itself,
    and nothing else."""
    _restart(cloud, C1, cleanup_interval=3)
    server = _boot_on(cloud, refs, C1, 'thaw')
    kept = _boot_on(cloud, refs, C1, 'kept')
    _freeze_and_evacuate(cloud, server)
    dest = ev._show(cloud, server)[scenario.HOST_KEY]
    _wait(
        'compute-1 to clean up',
        lambda: (
            not cloud.disk_path(C1, server).exists()
            and ev._status(cloud, server) == 'completed'
        ),
    )
    assert cloud.disk_path(dest, server).is_file()
    _wait('compute-1 up', lambda: _state(cloud, C1) == 'up')
    shown = ev._show(cloud, kept)
    assert shown['status'] == 'ACTIVE' and shown[scenario.HOST_KEY] == C1
    assert cloud.disk_path(C1, kept).is_file()


def test_stale_done_record_never_destroys_a_server_moved_back(cloud, refs):
    """The reported sequence: freeze, evacuate, resume, migrate back,
    confirm, restart. Until compute-1 cleaned up it is no candidate; once
    it did, the server moved back keeps its disk across restarts."""
    _restart(cloud, C1, cleanup_interval=3600)
    server = _boot_on(cloud, refs, C1, 'back')
    _freeze_and_evacuate(cloud, server)
    _wait('compute-1 up', lambda: _state(cloud, C1) == 'up')
    assert ev._status(cloud, server) == 'done'
    refused = _migrate_to(cloud, server, C1)
    assert refused['Status'] == 'error', refused
    dest = ev._show(cloud, server)[scenario.HOST_KEY]
    assert dest != C1 and cloud.disk_path(dest, server).is_file()

    _restart(cloud, C1)  # cleans up at start
    assert not cloud.disk_path(C1, server).exists()
    assert ev._status(cloud, server) == 'completed'
    moved = _migrate_to(cloud, server, C1)
    assert moved['Status'] == 'finished', moved
    cloud.openstack('server', 'resize', 'confirm', server, parse=False)
    _wait(
        'the server ACTIVE on compute-1',
        lambda: (
            (s := ev._show(cloud, server))['status'] == 'ACTIVE'
            and s[scenario.HOST_KEY] == C1
        ),
    )
    _restart(cloud, C1)
    shown = ev._show(cloud, server)
    assert shown['status'] == 'ACTIVE' and shown[scenario.HOST_KEY] == C1
    assert cloud.disk_path(C1, server).is_file()


def test_crash_during_the_destination_rebuild(cloud, refs):
    """compute-2 is killed while it rebuilds an evacuated server; the
    source comes back first and keeps its copy; compute-2 resumes the
    rebuild when it starts again, and only then the source cleans up."""
    server = _boot_on(cloud, refs, C1, 'crash')
    assert cloud.stop_compute(C2) == 0
    ev._set_option(cloud, C2, 'virt_resources', 'spawn_seconds', SLOW_SPAWN)
    cloud.start_compute(C2)
    assert cloud.stop_compute(C1) == 0
    ev._force(cloud, C1, down=True)
    ev._evacuate(cloud, server, '--host', C2)
    _wait(
        'the rebuild to start',
        lambda: ev._status(cloud, server) == 'pre-migrating',
    )
    cloud.kill(C2)
    cloud.start_compute(C1, up=False)  # the source is back first
    assert cloud.disk_path(C1, server).is_file()
    assert ev._status(cloud, server) == 'pre-migrating'
    ev._set_option(cloud, C2, 'virt_resources', 'spawn_seconds', 0)
    cloud.start_compute(C2)
    _wait(
        'the rebuild resumed on compute-2',
        lambda: (
            (s := ev._show(cloud, server))['status'] == 'ACTIVE'
            and s[scenario.HOST_KEY] == C2
        ),
    )
    assert cloud.disk_path(C2, server).is_file()
    assert ev._status(cloud, server) == 'done'
    _restart(cloud, C1, up=False)
    assert not cloud.disk_path(C1, server).exists()
    assert ev._status(cloud, server) == 'completed'
    ev._force(cloud, C1, down=False)
    scenario.wait_computes_up(cloud, minimum=3)
