"""The machinery of test_fault_injection: faults, client storms, checks.

:class:`Injector` hurts a running deployment (tools/devstack_ironic.py)
on purpose, and remembers when: ``kill -9`` and SIGTERM of a conductor
(restarted after a while), SIGSTOP past the heartbeat timeout then
SIGCONT, a second process started with a conductor's host name (next
to it, or while it is frozen), database connections killed on the
server, the vhost's broker
connections closed, the API restarted. :func:`storm` sends concurrent
client requests (PATCH, provision actions, abort, maintenance) and
records their answers. :func:`check_runs` reads the fake run log and
returns every broken invariant as a sentence.

Everything stays on 127.0.0.1, in the deployment's own database and
vhost, and is bounded in count and time.
"""

from collections.abc import Callable
import dataclasses
import functools
import json
import os
from pathlib import Path
import random
import signal
import subprocess
import threading
import time
from typing import Any
import urllib.error

import devstack_support as support

from ironic_lite.drivers import fake_run_log

#: How long SIGTERM may take before the conductor is killed (its
#: running step finishes first; the fake steps take seconds).
STOP_PATIENCE = 90


@dataclasses.dataclass
class Op:
    """One client request of a storm, and its answer (0: none)."""

    at: float
    kind: str
    node: str
    detail: Any = None
    status: int = 0


