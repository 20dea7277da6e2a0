"""One host name, one live conductor process: refusal, then fencing.

A deployment with one ``ironic-lite-conductor`` (the API, RabbitMQ and
MariaDB as separate processes). A second process is started with the
same configuration, so the same ``[DEFAULT]host``:

- next to the live conductor, while a step runs: it refuses to start
  and says why; the step is not disturbed;
- while the conductor is frozen (SIGSTOP) but its heartbeat is fresh:
  it refuses too;
- once the frozen conductor's heartbeat is older than the timeout: it
  takes the host name over and resumes the node; when the old process
  wakes up (SIGCONT) its step is fenced at its next checkpoint, it
  writes nothing more and exits, saying it was replaced.

The fake run log (``[fake]run_log``) shows which process ran which
step when: no two processes ever ran a step of the node at the same
time (a frozen process does not run).
"""

from pathlib import Path
import signal
import time
from typing import Any

import devstack_support as support
import pytest

from ironic_lite.tests.integration import fault_injection as faults
from lite_common.tests import integration

#: Long enough for a second process's start-up (imports, database,
#: drivers: 2-3 s here, more on a loaded machine) to reach its
#: registration while the frozen one's heartbeat is still fresh (with 5
#: s, a slow start found it stale and took the name over, as it may).
HEARTBEAT_TIMEOUT = 10
OPTIONS = {
    'conductor': {
        'heartbeat_interval': 1,
        'heartbeat_timeout': HEARTBEAT_TIMEOUT,
        'clean_step_poll_interval': 1,
    }
}
#: The exit status of a process that may not take the host name (1: a
#: restart may succeed once the holder is gone) and of one that found
#: itself replaced (78: a restart cannot fix that).
EXIT_HOST_IN_USE = 1
EXIT_REPLACED = 78


@pytest.fixture(scope='module')
def cloud(request: pytest.FixtureRequest, tmp_path_factory: Any) -> Any:
    import devstack_ironic

    workdir = tmp_path_factory.mktemp('identity')
    dep = devstack_ironic.start(
        workdir, db='mysql', conductors=1, options=OPTIONS
    )
    integration.register_cloud(request, dep)
    try:
        dep.node = _enroll(dep)
        yield dep
    finally:
        codes = dep.stop()
    unexpected = {
        name: code
        for name, code in codes.items()
        if code not in (0, None) and not name.startswith('twin')
    }
    assert not unexpected, f'services did not exit cleanly: {unexpected}'


def _api(cloud: Any, method: str, path: str, body: Any = None) -> Any:
    status, answer = cloud.api_call(method, path, body)
    assert status < 300, (method, path, status, answer)
    return answer


def _node(cloud: Any) -> dict[str, Any]:
    return _api(cloud, 'GET', f'/v1/nodes/{cloud.node}')


def _wait_node(
    cloud: Any, states: set[str], timeout: float = 90
) -> dict[str, Any]:
    def settled() -> dict[str, Any] | None:
        node = _node(cloud)
        return (
            node
            if (
                node['provision_state'] in states
                and node['reservation'] is None
            )
            else None
        )

    return support.wait_for(settled, timeout, f'the node to be in {states}')


def _enroll(cloud: Any) -> str:
    uuid = _api(
        cloud,
        'POST',
        '/v1/nodes',
        {'driver': 'fake-hardware', 'name': 'ident-1'},
    )['uuid']
    cloud.node = uuid
    _api(
        cloud,
        'PUT',
        f'/v1/nodes/{uuid}/states/provision',
        {'target': 'manage'},
    )
    _wait_node(cloud, {'manageable'})
    return uuid


def _clean(cloud: Any, tag: str, seconds: float) -> None:
    _api(
        cloud,
        'PUT',
        f'/v1/nodes/{cloud.node}/states/provision',
        {
            'target': 'clean',
            'clean_steps': [
                {
                    'interface': 'deploy',
                    'step': 'repeatable_work',
                    'args': {'seconds': seconds, 'tag': tag},
                }
            ],
        },
    )


