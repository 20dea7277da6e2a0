"""Randomized deployments under faults: two conductors, RabbitMQ,
MariaDB, and an ``ironic-lite-agent`` process per node writing onto a
disk file.

Each run asks every node, at random moments, to deploy or rebuild one
of four images (raw and qcow2, of different sizes), to undeploy, or to
abort, while conductors are killed (``kill -9``, SIGTERM, SIGSTOP past
the heartbeat timeout) and agents are killed and started again. Then,
within a bound derived from the timeouts:

- every flow ends: each node is unlocked in ``active``, ``deploy
  failed``, ``available``, ``manageable`` or ``clean failed``, a failed
  one with ``last_error``;
- **no node is active with a disk that does not hold its image**: the
  disk file starts with the raw content of the image its
  ``instance_info`` names (or, when a request changed ``instance_info``
  and its provision action was refused, with one of the images whole);
- no step runs twice: an agent received no more ``prepare_image``
  commands than deployments and rebuilds were accepted for its node.

CI runs ``IRONIC_LITE_DEPLOY_FAULT_RUNS`` runs (default 2) from seed
``IRONIC_LITE_DEPLOY_FAULT_SEED`` (default 3131); a failure names the
seed of its run. A long run::

    IRONIC_LITE_DEPLOY_FAULT_RUNS=30 .venv/bin/python -m pytest -s \\
        -p no:cacheprovider \\
        ironic_lite/tests/integration/test_deploy_faults.py
"""

import dataclasses
import hashlib
import os
from pathlib import Path
import random
import threading
import time
from typing import Any

import pytest

from ironic_lite.tests import disk_images
from ironic_lite.tests.integration import fault_injection as faults
from lite_common.tests import integration
from stacklite import emulated_machines as machines

RUNS = int(os.environ.get('IRONIC_LITE_DEPLOY_FAULT_RUNS', '2'))
SEED = int(os.environ.get('IRONIC_LITE_DEPLOY_FAULT_SEED', '3131'))
NODES = 3
DISK_SIZE = 6 * machines.MIB
HEARTBEAT_TIMEOUT = 5
CALLBACK_TIMEOUT = 20
OPTIONS = {
    'DEFAULT': {'enabled_deploy_interfaces': 'fake,agent'},
    'conductor': {
        'heartbeat_interval': 1,
        'heartbeat_timeout': HEARTBEAT_TIMEOUT,
        'clean_step_poll_interval': 1,
        'clean_callback_timeout': CALLBACK_TIMEOUT,
        'deploy_callback_timeout': CALLBACK_TIMEOUT,
    },
    'api': {'conductor_call_timeout': 3, 'ramdisk_heartbeat_timeout': 2},
}
#: Seconds every node has to settle once the faults are over: a flow
#: that lost its agent waits for the callback timeout, a takeover for
#: the heartbeat timeout, then a cleaning; a margin for a loaded machine.
SETTLE = 2 * CALLBACK_TIMEOUT + 3 * HEARTBEAT_TIMEOUT + 90
FINAL = ('active', 'deploy failed', 'available', 'manageable', 'clean failed')
CONDUCTOR_FAULTS = ('kill9', 'sigterm', 'sigstop')


@dataclasses.dataclass(frozen=True)
class Image:
    source: str
    checksum: str
    content: bytes  # what the disk must start with


@dataclasses.dataclass
class Machine:
    uuid: str
    mac: str
    workdir: Path
    agent: machines.Agent
    accepted: int = 0  # deployments and rebuilds answered 202
    drifted: bool = False  # instance_info changed, its deploy refused