class Injector:
    """Faults on one deployment, with the times they happened."""

    def __init__(self, cloud: Any, heartbeat_timeout: float) -> None:
        self.cloud = cloud
        self.heartbeat_timeout = heartbeat_timeout
        #: pid -> time it was killed (its steps end there at the latest).
        self.deaths: dict[int, float] = {}
        #: pid -> [(stopped, continued)] windows it could not run.
        self.frozen: dict[int, list[tuple[float, float]]] = {}
        self.done: list[str] = []
        #: Broken rules seen while injecting (a duplicate that started).
        self.problems: list[str] = []

    # -- processes

    def _pid(self, name: str) -> int:
        return self.cloud.procs[name].pid

    def _wait_exit(self, name: str, timeout: float) -> bool:
        proc = self.cloud.procs[name]
        deadline = time.monotonic() + timeout
        while proc.alive() and time.monotonic() < deadline:
            time.sleep(0.1)
        return not proc.alive()

    def _kill(self, name: str) -> None:
        self.deaths[self._pid(name)] = time.time()
        self.cloud.kill(name)
        self.cloud.killed.add(name)

    def kill9(self, name: str, rng: random.Random) -> None:
        self._kill(name)
        time.sleep(rng.uniform(0, 3))
        self.restart(name)

    def sigterm(self, name: str, rng: random.Random) -> None:
        proc = self.cloud.procs[name]
        proc.stopped = True
        support.signal_pid(proc.pid, signal.SIGTERM)
        if not self._wait_exit(name, STOP_PATIENCE):
            self.done.append(
                f'{name} ignored SIGTERM for {STOP_PATIENCE} s: killed'
            )
            self._kill(name)
        time.sleep(rng.uniform(0, 2))
        self.restart(name)

    def sigstop(self, name: str, rng: random.Random) -> None:
        pid = self._pid(name)
        stopped = time.time()
        support.signal_pid(pid, signal.SIGSTOP)
        try:
            time.sleep(self.heartbeat_timeout + rng.uniform(1, 3))
        finally:
            support.signal_pid(pid, signal.SIGCONT)
            self.frozen.setdefault(pid, []).append((stopped, time.time()))

    def replace(self, name: str, rng: random.Random) -> str:
        """Start a second process with ``name``'s configuration (its host
        name): next to it while it runs, or while it is frozen (SIGSTOP)
        for a moment or past the heartbeat timeout. The second process
        must refuse to start while the first is alive; once it took the
        name over, the first must stop (exit 78) when woken up, having
        written nothing more (the run log shows it). Returns what
        happened."""
        old = self.cloud.procs[name]
        old_log = self._log_size(old.name)
        frozen = rng.random() < 0.7
        stopped = time.time()
        if frozen:
            support.signal_pid(old.pid, signal.SIGSTOP)
            time.sleep(
                rng.choice(
                    [
                        rng.uniform(0, 1),
                        self.heartbeat_timeout + rng.uniform(1, 3),
                    ]
                )
            )
        state = f'frozen {time.time() - stopped:.1f} s' if frozen else 'live'
        # Unique in the deployment: its log tells whether it registered.
        twin = f'{name}-twin-{time.monotonic_ns()}'
        try:
            took_over = self._twin_outcome(name, twin)
        finally:
            if frozen:
                support.signal_pid(old.pid, signal.SIGCONT)
                self.frozen.setdefault(old.pid, []).append(
                    (stopped, time.time())
                )
        if took_over is None:
            return f'{twin} refused ({name} {state})'
        if not frozen:
            self.problems.append(
                f'{twin} took over {name} while {name} was alive'
            )
        if not self._wait_exit(name, STOP_PATIENCE):
            self.problems.append(
                f'{name} (pid {old.pid}) went on after {twin} took its host '
                f'name over; its log ends:\n{self._log_tail(old)}'
            )
            self._kill(name)
        elif not self._ended_as_replaced(old, old_log):
            self.problems.append(
                f'{name} (pid {old.pid}) exited {old.returncode()} after '
                f'{twin} took its host name over; its log ends:\n'
                f'{self._log_tail(old)}'
            )
        # The replacement is the conductor of that name from now on.
        self.cloud.procs[name] = self.cloud.procs.pop(twin)
        return f'{twin} took over ({name} {state})'

    def _log_size(self, name: str) -> int:
        path = self.cloud.logs / f'{name}.log'
        return path.stat().st_size if path.exists() else 0

    def _started(self, proc: Any, offset: int) -> bool:
        """``proc`` exited, or registered (its log from ``offset``)."""
        return not proc.alive() or ' registered (' in self._log_since(
            proc.name, offset
        )

    def _log_since(self, name: str, offset: int) -> str:
        path = self.cloud.logs / f'{name}.log'
        if not path.exists():
            return ''
        with open(path, 'rb') as log:
            log.seek(offset)
            return log.read().decode(errors='replace')

    def _log_tail(self, proc: Any, lines: int = 15) -> str:
        return support.tail(self.cloud.logs / f'{proc.name}.log', lines)

    def _ended_as_replaced(self, proc: Any, offset: int) -> bool:
        """78 (it found it was replaced), or 1 when it was still starting
        (a restart) and the twin registered first: then it was the
        second process and refused, as it should. (Its log from
        ``offset`` on.)"""
        text = self._log_since(proc.name, offset)
        return (proc.returncode() == 78 and 'was replaced' in text) or (
            proc.returncode() == 1 and 'refuses to start' in text
        )

    def _twin_outcome(self, name: str, twin: str) -> bool | None:
        """Start ``twin`` as ``name``; None when it refused (exit 1),
        True once it registered (its log says so)."""
        proc = self.cloud.spawn(
            twin, 'ironic-lite-conductor', self.cloud.conductors[name]
        )
        log = self.cloud.logs / f'{twin}.log'

        def outcome() -> bool | None:
            if not proc.alive():
                return True
            return log.exists() and ' registered (' in log.read_text(
                errors='replace'
            )

        support.wait_for(
            outcome, 60, f'{twin} to start or refuse', interval=0.2
        )
        if proc.alive():
            return True
        if proc.returncode() != 1:
            self.problems.append(
                f'{twin} exited {proc.returncode()} instead of refusing (1)'
            )
        self.cloud.procs.pop(twin)
        return None

    def restart(self, name: str) -> None:
        if name == 'ironic-api':
            self.cloud.start_api()
        else:
            self._start_conductor(name)
        self.cloud.killed.discard(name)

    def _start_conductor(self, name: str) -> None:
        """Start ``name`` as systemd's Restart=on-failure does: again,
        a second later, while it refuses (exit 1) because the process it
        replaces (killed a moment ago) still has a fresh heartbeat; done
        once it registered, so that no stop finds it half started."""
        deadline = time.monotonic() + self.heartbeat_timeout + 60
        while True:
            offset = self._log_size(name)
            self.cloud.start_conductor(name)
            proc = self.cloud.procs[name]
            support.wait_for(
                functools.partial(self._started, proc, offset),
                60,
                f'{name} to register or refuse',
                interval=0.1,
            )
            if proc.alive():
                return
            refused = 'refuses to start' in self._log_since(name, offset)
            if (
                proc.returncode() != 1
                or not refused
                or (time.monotonic() > deadline)
            ):
                raise RuntimeError(
                    f'{name} exited {proc.returncode()} on its restart; its '
                    f'log ends:\n{self._log_tail(proc)}'
                )
            time.sleep(1)

    def api_restart(self, rng: random.Random) -> None:
        proc = self.cloud.procs['ironic-api']
        proc.stopped = True
        support.signal_pid(proc.pid, signal.SIGTERM)
        if not self._wait_exit('ironic-api', 30):
            self._kill('ironic-api')
        time.sleep(rng.uniform(0, 1))
        self.restart('ironic-api')

    # -- services the deployment shares

    def db_kill(self, rng: random.Random) -> int:
        """Kill some of the deployment's database connections on the
        server side (MariaDB); returns how many."""
        import pymysql

        conn = pymysql.connect(
            host=support.LOCALHOST, user='root', password='', autocommit=True
        )
        try:
            with conn.cursor() as cursor:
                cursor.execute(
                    'SELECT id FROM information_schema.processlist'
                    ' WHERE db = %s',
                    (self.cloud.db_name,),
                )
                ids = [row[0] for row in cursor.fetchall()]
                victims = rng.sample(ids, min(len(ids), rng.randint(1, 6)))
                for victim in victims:
                    try:
                        cursor.execute(f'KILL CONNECTION {int(victim)}')
                    except pymysql.err.MySQLError:
                        pass  # gone already
        finally:
            conn.close()
        return len(victims)

    def broker(self, rng: random.Random) -> None:
        """Close every connection of the deployment's vhost."""
        subprocess.run(
            [
                'rabbitmqctl',
                'close_all_connections',
                '--vhost',
                self.cloud.vhost,
                'fault injection',
            ],
            capture_output=True,
            timeout=60,
            check=False,
        )

    # -- a schedule

    def run(
        self, schedule: list[tuple[float, str, str | None]], rng: random.Random
    ) -> None:
        """Apply ``(seconds from now, kind, conductor)`` in order."""
        started = time.monotonic()
        for at, kind, name in schedule:
            time.sleep(max(0.0, at - (time.monotonic() - started)))
            if kind == 'db_kill':
                detail = f'{self.db_kill(rng)} connection(s)'
            elif kind == 'broker':
                self.broker(rng)
                detail = self.cloud.vhost
            elif kind == 'api_restart':
                self.api_restart(rng)
                detail = 'ironic-api'
            elif kind == 'replace':
                assert name is not None
                detail = self.replace(name, rng)
            else:
                getattr(self, kind)(name, rng)
                detail = name
            self.done.append(f'{kind} {detail} at {at:.1f} s')

    def recover(self) -> None:
        """Every service running again (a fault may have left one down)."""
        for name in [*self.cloud.conductors, 'ironic-api']:
            if not self.cloud.procs[name].alive():
                self.restart(name)