def _runs(cloud: Any, tag: str) -> list[faults.Run]:
    runs, _offset = faults.read_runs(cloud.run_log, 0)
    return [run for run in runs if run.tag == tag]


def _wait_started(cloud: Any, tag: str) -> faults.Run:
    return support.wait_for(
        lambda: next(iter(_runs(cloud, tag)), None),
        60,
        f'step {tag} to start',
        interval=0.1,
    )


def _exit_code(cloud: Any, name: str, timeout: float) -> int:
    proc = cloud.procs[name]
    support.wait_for(proc.dead, timeout, f'{name} to exit', interval=0.2)
    code = proc.returncode()
    assert code is not None
    return code


def _log(cloud: Any, name: str) -> str:
    return (Path(cloud.logs) / f'{name}.log').read_text(errors='replace')


def _start_twin(cloud: Any, name: str) -> None:
    """A second conductor process with conductor-1's configuration."""
    cloud.spawn(name, 'ironic-lite-conductor', cloud.conductors['conductor-1'])


def _overlaps(runs: list[faults.Run], injector: Any) -> list[str]:
    return faults.check_runs(runs, injector, max_attempts=3)


def test_a_duplicate_next_to_a_live_conductor_refuses_to_start(
    cloud: Any,
) -> None:
    _clean(cloud, 'live-twin', 6)
    first = _wait_started(cloud, 'live-twin')
    _start_twin(cloud, 'twin-live')
    assert _exit_code(cloud, 'twin-live', 60) == EXIT_HOST_IN_USE
    log = _log(cloud, 'twin-live')
    assert 'conductor-1' in log and 'live' in log, log[-2000:]
    assert 'ironic-lite-manage conductor release' in log, log[-2000:]
    node = _wait_node(cloud, {'manageable'})
    runs = _runs(cloud, 'live-twin')
    assert [(run.pid, run.outcome) for run in runs] == [(first.pid, 'done')], (
        runs
    )
    assert node['last_error'] is None
    assert cloud.procs['conductor-1'].alive()


def test_a_frozen_conductor_is_replaced_only_once_dead_and_is_fenced(
    cloud: Any,
) -> None:
    injector = faults.Injector(cloud, HEARTBEAT_TIMEOUT)
    _clean(cloud, 'frozen-twin', 20)
    first = _wait_started(cloud, 'frozen-twin')
    old = cloud.procs['conductor-1']
    stopped = time.time()
    cloud.pause('conductor-1')
    try:
        # Its heartbeat is fresh: the host name is not free yet.
        _start_twin(cloud, 'twin-early')
        assert _exit_code(cloud, 'twin-early', 60) == EXIT_HOST_IN_USE
        # Past the heartbeat timeout, a new process takes the name over
        # and resumes the step (idempotent: it runs again).
        time.sleep(max(0.0, stopped + HEARTBEAT_TIMEOUT + 2 - time.time()))
        _start_twin(cloud, 'twin-late')
        support.wait_for(
            lambda: len(_runs(cloud, 'frozen-twin')) >= 2,
            60,
            'the replacement to resume the step',
            interval=0.2,
        )
    finally:
        support.signal_pid(old.pid, signal.SIGCONT)
        injector.frozen.setdefault(old.pid, []).append((stopped, time.time()))
    assert _exit_code(cloud, 'conductor-1', 60) == EXIT_REPLACED
    assert 'replaced' in _log(cloud, 'conductor-1')
    node = _wait_node(cloud, {'manageable'}, timeout=120)
    runs = _runs(cloud, 'frozen-twin')
    outcomes = {run.pid: run.outcome for run in runs}
    assert outcomes[first.pid] == 'fenced', runs
    assert outcomes[cloud.procs['twin-late'].pid] == 'done', runs
    assert not _overlaps(runs, injector), runs
    assert node['last_error'] is None
    # The replacement is the conductor-1 of the deployment from now on.
    cloud.procs['conductor-1'] = cloud.procs.pop('twin-late')
    _clean(cloud, 'after-twin', 0.5)
    _wait_node(cloud, {'manageable'})
    assert [run.pid for run in _runs(cloud, 'after-twin')] == [
        cloud.procs['conductor-1'].pid
    ]