def _images(workdir: Path) -> dict[str, Image]:
    images = {}
    for index, size in enumerate((machines.MIB, 5 * machines.MIB // 2)):
        path = workdir / f'image-{index}.raw'
        data = random.Random(index).randbytes(size)
        path.write_bytes(data)
        images[path.name] = Image(
            f'file://{path}', hashlib.sha256(data).hexdigest(), data
        )
        qcow2 = disk_images.qcow2_of(path, f'image-{index}.qcow2')
        images[qcow2.name] = Image(
            f'file://{qcow2}',
            hashlib.sha256(qcow2.read_bytes()).hexdigest(),
            data,
        )
    return images


def _api(cloud: Any, method: str, path: str, body: Any = None) -> Any:
    """(status, body); 409 and 503 retried a while, as clients do."""
    for _attempt in range(20):
        status, answer = faults._call(cloud, method, path, body)
        if status not in (0, 409, 503):
            break
        time.sleep(0.5)
    return status, answer


def _provision(cloud: Any, uuid: str, target: str) -> int:
    return int(
        _api(
            cloud,
            'PUT',
            f'/v1/nodes/{uuid}/states/provision',
            {'target': target},
        )[0]
    )


def _start_agent(cloud: Any, machine: Machine) -> None:
    machine.agent = machines.Agent(
        machine.workdir,
        cloud.api_url,
        machine.mac,
        machine.agent.disks,
        0.5,
        lookup_interval=0.3,
    )
    machine.agent.start()


@pytest.fixture(scope='module')
def cloud(request: pytest.FixtureRequest, tmp_path_factory: Any) -> Any:
    import devstack_ironic

    workdir = tmp_path_factory.mktemp('deploy-faults')
    dep = devstack_ironic.start(
        workdir, db='mysql', conductors=2, options=OPTIONS
    )
    integration.register_cloud(request, dep)
    dep.killed = set()
    dep.images = _images(workdir)
    dep.machines = []
    try:
        for index in range(NODES):
            dep.machines.append(_enroll(dep, workdir, index))
        faults.settle(dep, 60, {'manageable'})
        for machine in dep.machines:
            assert _provision(dep, machine.uuid, 'provide') == 202
        faults.settle(dep, 120, {'available'})
        yield dep
    finally:
        for machine in dep.machines:
            machine.agent.terminate()
            machine.agent.wait_ended(10)
        codes = dep.stop()
    bad = {name: code for name, code in codes.items() if code != 0}
    assert not bad, f'services did not exit cleanly: {bad}'


def _enroll(cloud: Any, workdir: Path, index: int) -> Machine:
    status, node = _api(
        cloud,
        'POST',
        '/v1/nodes',
        {
            'driver': 'fake-hardware',
            'deploy_interface': 'agent',
            'name': f'df-{index}',
        },
    )
    assert status == 201, node
    mac = f'52:54:00:0d:0f:{index:02x}'
    status, port = _api(
        cloud, 'POST', '/v1/ports', {'node_uuid': node['uuid'], 'address': mac}
    )
    assert status == 201, port
    home = workdir / f'machine-{index}'
    home.mkdir()
    disk = machines.make_disk(home / 'sda.img', DISK_SIZE)
    agent = machines.Agent(
        home, cloud.api_url, mac, [disk], 0.5, lookup_interval=0.3
    )
    agent.start()
    machine = Machine(node['uuid'], mac, home, agent)
    assert _provision(cloud, machine.uuid, 'manage') == 202
    return machine


def _reset(cloud: Any) -> None:
    """Every node available (cleaned by its agent), agents running."""
    for machine in cloud.machines:
        if not machine.agent.alive():
            _start_agent(cloud, machine)
        machine.accepted, machine.drifted = 0, False
    for uuid, node in faults.nodes(cloud).items():
        state = node['provision_state']
        if node['maintenance']:
            _api(cloud, 'DELETE', f'/v1/nodes/{uuid}/maintenance')
        if state in ('active', 'deploy failed'):
            _provision(cloud, uuid, 'deleted')
        elif state == 'clean failed':
            _provision(cloud, uuid, 'manage')
    faults.settle(cloud, 180, {'available', 'manageable', 'clean failed'})
    for uuid, node in faults.nodes(cloud).items():
        if node['provision_state'] == 'clean failed':
            if node['maintenance']:
                _api(cloud, 'DELETE', f'/v1/nodes/{uuid}/maintenance')
            _provision(cloud, uuid, 'manage')
    faults.settle(cloud, 60, {'available', 'manageable'})
    for uuid, node in faults.nodes(cloud).items():
        if node['provision_state'] == 'manageable':
            _provision(cloud, uuid, 'provide')
    faults.settle(cloud, 180, {'available'})


def _act(cloud: Any, machine: Machine, action: str, image: Image) -> None:
    uuid = machine.uuid
    if action in ('active', 'rebuild'):
        info = {'image_source': image.source, 'image_checksum': image.checksum}
        status, _body = _api(
            cloud,
            'PATCH',
            f'/v1/nodes/{uuid}',
            [{'op': 'replace', 'path': '/instance_info', 'value': info}],
        )
        if status != 200:
            return
        if _provision(cloud, uuid, action) == 202:
            machine.accepted += 1
        else:
            machine.drifted = True
        return
    _provision(cloud, uuid, action)


def _plan(
    rng: random.Random, cloud: Any
) -> list[tuple[float, Machine, str, Image]]:
    names = sorted(cloud.images)
    plan = []
    for machine in cloud.machines:
        for _ in range(rng.randint(1, 4)):
            action = rng.choice(
                ['active', 'active', 'rebuild', 'deleted', 'abort']
            )
            image = cloud.images[rng.choice(names)]
            plan.append((round(rng.uniform(0, 12), 1), machine, action, image))
    return sorted(plan, key=lambda item: item[0])


def _storm(cloud: Any, plan: list[tuple[float, Machine, str, Image]]) -> None:
    """Each machine's actions in order, the machines side by side."""
    started = time.monotonic()

    def one(machine: Machine) -> None:
        for at, target, action, image in plan:
            if target is machine:
                time.sleep(max(0.0, at - (time.monotonic() - started)))
                _act(cloud, machine, action, image)

    threads = [threading.Thread(target=one, args=(m,)) for m in cloud.machines]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _agent_faults(
    rng: random.Random, cloud: Any
) -> list[tuple[float, Machine, float]]:
    return sorted(
        (
            (round(rng.uniform(0, 12), 1), rng.choice(cloud.machines), down)
            for down in [
                round(rng.uniform(0.5, 4), 1) for _ in range(rng.randint(0, 2))
            ]
        ),
        key=lambda item: item[0],
    )


def _kill_agents(
    cloud: Any, schedule: list[tuple[float, Machine, float]], done: list[str]
) -> None:
    started = time.monotonic()
    for at, machine, down in schedule:
        time.sleep(max(0.0, at - (time.monotonic() - started)))
        machine.agent.kill()
        time.sleep(down)
        _start_agent(cloud, machine)
        done.append(f'agent of {machine.uuid} killed at {at} s for {down} s')


def _prepare_commands(machine: Machine) -> int:
    count = 0
    for log in machine.workdir.glob('agent.log*'):
        count += log.read_text().count(
            'Command standby.prepare_image received'
        )
    return count


def _check(cloud: Any, nodes: dict[str, dict[str, Any]]) -> list[str]:
    problems = []
    by_source = {image.source: image for image in cloud.images.values()}
    for machine in cloud.machines:
        node = nodes[machine.uuid]
        state = node['provision_state']
        if (
            state in ('deploy failed', 'clean failed')
            and not (node['last_error'])
        ):
            problems.append(f'node {machine.uuid} {state} without last_error')
        commands = _prepare_commands(machine)
        if commands > machine.accepted:
            problems.append(
                f'node {machine.uuid}: its agent got {commands} '
                f'prepare_image commands for {machine.accepted} accepted '
                'deployments'
            )
        if state != 'active':
            continue
        disk = machine.agent.disks[0].read_bytes()
        image = by_source.get(
            (node['instance_info'] or {}).get('image_source', '')
        )
        holds = image is not None and disk.startswith(image.content)
        if not holds and machine.drifted:
            holds = any(
                disk.startswith(i.content) for i in cloud.images.values()
            )
        if not holds:
            problems.append(
                f'node {machine.uuid} is active and its disk does not '
                f'hold its image {node["instance_info"]}'
            )
    return problems


def _run_once(cloud: Any, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    _reset(cloud)
    # Logs from here on: the agents' command counts start again.
    for machine in cloud.machines:
        for log in machine.workdir.glob('agent.log*'):
            log.write_text('')
    started = time.monotonic()
    injector = faults.Injector(cloud, HEARTBEAT_TIMEOUT)
    plan = _plan(rng, cloud)
    schedule = sorted(
        (
            (
                round(rng.uniform(0, 12), 1),
                rng.choice(CONDUCTOR_FAULTS),
                rng.choice(list(cloud.conductors)),
            )
            for _ in range(rng.randint(1, 3))
        ),
        key=lambda item: item[0],
    )
    agent_done: list[str] = []
    agent_thread = threading.Thread(
        target=_kill_agents,
        args=(cloud, _agent_faults(rng, cloud), agent_done),
    )
    storm = threading.Thread(target=_storm, args=(cloud, plan))
    storm.start()
    agent_thread.start()
    try:
        injector.run(schedule, rng)
    finally:
        storm.join()
        agent_thread.join()
        injector.recover()
    cloud.wait_conductors()
    nodes = faults.settle(cloud, SETTLE, FINAL)
    return {
        'seed': seed,
        'seconds': round(time.monotonic() - started, 1),
        'faults': injector.done + agent_done,
        'actions': [(at, m.uuid[:8], a) for at, m, a, _i in plan],
        'ends': sorted(n['provision_state'] for n in nodes.values()),
        'failures': sorted(
            {
                (n['last_error'] or '')[:160]
                for n in nodes.values()
                if n['provision_state'] in ('deploy failed', 'clean failed')
            }
        ),
        'problems': injector.problems + _check(cloud, nodes),
    }


def test_randomized_deploy_faults(cloud: Any) -> None:
    failures = []
    for run in range(RUNS):
        report = _run_once(cloud, SEED + run)
        print(f'deploy fault run {run + 1}/{RUNS}: {report}')
        if report['problems']:
            failures.append(report)
    assert not failures, (
        'broken invariants (reproduce one with '
        'IRONIC_LITE_DEPLOY_FAULT_SEED=<seed> '
        'IRONIC_LITE_DEPLOY_FAULT_RUNS=1):\n'
        + '\n'.join(
            f'seed {r["seed"]}: faults {r["faults"]}: '
            + '; '.join(r['problems'])
            for r in failures
        )
    )
