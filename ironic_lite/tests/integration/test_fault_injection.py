"""Randomized fault injection: three conductors, RabbitMQ and MariaDB.

Each run resets the nodes to ``manageable`` and cleans them, each with a
random plan (manual steps of random durations, idempotent or not, an
asynchronous step, a hold, or automated cleaning), while faults hit the
deployment at random moments (``kill -9``, SIGTERM, SIGSTOP past the
heartbeat timeout, a second process started with a conductor's host
name next to it or while it is frozen, killed database connections,
closed broker connections, an API restart) and concurrent clients PATCH
the nodes, abort, set and unset maintenance and ask for provision
actions. Then,
within a bound derived from the timeouts:

- every node ends in ``available``, ``manageable``, ``clean failed`` or
  ``clean hold``, unlocked, a ``clean failed`` one with ``last_error``;
- a step that is not idempotent ran at most once, an idempotent one at
  most ``[conductor]clean_step_max_attempts`` times;
- no two conductors ran a step of one node at overlapping times (a
  paused conductor does not run; see fault_injection.check_runs);
- no run was fenced (lost its lock) unless its conductor was paused;
- every PATCH answered 200 is stored.

CI runs ``IRONIC_LITE_FAULT_RUNS`` runs (default 2) from seed
``IRONIC_LITE_FAULT_SEED`` (default 1313); a failure names the seed of
its run. The long run (see doc/source/contributor/testing.rst)::

    IRONIC_LITE_FAULT_RUNS=100 .venv/bin/python -m pytest -s \\
        -p no:cacheprovider \\
        ironic_lite/tests/integration/test_fault_injection.py
"""

import os
import random
import threading
import time
from typing import Any

import pytest

from ironic_lite.tests.integration import fault_injection as faults
from lite_common.tests import integration

RUNS = int(os.environ.get('IRONIC_LITE_FAULT_RUNS', '2'))
SEED = int(os.environ.get('IRONIC_LITE_FAULT_SEED', '1313'))
NODES = 6
HEARTBEAT_TIMEOUT = 5
MAX_ATTEMPTS = 3
OPTIONS = {
    'conductor': {
        'heartbeat_interval': 1,
        'heartbeat_timeout': HEARTBEAT_TIMEOUT,
        'clean_step_poll_interval': 1,
        'clean_callback_timeout': 120,
        'clean_step_max_attempts': MAX_ATTEMPTS,
        'workers_pool_size': 20,
    },
    'api': {'conductor_call_timeout': 3},
}
#: Seconds every node has to settle once the faults are over: the
#: longest plan (4 steps of 8 s, twice if resumed), takeovers (the
#: heartbeat timeout and a takeover run each), and a margin for a
#: loaded machine.
SETTLE = 2 * 4 * 8 + 3 * HEARTBEAT_TIMEOUT + 90
FINAL = ('available', 'manageable', 'clean failed', 'clean hold')
FAULTS = (
    'kill9',
    'sigterm',
    'sigstop',
    'db_kill',
    'broker',
    'api_restart',
    'replace',
)


@pytest.fixture(scope='module')
def cloud(request: pytest.FixtureRequest, tmp_path_factory: Any) -> Any:
    import devstack_ironic

    workdir = tmp_path_factory.mktemp('faults')
    dep = devstack_ironic.start(
        workdir, db='mysql', conductors=3, step_delay=0.3, options=OPTIONS
    )
    integration.register_cloud(request, dep)
    dep.killed = set()
    try:
        dep.uuids = _enroll(dep)
        yield dep
    finally:
        codes = dep.stop()
    bad = {name: code for name, code in codes.items() if code != 0}
    assert not bad, f'services did not exit cleanly: {bad}'


