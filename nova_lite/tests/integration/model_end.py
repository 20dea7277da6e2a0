"""The end of a model sequence: everything back, settled, then the
issue's strict invariants; and the clean slate between sequences.

1. SIGCONT every frozen process; start the API if it is dead; restart
   the conductor and every agent (start the dead ones; an agent whose
   service record was deleted registers again).
2. Wait until nothing moves. An instance still in a task is *stuck*, a
   defect: agents resume their steps of every move at start-up (and
   stalled ones while they run), the conductor drives again the moves it
   lost before any destination took them.
3. Unset forced-down (refused while the host has not cleaned up:
   retried, bounded), wait until every compute is up.
4. Wait (bounded) until the strict invariants hold.
5. Delete every server; their disk files must go.
"""

import time
from typing import TYPE_CHECKING

import devstack_support as support

from nova_lite.tests.integration import model
from nova_lite.tests.integration.model_cloud import API
from nova_lite.tests.integration.model_cloud import CONDUCTOR
from nova_lite.tests.integration.model_cloud import DEAD
from nova_lite.tests.integration.model_cloud import PAUSED
from nova_lite.tests.integration.model_cloud import RUNNING

if TYPE_CHECKING:
    from nova_lite.tests.integration.model_run import Sequence

END_TIMEOUT = 150
UNFORCE_TIMEOUT = 90
STRICT_TIMEOUT = 60
TEARDOWN_TIMEOUT = 90


def check_clean(seq: 'Sequence') -> None:
    """The slate a sequence starts from: no instance, no disk file,
    every process running, every compute up and not forced down."""
    snap = seq.cloud.snapshot()
    services = seq.cloud.services()
    dirty = [f'{uuid} live' for uuid in snap.records.instances]
    dirty += [
        f'disk files of {uuid}'
        for uuid in set(snap.files.disks) | set(snap.files.asides)
    ]
    dirty += [
        f'{name} {state}'
        for name, state in seq.cloud.procs.items()
        if state != RUNNING
    ]
    dirty += [
        f'{host} {s["state"]} forced_down={s["forced_down"]}'
        for host, s in services.items()
        if s['state'] != 'up' or s['forced_down']
    ]
    if dirty:
        raise RuntimeError(f'the deployment is not clean: {dirty}')


def _restart_everything(seq: 'Sequence') -> None:
    cloud = seq.cloud
    for name, state in list(cloud.procs.items()):
        if state == PAUSED:
            cloud.resume(name)
    if cloud.procs[API] == DEAD:
        cloud.start(API)
    for name in [CONDUCTOR, *cloud.hosts]:
        if cloud.procs[name] == DEAD:
            cloud.start(name)
        else:
            cloud.restart(name)
    cloud.wait_started(min(120, seq.remaining()))


def _stuck(seq: 'Sequence', snap: model.Snapshot) -> list[str]:
    """Every instance still in a task once everything restarted and
    settled: nothing may be left for an operator to reset (agents resume
    their steps, the conductor drives moves it lost again)."""
    return [
        f'STUCK {inst.uuid} in {inst.vm_state}/{inst.task_state} after '
        f'every agent restarted: {model.describe(snap, inst)}'
        for inst in snap.records.instances.values()
        if inst.task_state is not None
    ]


def _unforce(seq: 'Sequence') -> list[str]:
    """Unset forced_down everywhere, retrying while it is refused."""
    end = time.monotonic() + min(UNFORCE_TIMEOUT, seq.remaining())
    refused: dict[str, str] = {}
    for host, service in seq.cloud.services().items():
        while service['forced_down']:
            answer = seq.cloud.force(host, False)
            if answer.ok:
                refused.pop(host, None)
                break
            refused[host] = str(answer)
            if time.monotonic() > end:
                break
            time.sleep(2)
    return [
        f'FORCED DOWN STAYS {host}: {answer}'
        for host, answer in refused.items()
    ]


def _strict(seq: 'Sequence') -> list[str]:
    end = time.monotonic() + min(STRICT_TIMEOUT, seq.remaining())
    while True:
        seq.snap = seq.cloud.snapshot()
        found = model.strict_violations(seq.snap)
        if not found or time.monotonic() > end:
            return found
        time.sleep(1)


def finish(seq: 'Sequence') -> None:
    """Steps 1 to 5 of the module's docstring."""
    _restart_everything(seq)
    snap = seq.quiesce(END_TIMEOUT)
    found = _stuck(seq, snap)
    found += _unforce(seq)
    if not found:
        seq.cloud.dep.wait_services_up(timeout=min(90, seq.remaining()))
        found = _strict(seq)
    if found:
        seq.fail(
            'strict invariants broken after every agent restarted and settled',
            found,
        )
    _teardown(seq)


def _teardown(seq: 'Sequence') -> None:
    """Delete every server; no record and no disk file may stay."""
    cloud = seq.cloud
    for uuid in list(cloud.snapshot().records.instances):
        answer = cloud.delete(uuid)
        assert answer.status in (204, 404), answer

    def gone() -> bool:
        snap = cloud.snapshot()
        seq.snap = snap
        return not (
            snap.records.instances or snap.files.disks or snap.files.asides
        )

    try:
        support.wait_for(
            gone,
            min(TEARDOWN_TIMEOUT, seq.remaining()),
            'deleted servers and their disks to go',
        )
    except TimeoutError as exc:
        assert seq.snap is not None
        seq.fail(f'teardown: {exc}', [model.summary(seq.snap)])
