"""The model test's ``replace`` fault (issue 29): a second
nova-lite-compute started with the configuration of a host's agent
(its host name, state_path and compute_id file), as a restart racing a
hung process or a unit started twice would.

- Next to a running agent, or a frozen one whose heartbeat is still
  fresh: the second process must be refused (exit 1) and touch nothing.
- Next to a frozen agent whose service is down: the second process takes
  the host name over and becomes the host's agent; the frozen one is
  then woken (SIGCONT) and must exit (78: replaced; 1 when it was frozen
  before it took the name) without destroying anything. The invariants
  checked after every step (no disk, marker or link lost) say whether
  it did.
"""

import signal
import subprocess
from typing import Any

import devstack_support as support

from nova_lite.tests.integration.model_cloud import PAUSED
from nova_lite.tests.integration.model_steps import Step

#: A refused process exits once it reached the conductor (which runs).
REFUSED_TIMEOUT = 90
#: A woken replaced agent stops at its next heartbeat, after its
#: running requests end.
STOP_TIMEOUT = 90
EXIT_IN_USE = 1
EXIT_REPLACED = 78
#: The first steps of a sequence whose seed is a multiple of
#: OPENING_EVERY (CI's first sequence among them), whatever the seed
#: would draw: both cases of the fault, a server booted first.
OPENING = (
    Step('boot', ['s0']),
    Step('replace', ['compute-1']),
    Step('pause', ['compute-2']),
    Step('wait_down', ['compute-2']),
    Step('replace', ['compute-2']),
)
OPENING_EVERY = 100


def opening(seed: int) -> list[Step]:
    """The fixed first steps of the sequence of ``seed`` (often none)."""
    return (
        [Step(s.action, list(s.args)) for s in OPENING]
        if (seed % OPENING_EVERY == 0)
        else []
    )


def replace(cloud: Any, host: str) -> str:
    """Start a second agent of ``host``; what happened."""
    state = cloud.procs[host]
    down = cloud.services().get(host, {}).get('state') == 'down'
    if state == PAUSED and down:
        return _take_over(cloud, host)
    return _refused(cloud, host, 'frozen' if state == PAUSED else state)


def _wait_exit(
    cloud: Any, name: str, proc: Any, timeout: float, what: str
) -> int:
    try:
        return int(proc.popen.wait(timeout))
    except subprocess.TimeoutExpired:
        cloud.dep.terminate([name])
        raise AssertionError(
            f'{what}: still running after {timeout} s\n'
            + support.tail(cloud.dep.logs / f'{name}.log')
        )


def _refused(cloud: Any, host: str, holder: str) -> str:
    name = f'{host}-twin'
    offset = cloud.dep.log_offset(name)
    proc = cloud.dep.spawn(
        name, 'nova-lite-compute', cloud.dep.computes[host].config
    )
    proc.stopped = True  # its exit is expected
    code = _wait_exit(
        cloud,
        name,
        proc,
        REFUSED_TIMEOUT,
        f'a second agent of {host} ({holder} holder)',
    )
    with open(cloud.dep.logs / f'{name}.log', 'rb') as handle:
        handle.seek(offset)
        log = handle.read().decode('utf-8', 'replace')
    assert code == EXIT_IN_USE and 'refuses to start' in log, (
        f'a second agent of {host} next to a {holder} one: exit {code}\n'
        + log[-3000:]
    )
    return f'refused next to a {holder} agent'


def _take_over(cloud: Any, host: str) -> str:
    dep = cloud.dep
    old = dep.procs.pop(host)
    old.stopped = True
    dep.procs[f'{host}-replaced-{old.pid}'] = old
    cloud.start(host)
    cloud.wait_started()
    support.signal_pid(old.pid, signal.SIGCONT)
    code = _wait_exit(
        cloud,
        old.name,
        old,
        STOP_TIMEOUT,
        f'the replaced agent of {host} (pid {old.pid})',
    )
    assert code in (EXIT_REPLACED, EXIT_IN_USE), (
        f'the replaced agent of {host} exited {code}'
    )
    return f'took over from a frozen agent, which exited {code}'