def _api(cloud: Any, method: str, path: str, body: Any = None) -> Any:
    """The test's own requests, retried on 409 and 503 as the clients
    do (a conductor still reconnecting to the broker, a node locked a
    moment by a periodic task).

    A 503 on a provision action may come after the conductor did it
    ("no conductor answered in time": it was slow, not idle), and so may
    a 409 (the first conductor did not answer in time, the API asked the
    next one, which found the node locked by the first, still doing
    it): a retry then finds the node moved on, a 400 naming its new
    state, and the action counts as done."""
    maybe_done = False
    for _attempt in range(20):
        status, answer = cloud.api_call(method, path, body)
        if (
            maybe_done
            and status == 400
            and 'cannot be performed on node' in str(answer)
        ):
            return None
        if status not in (409, 503):
            break
        maybe_done = maybe_done or path.endswith('/provision')
        time.sleep(0.5)
    assert status < 300, (method, path, status, answer)
    return answer


def _enroll(cloud: Any) -> list[str]:
    uuids = [
        _api(
            cloud,
            'POST',
            '/v1/nodes',
            {'driver': 'fake-hardware', 'name': f'fi-{index}'},
        )['uuid']
        for index in range(NODES)
    ]
    for node_uuid in uuids:
        _api(
            cloud,
            'PUT',
            f'/v1/nodes/{node_uuid}/states/provision',
            {'target': 'manage'},
        )
    faults.settle(cloud, 60, {'manageable'})
    return uuids


def _reset(cloud: Any) -> None:
    """Every node manageable, out of maintenance, with an empty extra."""
    for node_uuid, node in faults.nodes(cloud).items():
        path = f'/v1/nodes/{node_uuid}'
        if node['maintenance']:
            _api(cloud, 'DELETE', path + '/maintenance')
        if node['provision_state'] == 'clean hold':
            _api(cloud, 'PUT', path + '/states/provision', {'target': 'abort'})
        _api(
            cloud,
            'PATCH',
            path,
            [{'op': 'replace', 'path': '/extra', 'value': {}}],
        )
    faults.settle(cloud, 60, {'manageable', 'available', 'clean failed'})
    for node_uuid, node in faults.nodes(cloud).items():
        if node['provision_state'] != 'manageable':
            _api(
                cloud,
                'PUT',
                f'/v1/nodes/{node_uuid}/states/provision',
                {'target': 'manage'},
            )
    faults.settle(cloud, 60, {'manageable'})


def _plan(rng: random.Random, run: int, index: int) -> dict[str, Any]:
    """What node ``index`` is asked to do in ``run``."""
    if rng.random() < 0.2:
        return {'target': 'provide'}
    steps = []
    for position in range(rng.randint(1, 4)):
        kind = rng.choice(
            [
                'repeatable_work',
                'one_shot_work',
                'one_shot_work',
                'wait_a_bit',
                'erase_devices_metadata',
            ]
        )
        tag = f'r{run}-n{index}-s{position}'
        if kind in ('repeatable_work', 'one_shot_work'):
            # Some outlast the heartbeat timeout: a conductor stopping
            # or paused during one must not lose it to another.
            longest = 8 if rng.random() < 0.15 else 3
            args = {'seconds': round(rng.uniform(0.2, longest), 1), 'tag': tag}
        elif kind == 'wait_a_bit':
            args = {'seconds': round(rng.uniform(0.5, 2), 1)}
        else:
            args = {}
        steps.append({'interface': 'deploy', 'step': kind, 'args': args})
    if rng.random() < 0.1:
        steps.append({'interface': 'conductor', 'step': 'hold'})
    return {'target': 'clean', 'clean_steps': steps}


def _schedule(
    rng: random.Random, conductors: list[str]
) -> list[tuple[float, str, str | None]]:
    """2 to 4 faults in the first 6 seconds, in order."""
    chosen = []
    for _ in range(rng.randint(2, 4)):
        kind = rng.choice(FAULTS)
        name = (
            rng.choice(conductors)
            if kind in ('kill9', 'sigterm', 'sigstop', 'replace')
            else None
        )
        chosen.append((round(rng.uniform(0, 6), 1), kind, name))
    return sorted(chosen, key=lambda item: item[0])