def storm(cloud: Any, ops: list[Op]) -> None:
    """Send ``ops`` at their times (seconds from now), eight at a
    time."""
    started = time.monotonic()
    pending = sorted(ops, key=lambda op: op.at)
    lock = threading.Lock()

    def worker() -> None:
        while True:
            with lock:
                if not pending:
                    return
                op = pending.pop(0)
            time.sleep(max(0.0, op.at - (time.monotonic() - started)))
            op.status = send(cloud, op)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def send(cloud: Any, op: Op) -> int:
    path = f'/v1/nodes/{op.node}'
    requests: dict[str, Callable[[], tuple[int, Any]]] = {
        'patch': lambda: _call(
            cloud,
            'PATCH',
            path,
            [{'op': 'add', 'path': f'/extra/{op.detail}', 'value': 1}],
        ),
        'abort': lambda: _call(
            cloud, 'PUT', path + '/states/provision', {'target': 'abort'}
        ),
        'maintenance on': lambda: _call(
            cloud, 'PUT', path + '/maintenance', {'reason': 'fault test'}
        ),
        'maintenance off': lambda: _call(
            cloud, 'DELETE', path + '/maintenance'
        ),
        'provision': lambda: _call(
            cloud, 'PUT', path + '/states/provision', op.detail
        ),
    }
    return requests[op.kind]()[0]


def nodes(cloud: Any) -> dict[str, dict[str, Any]]:
    """Every node by uuid (the API asked again while it restarts)."""
    for _attempt in range(40):
        status, body = _call(cloud, 'GET', '/v1/nodes/detail')
        if status == 200:
            return {node['uuid']: node for node in body['nodes']}
        time.sleep(0.5)
    raise AssertionError(f'GET /v1/nodes/detail: {status} {body}')


def settle(
    cloud: Any, timeout: float, states: set[str] | tuple[str, ...]
) -> dict[str, dict[str, Any]]:
    """The nodes, once all are unlocked in ``states`` twice in a row."""
    seen: list[bool] = []

    def settled() -> dict[str, dict[str, Any]] | None:
        found = nodes(cloud)
        seen.append(
            all(
                n['provision_state'] in states and n['reservation'] is None
                for n in found.values()
            )
        )
        return found if seen[-2:] == [True, True] else None

    try:
        return support.wait_for(settled, timeout, 'the nodes to settle')
    except TimeoutError:
        left = {
            u: (n['provision_state'], n['reservation'], n['last_error'])
            for u, n in nodes(cloud).items()
            if n['provision_state'] not in states or n['reservation']
        }
        raise AssertionError(f'not settled in {timeout} s: {left}') from None


def _call(
    cloud: Any, method: str, path: str, body: Any = None
) -> tuple[int, Any]:
    try:
        return support.http_request(
            cloud.api_url + path,
            'admin',
            cloud.passwords['admin'],
            method,
            timeout=60,
            body=body,
            headers={'X-OpenStack-Ironic-API-Version': 'latest'},
        )
    except (OSError, urllib.error.URLError) as exc:
        return 0, str(exc)


