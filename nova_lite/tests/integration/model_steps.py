"""The seeded generator of the model-based evacuation test.

A step is an action with its arguments: servers are named by slot
(``s0``, ``s1``... in the order the sequence booted them), processes by
name (``compute-N``, ``conductor``). :func:`choose` picks the next step
with ``random.Random``, weighted by what is possible in the state the
test observed after the previous step (records, service states, its own
process states): evacuations of servers whose host is down, confirm or
revert of servers in VERIFY_RESIZE, SIGCONT of frozen processes, and so
on. Steps the system should refuse are drawn too, less often.

Beyond moves: rebuild, stop, start and reboot of servers, os-resetState
of a server in any task (an operator's way out while something is down:
issue 29's stranded migration), deleting a compute service (refused
while it hosts or moves servers), and faults of the API process:
SIGSTOP/SIGCONT, SIGKILL and start, restart, and a SIGKILL while a
request is being handled (``api_crash``). And ``replace``: a second
compute agent under a host name (model_twin.py).
"""

import dataclasses
import json
import random
from typing import Any

from nova_lite.tests.integration import model
from nova_lite.tests.integration.model_cloud import API
from nova_lite.tests.integration.model_cloud import CONDUCTOR
from nova_lite.tests.integration.model_cloud import DEAD
from nova_lite.tests.integration.model_cloud import PAUSED
from nova_lite.tests.integration.model_cloud import RUNNING

MAX_SERVERS = 4
# At most this many computes frozen, dead or starting at once.
MAX_IMPAIRED = 2
SETTLE_CHANCE = 0.7
MAX_DELAY = 1.5
SERVER_ACTIONS = (
    'boot',
    'delete',
    'evacuate',
    'migrate',
    'resize',
    'confirm',
    'revert',
    'reset',
    'shelve',
    'offload',
    'unshelve',
    'rebuild',
    'server_stop',
    'server_start',
    'reboot',
)
# What a request cut by a crash of the API asks (``api_crash``).
CRASHABLE = (
    'delete',
    'rebuild',
    'migrate',
    'resize',
    'server_stop',
    'reboot',
    'shelve',
)


@dataclasses.dataclass
class Step:
    action: str
    args: list[Any]
    settle: bool = True  # wait until nothing moves (bounded) after it
    delay: float = 0.0  # otherwise: seconds until the next step

    def __str__(self) -> str:
        args = ', '.join(str(a) for a in self.args)
        after = 'settle' if self.settle else f'+{self.delay}s'
        return f'{self.action}({args}) [{after}]'

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> 'Step':
        return cls(
            data['action'],
            list(data.get('args', [])),
            data.get('settle', True),
            data.get('delay', 0.0),
        )


def dumps(steps: list[Step]) -> str:
    return json.dumps([s.to_json() for s in steps])


def loads(text: str) -> list[Step]:
    return [Step.from_json(item) for item in json.loads(text)]


@dataclasses.dataclass
class View:
    """What the generator knows after a step."""

    snap: model.Snapshot
    services: dict[str, dict[str, Any]]  # host -> API view
    procs: dict[str, str]  # process -> running/paused...
    servers: dict[str, str]  # slot -> uuid
    stalled: set[str]  # uuids that stopped moving
    hosts: list[str]

    def live(self) -> dict[str, model.Instance]:
        """slot -> live instance."""
        return {
            slot: self.snap.records.instances[uuid]
            for slot, uuid in sorted(self.servers.items())
            if uuid in self.snap.records.instances
        }

    def down(self, host: str) -> bool:
        return self.services.get(host, {}).get('state') == 'down'

    def forced(self, host: str) -> bool:
        return bool(self.services.get(host, {}).get('forced_down'))


Candidate = tuple[float, str, list[Any]]


def _server_steps(view: View, rng: random.Random) -> list[Candidate]:
    found: list[Candidate] = []
    live = view.live()
    if len(live) < MAX_SERVERS:
        found.append(
            (3.0 if len(live) < 2 else 1.0, 'boot', [f's{len(view.servers)}'])
        )
    for slot, inst in live.items():
        others = [h for h in view.hosts if h != inst.host]
        idle = inst.task_state is None
        found.append((0.5, 'delete', [slot]))
        evacuable = idle and inst.vm_state in ('active', 'stopped', 'error')
        found.append(
            (
                4.0 if evacuable and view.down(inst.host or '') else 0.2,
                'evacuate',
                [slot, rng.choice([None, None, *others])],
            )
        )
        movable = idle and inst.vm_state in ('active', 'stopped')
        found.append(
            (
                1.2 if movable else 0.1,
                'migrate',
                [slot, rng.choice([None, *others])],
            )
        )
        found.append((0.8 if movable else 0.1, 'resize', [slot]))
        resized = idle and inst.vm_state == model.RESIZED
        found.append((2.0 if resized else 0.1, 'confirm', [slot]))
        found.append((1.5 if resized else 0.1, 'revert', [slot]))
        found += _shelve_steps(slot, inst)
        found += _power_steps(slot, inst, rng)
        found += _reset_steps(view, slot, inst)
    return found


