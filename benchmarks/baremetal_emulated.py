"""Benchmark: N emulated redfish nodes through ``provide`` with agent
cleaning, and what it costs the conductor.

A devstack-style deployment (tools/devstack_ironic.py: ironic-lite-api
and ``--conductors`` conductors as processes over RabbitMQ and MariaDB),
one sushy-tools Redfish emulator with N fake systems, and an
``ironic-lite-agent`` process for each of the first ``--agents`` nodes
(disk files of ``--disk-mib`` MiB; :mod:`stacklite.emulated_machines`).
Those nodes have the ``agent`` deploy interface; the others (if
``--agents`` < N) the ``fake`` one, still with redfish power and
management. All are enrolled, managed, then provided at once; the
benchmark waits until every node is ``available`` and reports

- the wall time of the provide;
- the CPU time (user + system, from /proc/PID/stat) the conductor
  processes used during it, in total and per node; the same for the
  API, the emulator and the agents.

The emulator's fake systems apply a power change 1 to 11 s after it is
asked for (sushy-tools' own behaviour), so the wall time holds about
two such waits per node (on, then off) however fast the control plane.

    python benchmarks/baremetal_emulated.py --nodes 200 --agents 200

Measured here (2 cores shared, MariaDB, 200 nodes and 200 agent
processes of 4 MiB disks, heartbeats every 3 s):

- 1 conductor: agents serving after 34 s, enroll + manage 16 s, provide
  62 s (all available), conductor CPU 27.9 s = 139 ms per node (API
  13.0 s, emulator 12.7 s, agents 10.0 s);
- 2 conductors: provide 42 s, conductor CPU 26.4 s = 132 ms per node;
  15 of 200 nodes ``clean failed``: the emulator answered their power on
  with 500 "database is locked" (sushy-tools' fake driver keeps every
  system in one SQLite file, which twice the concurrent writes
  overwhelm; sushy retries a failed POST only on known messages, as
  upstream Ironic's does). The failed nodes are listed.

A benchmark, not a test: it prints numbers and asserts nothing.
"""

import argparse
import concurrent.futures
import os
from pathlib import Path
import sys
import tempfile
import time
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / 'tools')]

import devstack_ironic  # noqa: E402
import devstack_support as support  # noqa: E402

from stacklite import emulated_machines  # noqa: E402

TICKS = os.sysconf('SC_CLK_TCK')
OPTIONS = {
    'DEFAULT': {
        'enabled_hardware_types': 'fake-hardware,redfish',
        'enabled_power_interfaces': 'fake,redfish',
        'enabled_management_interfaces': 'fake,redfish',
        'enabled_deploy_interfaces': 'fake,agent', 'debug': False},
    'conductor': {'clean_callback_timeout': 600,
                  'sync_power_state_interval': 60},
    'redfish': {'power_state_poll_interval': 1},
}


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of these processes so far."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1]
        except OSError:
            continue
        values = fields.split()
        total += int(values[11]) + int(values[12])
    return total / TICKS


