"""Two nova-lite-compute processes under one host name (issue 29), with
real agents (RabbitMQ + MariaDB, local driver), SIGSTOP and SIGCONT.

The second process is started with the first one's configuration (its
host name, state_path and compute_id file), as a restart racing a hung
process or a unit started twice would. Before the fix both ran: the
second resumed the evacuation the first was rebuilding, and whichever
finished last found the server placed by the other and deleted the
disk of the live server. Now a second process is refused (exit 1) while
the first is alive, and a first process that was frozen, found dead and
replaced destroys nothing when it wakes up and stops (exit 78).

The tests run in order on one deployment; each leaves every compute
running, up and not forced down.
"""

import re
import secrets
import signal
import time
from typing import Any

import devstack_support as support
import pytest

from nova_lite.tests.integration import scenario
from nova_lite.tests.integration import test_evacuate as ev

pytestmark = pytest.mark.integration

C1, C2 = 'compute-1', 'compute-2'
TWIN = 'compute-2-twin'
TIMEOUT = 120
#: A rebuild on compute-2 lasts while this file exists (at most this
#: many seconds): the test decides when it ends.
HOLD_SECONDS = 300
#: Seconds for a second rebuild to end after the first one did.
SETTLE = 5
RESUMING = re.compile(rb'Resuming evacuation')
HOLDS = re.compile(rb'holds the host name as incarnation')


@pytest.fixture(scope='module')
def cloud(three_computes):
    return three_computes


@pytest.fixture(scope='module')
def refs(cloud) -> dict[str, str]:
    suffix = secrets.token_hex(3)
    return {
        'flavor': scenario.create_flavor(cloud, f'twin-{suffix}'),
        'image': scenario.create_image(cloud, f'twin-{suffix}'),
        'suffix': suffix,
    }


def _wait(what: str, predicate: Any, timeout: float = TIMEOUT) -> Any:
    return support.wait_for(predicate, timeout, what, interval=1)


def _state(cloud, host: str) -> str:
    return scenario.compute_services(cloud)[host]['State']


def _hold_rebuilds(cloud) -> Any:
    """compute-2 restarted with rebuilds held on a file; the file."""
    hold = cloud.workdir / 'twin-hold'
    assert cloud.stop_compute(C2) == 0
    ev._set_option(cloud, C2, 'virt_resources', 'spawn_seconds', HOLD_SECONDS)
    ev._set_option(cloud, C2, 'virt_resources', 'spawn_hold_file', hold)
    cloud.start_compute(C2)
    return hold


def _evacuate_to_c2(cloud, refs, name: str) -> str:
    """A server of compute-1 evacuated to compute-2, whose rebuild is
    held: compute-1 is stopped and forced down."""
    server = ev._boot_on(
        cloud, C1, refs['flavor'], refs['image'], refs['suffix'], [name]
    )[name]
    assert cloud.stop_compute(C1) == 0
    ev._force(cloud, C1, down=True)
    ev._evacuate(cloud, server, '--host', C2)
    _wait(
        'the rebuild to start',
        lambda: ev._status(cloud, server) == 'pre-migrating',
    )
    return server


def _active_on_c2(cloud, server: str) -> None:
    _wait(
        'the server ACTIVE on compute-2',
        lambda: (
            (s := ev._show(cloud, server))['status'] == 'ACTIVE'
            and s[scenario.HOST_KEY] == C2
        ),
    )
    assert ev._status(cloud, server) == 'done'


def _start_twin(cloud) -> Any:
    offset = cloud.log_offset(TWIN)
    proc = cloud.spawn(TWIN, 'nova-lite-compute', cloud.computes[C2].config)
    proc.stopped = True  # it is expected to exit
    return proc, offset


def _twin_log(cloud, offset: int) -> str:
    with open(cloud.logs / f'{TWIN}.log', 'rb') as handle:
        handle.seek(offset)
        return handle.read().decode('utf-8', 'replace')


def _back_to_normal(cloud, hold) -> None:
    """Every compute running as itself, rebuilds not held."""
    hold.unlink(missing_ok=True)
    cloud.terminate([TWIN])
    if cloud.procs[C2].alive():
        assert cloud.stop_compute(C2) == 0
    ev._set_option(cloud, C2, 'virt_resources', 'spawn_seconds', 0)
    cloud.start_compute(C2)
    if not cloud.procs[C1].alive():
        cloud.start_compute(C1, up=False)
    ev._force(cloud, C1, down=False)
    scenario.wait_computes_up(cloud, minimum=3)