def _ops(rng: random.Random, run: int, uuids: list[str]) -> list[faults.Op]:
    ops = []
    for number in range(rng.randint(15, 30)):
        kind = rng.choice(
            [
                'patch burst',
                'patch',
                'patch',
                'abort',
                'maintenance on',
                'maintenance off',
                'provision',
            ]
        )
        detail: Any = None
        if kind == 'patch burst':
            # Distinct keys on one node at one moment.
            at, node = round(rng.uniform(0, 8), 2), rng.choice(uuids)
            ops += [
                faults.Op(at, 'patch', node, f'r{run}-k{number}-{i}')
                for i in range(6)
            ]
            continue
        if kind == 'patch':
            detail = f'r{run}-k{number}'
        elif kind == 'provision':
            detail = rng.choice(
                [
                    {'target': 'manage'},
                    {'target': 'provide'},
                    {
                        'target': 'clean',
                        'clean_steps': [
                            {
                                'interface': 'deploy',
                                'step': 'erase_devices_metadata',
                            }
                        ],
                    },
                ]
            )
        ops.append(
            faults.Op(
                round(rng.uniform(0, 8), 2), kind, rng.choice(uuids), detail
            )
        )
    return ops


def _run_once(
    cloud: Any, seed: int, run: int, offset: int
) -> tuple[dict[str, Any], int]:
    rng = random.Random(seed)
    _reset(cloud)
    started = time.monotonic()
    errors_before = faults.error_lines(cloud.logs)
    injector = faults.Injector(cloud, HEARTBEAT_TIMEOUT)
    for index, node_uuid in enumerate(cloud.uuids):
        _api(
            cloud,
            'PUT',
            f'/v1/nodes/{node_uuid}/states/provision',
            _plan(rng, run, index),
        )
    schedule = _schedule(rng, list(cloud.conductors))
    ops = _ops(rng, run, cloud.uuids)
    storm = threading.Thread(target=faults.storm, args=(cloud, ops))
    storm.start()
    try:
        injector.run(schedule, rng)
    finally:
        storm.join()
        injector.recover()
    cloud.wait_conductors()
    nodes = faults.settle(cloud, SETTLE, FINAL)
    runs, offset = faults.read_runs(cloud.run_log, offset)
    problems = injector.problems + faults.check_runs(
        runs, injector, MAX_ATTEMPTS
    )
    for node_uuid, node in nodes.items():
        if (
            node['provision_state'] == 'clean failed'
            and not node['last_error']
        ):
            problems.append(f'node {node_uuid} failed without last_error')
    for op in ops:
        if (
            op.kind == 'patch'
            and op.status == 200
            and op.detail not in (nodes[op.node]['extra'])
        ):
            problems.append(
                f'PATCH {op.detail} of node {op.node} was '
                'answered 200 and is not stored'
            )
    report = {
        'seed': seed,
        'seconds': round(time.monotonic() - started, 1),
        'faults': injector.done,
        'runs': len(runs),
        'fenced': sum(r.outcome == 'fenced' for r in runs),
        'ends': sorted(n['provision_state'] for n in nodes.values()),
        'failures': sorted(
            {
                (n['last_error'] or '')[:160]
                for n in nodes.values()
                if n['provision_state'] == 'clean failed'
            }
        ),
        'statuses': sorted({op.status for op in ops}),
        'error_lines': faults.error_lines(cloud.logs) - errors_before,
        'problems': problems,
    }
    return report, offset


def test_randomized_faults(cloud: Any) -> None:
    offset = 0
    failures = []
    for run in range(RUNS):
        seed = SEED + run
        report, offset = _run_once(cloud, seed, run, offset)
        print(f'fault injection run {run + 1}/{RUNS}: {report}')
        if report['problems']:
            failures.append(report)
    assert not failures, (
        'broken invariants (reproduce one with IRONIC_LITE_FAULT_SEED='
        '<seed> IRONIC_LITE_FAULT_RUNS=1):\n'
        + '\n'.join(
            f'seed {r["seed"]}: faults {r["faults"]}: '
            + '; '.join(r['problems'])
            for r in failures
        )
    )