class Run:
    """The deployment, the machines and the API calls of one run."""

    def __init__(self, args: argparse.Namespace, workdir: Path) -> None:
        self.args = args
        self.dep = devstack_ironic.start(workdir / 'deployment',
                                         db=args.db,
                                         conductors=args.conductors,
                                         options=OPTIONS)
        self.machines = emulated_machines.EmulatedMachines(
            workdir / 'machines', args.nodes, self.dep.api_url,
            disk_size=args.disk_mib * emulated_machines.MIB,
            heartbeat_interval=args.heartbeat, agents=args.agents,
            lookup_interval=args.heartbeat)

    def call(self, method: str, path: str, body: Any = None) -> Any:
        for _attempt in range(100):
            status, answer = self.dep.api_call(method, path, body)
            if status not in (409, 503):
                break
            time.sleep(0.2)
        if status >= 400:
            raise SystemExit(f'{method} {path}: {status} {answer}')
        return answer

    def pids(self, prefix: str) -> list[int]:
        return [p.pid for n, p in self.dep.procs.items()
                if n.startswith(prefix)]

    def start_machines(self) -> float:
        """Start the emulator and the agents; seconds it took."""
        started = time.monotonic()
        self.machines.start()
        support.wait_for(self._agents_serving, 900, 'the agents to serve')
        return time.monotonic() - started

    def _agents_serving(self) -> bool:
        return all(emulated_machines.serving(agent)
                   for agent in self.machines.agents)

    def enroll(self, index: int) -> str:
        agent = index < self.args.agents
        node = self.call('POST', '/v1/nodes', {
            'name': f'emulated-{index + 1}', 'driver': 'redfish',
            'deploy_interface': 'agent' if agent else 'fake',
            'driver_info': self.machines.driver_info(index)})
        self.call('POST', '/v1/ports', {'node_uuid': node['uuid'],
                                        'address': self.machines.mac(index)})
        return str(node['uuid'])

    def provision(self, uuids: list[str], target: str) -> None:
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda uuid: self.call(
                'PUT', f'/v1/nodes/{uuid}/states/provision',
                {'target': target}), uuids))

    def wait_all(self, wanted: str, timeout: float,
                 failed: str = 'clean failed') -> dict[str, int]:
        deadline = time.monotonic() + timeout
        while True:
            nodes = self.call('GET', '/v1/nodes?fields=provision_state'
                              '&limit=1000')['nodes']
            states: dict[str, int] = {}
            for node in nodes:
                state = node['provision_state']
                states[state] = states.get(state, 0) + 1
            # Until no node is on its way (a failed node is reported).
            if set(states) <= {wanted, failed} or (
                    time.monotonic() > deadline):
                return states
            time.sleep(1)


def measure(run: Run) -> None:
    args = run.args
    print(f'machines: emulator and {args.agents} agent process(es) serving '
          f'after {run.start_machines():.1f} s', flush=True)
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        uuids = list(pool.map(run.enroll, range(args.nodes)))
    run.provision(uuids, 'manage')
    states = run.wait_all('manageable', 600)
    print(f'enroll + manage: {time.monotonic() - started:.1f} s {states}',
          flush=True)
    groups = {'conductor': run.pids('conductor'),
              'api': run.pids('ironic-api'),
              'emulator': [run.machines.emulator.popen.pid],  # type: ignore
              'agents': [a.popen.pid for a in run.machines.agents]}  # type: ignore
    before = {name: cpu_seconds(pids) for name, pids in groups.items()}
    started = time.monotonic()
    run.provision(uuids, 'provide')
    states = run.wait_all('available', args.timeout)
    wall = time.monotonic() - started
    used = {name: cpu_seconds(pids) - before[name]
            for name, pids in groups.items()}
    report(args, wall, states, used)
    failed = run.call('GET', '/v1/nodes?provision_state=clean+failed'
                      '&fields=name,last_error&limit=1000')['nodes']
    for node in failed[:5]:
        print(f'  {node["name"]}: {node["last_error"]}')


def report(args: argparse.Namespace, wall: float, states: dict[str, int],
           used: dict[str, float]) -> None:
    print(f'provide: {args.nodes} nodes ({args.agents} with agent '
          f'cleaning) in {wall:.1f} s; states {states}')
    per_node = used['conductor'] / args.nodes * 1000
    print(f'conductor CPU: {used["conductor"]:.1f} s over '
          f'{args.conductors} process(es) = {per_node:.0f} ms per node')
    print('other CPU: ' + ', '.join(
        f'{name} {seconds:.1f} s' for name, seconds in used.items()
        if name != 'conductor'))


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--nodes', type=int, default=200)
    parser.add_argument('--agents', type=int, default=None,
                        help='nodes cleaned by an agent process '
                        '(default: all)')
    parser.add_argument('--conductors', type=int, default=1)
    parser.add_argument('--db', choices=support.DB_KINDS, default='mysql')
    parser.add_argument('--disk-mib', type=int, default=4)
    parser.add_argument('--heartbeat', type=float, default=3.0,
                        help='seconds between two heartbeats of an agent')
    parser.add_argument('--timeout', type=float, default=1200)
    args = parser.parse_args(argv)
    if args.agents is None or args.agents > args.nodes:
        args.agents = args.nodes
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix='bm-emulated-') as tmp:
        run = Run(args, Path(tmp))
        try:
            measure(run)
        finally:
            run.machines.stop()
            run.dep.stop()
    return 0


if __name__ == '__main__':
    sys.exit(main())