def _power_steps(
    slot: str, inst: model.Instance, rng: random.Random
) -> list[Candidate]:
    """rebuild an active, stopped or failed server; stop an active one,
    start a stopped one, reboot an active one (soft or hard)."""
    idle = inst.task_state is None
    return [
        (
            0.8
            if idle and inst.vm_state in ('active', 'stopped', 'error')
            else 0.1,
            'rebuild',
            [slot],
        ),
        (
            0.8 if idle and inst.vm_state == 'active' else 0.1,
            'server_stop',
            [slot],
        ),
        (
            1.2 if idle and inst.vm_state == 'stopped' else 0.1,
            'server_start',
            [slot],
        ),
        (
            0.8 if idle and inst.vm_state == 'active' else 0.1,
            'reboot',
            [slot, rng.choice(['SOFT', 'HARD'])],
        ),
    ]


def _shelve_steps(slot: str, inst: model.Instance) -> list[Candidate]:
    """shelve an active or stopped server; offload a shelved one (the
    model's computes keep shelved servers: shelved_offload_time -1);
    unshelve either."""
    idle = inst.task_state is None
    return [
        (
            1.5 if idle and inst.vm_state in ('active', 'stopped') else 0.1,
            'shelve',
            [slot],
        ),
        (
            2.5 if idle and inst.vm_state == model.SHELVED else 0.1,
            'offload',
            [slot],
        ),
        (
            2.5
            if idle and inst.vm_state in (model.SHELVED, model.OFFLOADED)
            else 0.1,
            'unshelve',
            [slot],
        ),
    ]


def _reset_steps(
    view: View, slot: str, inst: model.Instance
) -> list[Candidate]:
    """os-resetState, the documented way out: for servers in a task
    whose host or the conductor is impaired (an operator does not wait;
    issue 29's stranded migration began so), and for servers in ERROR
    whose disk is on their host (to active: what an operator checks
    first). A server stuck while everything runs is a defect the
    liveness invariant reports, not a case for a reset."""
    # To active only a server whose disk is on its host (what an
    # operator checks first: a build never done is no active server).
    to = 'active' if view.snap.has_disk(inst.uuid, inst.host) else 'error'
    if inst.task_state is not None and (
        view.procs.get(inst.host or '') != RUNNING
        or view.procs[CONDUCTOR] != RUNNING
    ):
        return [(0.5, 'reset', [slot, to]), (0.3, 'reset', [slot, 'error'])]
    if inst.task_state is not None:
        # An impatient operator, mid-way through a flow that would end.
        return [(0.1, 'reset', [slot, to])]
    if (
        inst.vm_state == model.ERROR
        and inst.task_state is None
        and (view.snap.has_disk(inst.uuid, inst.host))
    ):
        return [(0.7, 'reset', [slot, 'active'])]
    return []


def _process_steps(view: View) -> list[Candidate]:
    found: list[Candidate] = []
    impaired = sum(1 for h in view.hosts if view.procs[h] != RUNNING)
    for host in view.hosts:
        state = view.procs[host]
        if state == RUNNING:
            if impaired < MAX_IMPAIRED:
                found += [(1.0, 'pause', [host]), (0.6, 'kill', [host])]
            found.append((0.6, 'restart', [host]))
        elif state == PAUSED:
            found += [(2.0, 'resume', [host]), (0.4, 'kill', [host])]
        elif state == DEAD:
            found.append((2.0, 'start', [host]))
        if state in (PAUSED, DEAD) and not view.down(host):
            found.append((2.0, 'wait_down', [host]))
        if view.forced(host):
            found.append((1.2, 'force_up', [host]))
        else:
            found.append(
                (1.0 if state != RUNNING else 0.2, 'force_down', [host])
            )
        # Refused while the host holds or moves servers: mostly refused.
        found.append((0.15, 'delete_service', [host]))
        found += _replace_steps(view, host)
    found += _central_steps(view, CONDUCTOR)
    found += _central_steps(view, API)
    if view.procs[API] == RUNNING and view.servers:
        found.append((0.2, 'api_crash', []))
    return found


def _replace_steps(view: View, host: str) -> list[Candidate]:
    """A second agent under the host name (model_twin.py): refused
    next to a freshly frozen agent, taking over from a frozen one whose
    service is down. Only while the conductor runs (a refusal
    needs its answer) and the host's service record exists (an agent
    whose record was deleted holds nothing)."""
    state = view.procs[host]
    if view.procs[CONDUCTOR] != RUNNING or host not in view.services:
        return []
    # Not drawn next to a running agent: a refusal costs a process start
    # and CI time, and the sequences of seeds that are multiples of 100
    # open with it (model_twin.OPENING).
    if state == PAUSED:
        return [(0.6 if view.down(host) else 0.1, 'replace', [host])]
    return []


def _central_steps(view: View, name: str) -> list[Candidate]:
    """Faults of the conductor or the API (one process each)."""
    state = view.procs[name]
    if state == RUNNING:
        return [
            (0.25, 'pause', [name]),
            (0.25, 'kill', [name]),
            (0.3, 'restart', [name]),
        ]
    if state == PAUSED:
        return [(2.5, 'resume', [name])]
    return [(3.0, 'start', [name])]


def choose(view: View, rng: random.Random) -> Step:
    """The next step, drawn from every possible one by weight."""
    candidates = _server_steps(view, rng) + _process_steps(view)
    weights = [c[0] for c in candidates]
    _, action, args = rng.choices(candidates, weights)[0]
    if action == 'api_crash':
        # Which request the crash cuts, and when (after it was sent).
        args = [
            rng.choice(sorted(view.servers)),
            rng.choice(CRASHABLE),
            round(rng.uniform(0, 0.3), 2),
        ]
    if rng.random() < SETTLE_CHANCE:
        return Step(action, args)
    return Step(
        action, args, settle=False, delay=round(rng.uniform(0, MAX_DELAY), 1)
    )