# -- the run log


@dataclasses.dataclass
class Run:
    """One run of a fake clean step, from the run log."""

    node: str
    step: str
    tag: str | None
    conductor: str
    pid: int
    start: float
    end: float | None = None
    outcome: str | None = None


def read_runs(path: Path, offset: int) -> tuple[list[Run], int]:
    """The runs recorded from byte ``offset`` on, and the new offset."""
    if not path.exists():
        return [], offset
    with open(path, 'rb') as log:
        log.seek(offset)
        data = log.read()
    runs: dict[str, Run] = {}
    for line in data.decode().splitlines():
        record = json.loads(line)
        if record['event'] == 'start':
            runs[record['run']] = Run(
                record['node'],
                record['step'],
                record['tag'],
                record['conductor'],
                record['pid'],
                record['time'],
            )
        elif record['run'] in runs:
            run = runs[record['run']]
            run.end, run.outcome = record['time'], record['outcome']
    return list(runs.values()), offset + len(data)


def _active(run: Run, injector: Injector) -> list[tuple[float, float]]:
    """When ``run`` could act: [start, end] less the time its process
    was stopped (SIGSTOP); a run without an end ended when its process
    was killed.

    As for a fenced run (whose end is its last confirmed checkpoint, see
    :mod:`ironic_lite.drivers.fake_run_log`), the unit of work a run was
    in when its process froze is not counted past the freeze: a process
    killed within one unit (:data:`~ironic_lite.drivers.fake_run_log.
    SLICE`) of being woken up had no checkpoint to pass meanwhile."""
    end = run.end if run.end is not None else injector.deaths.get(run.pid)
    if end is None:
        return []
    windows = injector.frozen.get(run.pid, [])
    if run.end is None and windows:
        stopped, continued = windows[-1]
        if run.start < stopped and end - continued < fake_run_log.SLICE:
            end = stopped
    pieces = [(run.start, end)]
    for stopped, continued in injector.frozen.get(run.pid, []):
        pieces = [
            piece
            for start, stop in pieces
            for piece in (
                (start, min(stop, stopped)),
                (max(start, continued), stop),
            )
            if piece[0] < piece[1]
        ]
    return pieces


def check_runs(
    runs: list[Run], injector: Injector, max_attempts: int
) -> list[str]:
    """Every broken invariant of the step runs, as a sentence."""
    problems = []
    by_node: dict[str, list[Run]] = {}
    by_tag: dict[tuple[str, str], list[Run]] = {}
    for run in runs:
        by_node.setdefault(run.node, []).append(run)
        if run.tag:
            by_tag.setdefault((run.step, run.tag), []).append(run)
        if run.end is None and run.pid not in injector.deaths:
            problems.append(
                f'run of {run.step} ({run.tag}) on node '
                f'{run.node} by {run.conductor} never ended'
            )
        if run.outcome == 'fenced' and run.pid not in injector.frozen:
            problems.append(
                f'{run.conductor} lost node {run.node} during '
                f'{run.step} ({run.tag}) without being paused'
            )
    for (step, tag), tagged in by_tag.items():
        limit = 1 if step == 'one_shot_work' else max_attempts
        if len(tagged) > limit:
            problems.append(
                f'{step} {tag} ran {len(tagged)} times (at most {limit}): '
                + ', '.join(
                    f'{r.conductor}/{r.pid} {r.outcome}' for r in tagged
                )
            )
    for node, node_runs in by_node.items():
        problems += _overlaps(node, node_runs, injector)
    return problems


def _overlaps(node: str, runs: list[Run], injector: Injector) -> list[str]:
    problems = []
    for index, first in enumerate(runs):
        for second in runs[index + 1 :]:
            if first.pid == second.pid:
                continue
            for a_start, a_end in _active(first, injector):
                for b_start, b_end in _active(second, injector):
                    overlap = min(a_end, b_end) - max(a_start, b_start)
                    if overlap > 0:
                        problems.append(
                            f'node {node}: {first.step} ({first.tag}) by '
                            f'{first.conductor}/{first.pid} and '
                            f'{second.step} ({second.tag}) by '
                            f'{second.conductor}/{second.pid} overlapped '
                            f'{overlap:.2f} s'
                        )
    return problems


def error_lines(logs: Path) -> int:
    """ERROR lines in the services' logs so far."""
    total = 0
    for path in logs.glob('*.log'):
        with open(path, errors='replace') as log:
            total += sum(1 for line in log if ' ERROR ' in line)
    return total


def pids_alive(cloud: Any) -> dict[str, int]:
    return {
        name: proc.pid
        for name, proc in cloud.procs.items()
        if proc.alive() and os.path.exists(f'/proc/{proc.pid}')
    }