def test_a_second_agent_is_refused_while_the_first_lives(cloud, refs):
    """While compute-2 rebuilds an evacuated server, a second process
    with its configuration starts: it is refused, names the live one,
    and the server's disk survives the rebuild's end."""
    hold = _hold_rebuilds(cloud)
    hold.write_text('held')
    try:
        server = _evacuate_to_c2(cloud, refs, 'live')
        twin, offset = _start_twin(cloud)
        # Before the fix the twin ran: wait until it took the rebuild
        # up (or exited), then let both rebuilds end.
        _wait(
            'the second process to exit or resume the evacuation',
            lambda: not twin.alive() or cloud.logged(TWIN, RESUMING, offset),
        )
        hold.unlink()
        _active_on_c2(cloud, server)
        time.sleep(SETTLE)  # the other rebuild, if any, ends
        assert cloud.disk_path(C2, server).is_file()
        _wait('the second process to end', lambda: not twin.alive(), 30)
        log = _twin_log(cloud, offset)
        assert twin.returncode() == 1, log
        assert 'nova-lite-compute refuses to start' in log, log
        assert f'pid {cloud.procs[C2].pid} on' in log, log
        assert 'nova-lite-manage compute release compute-2' in log, log
        assert cloud.procs[C2].alive()
        _wait(
            'the server still ACTIVE with its disk',
            lambda: ev._show(cloud, server)['status'] == 'ACTIVE',
            10,
        )
        assert cloud.disk_path(C2, server).is_file()
    finally:
        _back_to_normal(cloud, hold)


def test_a_frozen_agent_replaced_destroys_nothing_and_stops(cloud, refs):
    """compute-2 freezes (SIGSTOP) while it rebuilds; once its service is
    down a second process takes the host name over and finishes the
    rebuild; compute-2 then wakes (SIGCONT): it finds the server placed
    by the other, but destroys nothing and exits 78."""
    hold = _hold_rebuilds(cloud)
    hold.write_text('held')
    old = cloud.procs[C2]
    try:
        server = _evacuate_to_c2(cloud, refs, 'frozen')
        support.signal_pid(old.pid, signal.SIGSTOP)
        _wait('compute-2 down', lambda: _state(cloud, C2) == 'down')
        twin, offset = _start_twin(cloud)
        twin.stopped = False
        _wait(
            'the second process to take the host name',
            lambda: cloud.logged(TWIN, HOLDS, offset) or not twin.alive(),
        )
        assert twin.alive(), _twin_log(cloud, offset)
        _wait(
            'the second process to resume the evacuation',
            lambda: cloud.logged(TWIN, RESUMING, offset),
        )
        hold.unlink()
        _active_on_c2(cloud, server)
        old.stopped = True
        support.signal_pid(old.pid, signal.SIGCONT)
        _wait('the frozen process to stop', lambda: not old.alive(), 60)
        assert old.returncode() == 78
        assert twin.alive()
        assert cloud.disk_path(C2, server).is_file()
        assert ev._show(cloud, server)['status'] == 'ACTIVE'
        assert cloud.terminate([TWIN])[TWIN] == 0
    finally:
        support.signal_pid(old.pid, signal.SIGCONT)
        _back_to_normal(cloud, hold)


def test_list_and_release_let_a_new_agent_take_a_frozen_ones_name(cloud):
    """``compute list`` names the process holding each host name;
    ``compute release`` of a frozen agent's name lets a new process
    start at once (no waiting for service_down_time); the frozen one,
    woken, stops (exit 78)."""
    C3 = 'compute-3'
    twin_name = f'{C3}-twin'
    old = cloud.procs[C3]
    listing = cloud.manage('compute', 'list')
    assert listing.returncode == 0, listing
    assert f'{C3}: up, last heartbeat' in listing.stdout, listing.stdout
    assert f'held by pid {old.pid} on' in listing.stdout, listing.stdout
    support.signal_pid(old.pid, signal.SIGSTOP)
    try:
        released = cloud.manage('compute', 'release', C3)
        assert released.returncode == 0, released
        assert f'Released compute host name {C3}' in released.stdout
        offset = cloud.log_offset(twin_name)
        twin = cloud.spawn(
            twin_name, 'nova-lite-compute', cloud.computes[C3].config
        )
        twin.stopped = True
        _wait(
            'the new process to take the host name',
            lambda: cloud.logged(twin_name, HOLDS, offset) or not twin.alive(),
        )
        assert twin.alive()
        old.stopped = True
        support.signal_pid(old.pid, signal.SIGCONT)
        _wait('the released process to stop', lambda: not old.alive(), 60)
        assert old.returncode() == 78
        assert cloud.terminate([twin_name])[twin_name] == 0
    finally:
        support.signal_pid(old.pid, signal.SIGCONT)
        cloud.terminate([twin_name, C3])
        cloud.start_compute(C3)
    scenario.wait_computes_up(cloud, minimum=3)
