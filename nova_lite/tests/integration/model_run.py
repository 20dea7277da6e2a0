"""One sequence of the model-based evacuation test: seeded steps, each
followed by a bounded wait and the safety invariants; then the end
(model_end.py) and the strict invariants.

After a step the sequence waits until nothing that *can* move moves: an
instance with a task, or a migration in flight, whose processes (the
conductor, its host, the migration's hosts) all run. Something frozen or
dead is not waited for. An instance that still moves after
``STEP_TIMEOUT`` is marked stalled (not waited for again until it
changes).

Liveness (issue 29: every flow ends): an instance in a task or with a
migration in flight, and a migration in flight of a deleted instance,
may keep one state for at most ``LIVENESS_BOUND`` seconds while every
process it needs runs (counted from the later of the state's first
sight and the last change of those processes); past it the sequence
fails. The bound covers the slowest recovery by design: a request lost
with a conductor's answer (the agent waits ``rpc_response_timeout``,
60 s), then a housekeeping pass or the conductor's stall recovery.
"""

import random
import time
from typing import Any

from nova_lite.tests.integration import model
from nova_lite.tests.integration import model_end
from nova_lite.tests.integration import model_report
from nova_lite.tests.integration import model_steps
from nova_lite.tests.integration import model_twin
from nova_lite.tests.integration.model_cloud import CONDUCTOR
from nova_lite.tests.integration.model_cloud import NO_ANSWER
from nova_lite.tests.integration.model_cloud import START_TIMEOUT
from nova_lite.tests.integration.model_cloud import STARTING
from nova_lite.tests.integration.model_cloud import Answer
from nova_lite.tests.integration.model_cloud import APIFailure
from nova_lite.tests.integration.model_cloud import ModelCloud
from nova_lite.tests.integration.model_steps import Step

STEP_TIMEOUT = 45
LIVENESS_BOUND = 150
# The time bound of a sequence: this per step, plus END_BUDGET.
STEP_BUDGET = 100
END_BUDGET = 600
REFUSALS = (400, 404, 409)


class SequenceFailure(AssertionError):
    """An invariant broke, a wait ran out, or the API failed."""


class Sequence:
    """``steps`` steps drawn with ``random.Random(seed)``, or exactly the
    ``replay`` steps."""

    def __init__(
        self,
        cloud: ModelCloud,
        seed: int,
        steps: int,
        replay: list[Step] | None = None,
    ) -> None:
        self.cloud = cloud
        self.seed = seed
        self.rng = random.Random(seed)
        self.replay = replay
        self.count = len(replay) if replay is not None else steps
        # Fixed first steps of some seeds (the replace fault), drawn
        # steps after them.
        self.opening = model_twin.opening(seed) if replay is None else []
        self.done: list[tuple[Step, str]] = []
        self.servers: dict[str, str] = {}
        self.stalled: dict[str, tuple] = {}
        # key -> (state, when first seen) of what can move (liveness).
        self.seen: dict[str, tuple[tuple, float]] = {}
        self.killed = False  # a SIGKILL may have lost a request
        self.notes: list[str] = []
        self.heartbeat_age = 0.0
        self.deadline = (
            time.monotonic() + self.count * STEP_BUDGET + END_BUDGET
        )
        self.snap: model.Snapshot | None = None

    # -- running ---

    def run(self) -> None:
        try:
            self.snap = self.cloud.snapshot()
            model_end.check_clean(self)
            for index in range(self.count):
                step = self._next(index)
                self.done.append((step, self._do(step)))
                print(
                    f'seed {self.seed} step {index + 1}: {step} -> '
                    f'{self.done[-1][1]}',
                    flush=True,
                )
                self.snap = self._after(step)
                broken = model.safety_violations(self.snap)
                if broken:
                    self.fail(
                        f'safety invariant broken after step {index + 1}',
                        broken,
                    )
            model_end.finish(self)
        except SequenceFailure:
            raise
        except (APIFailure, TimeoutError, RuntimeError) as exc:
            self.fail(f'{type(exc).__name__}: {exc}', [])

    def _next(self, index: int) -> Step:
        if self.replay is not None:
            return self.replay[index]
        if index < len(self.opening):
            return self.opening[index]
        assert self.snap is not None
        return model_steps.choose(
            model_steps.View(
                self.snap,
                self.cloud.services(),
                dict(self.cloud.procs),
                dict(self.servers),
                self._stalled(self.snap),
                self.cloud.hosts,
            ),
            self.rng,
        )

    def fail(self, headline: str, violations: list[str]) -> None:
        raise SequenceFailure(model_report.report(self, headline, violations))

    def remaining(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError('the sequence exceeded its time bound')
        return left

    # -- what runs between steps ---

    def _after(self, step: Step) -> model.Snapshot:
        if step.settle:
            return self.quiesce(STEP_TIMEOUT)
        time.sleep(step.delay)
        self.cloud.refresh()
        snap = self.cloud.snapshot()
        self._check_liveness(snap)
        return snap

    def _can_move(
        self, snap: model.Snapshot
    ) -> dict[str, tuple[tuple, list[str]]]:
        """key -> (state, processes it needs) of everything that is not
        at rest and whose processes all work: instances (by uuid) and
        migrations in flight of deleted instances (``mig-<id>``)."""
        found = {}
        for inst in snap.records.instances.values():
            flying = [
                m
                for m in snap.records.migrations_of(inst.uuid)
                if m.status in model.IN_FLIGHT
            ]
            if (
                inst.task_state is None
                and not flying
                and (inst.vm_state != model.BUILDING)
            ):
                continue
            needed = (
                [CONDUCTOR, inst.host]
                + [m.source_compute for m in flying]
                + [m.dest_compute for m in flying]
            )
            found[inst.uuid] = (
                (
                    inst.vm_state,
                    inst.task_state,
                    tuple((m.id, m.status) for m in flying),
                ),
                [n for n in needed if n],
            )
        for mig in snap.records.migrations:
            if mig.status in model.IN_FLIGHT and (
                mig.instance_uuid not in snap.records.instances
            ):
                found[f'mig-{mig.id}'] = (
                    (mig.status,),
                    [
                        n
                        for n in (
                            CONDUCTOR,
                            mig.source_compute,
                            mig.dest_compute,
                        )
                        if n
                    ],
                )
        return {
            key: value
            for key, value in found.items()
            if all(self.cloud.working(n) for n in value[1])
        }

    def _moving(self, snap: model.Snapshot) -> dict[str, tuple]:
        """uuid -> state of the instances that can still move."""
        return {
            key: state
            for key, (state, _) in self._can_move(snap).items()
            if not key.startswith('mig-') and self.stalled.get(key) != state
        }

    def _check_liveness(self, snap: model.Snapshot) -> None:
        """Fail when something has kept one state past LIVENESS_BOUND
        while every process it needs worked (module docstring)."""
        now = time.monotonic()
        can_move = self._can_move(snap)
        stuck = []
        for key, (state, needed) in can_move.items():
            seen = self.seen.get(key)
            if seen is None or seen[0] != state:
                self.seen[key] = seen = (state, now)
            since = max([seen[1], *(self.cloud.changed_at[n] for n in needed)])
            if now - since > LIVENESS_BOUND:
                stuck.append(
                    f'NEVER ENDS {key}: {state} for '
                    f'{now - since:.0f} s while {needed} ran'
                )
        self.seen = {k: v for k, v in self.seen.items() if k in can_move}
        if stuck:
            self.snap = snap
            self.fail('liveness: a flow did not end', stuck)

    def _stalled(self, snap: model.Snapshot) -> set[str]:
        return {
            uuid
            for uuid, state in self.stalled.items()
            if uuid in snap.records.instances
            and self._state(snap, uuid) == state
        }

    @staticmethod
    def _state(snap: model.Snapshot, uuid: str) -> tuple:
        inst = snap.records.instances[uuid]
        flying = [
            m
            for m in snap.records.migrations_of(uuid)
            if m.status in model.IN_FLIGHT
        ]
        return (
            inst.vm_state,
            inst.task_state,
            tuple((m.id, m.status) for m in flying),
        )

    def quiesce(self, timeout: float) -> model.Snapshot:
        """Until nothing that can move moves (or ``timeout``: what
        still moves is then stalled); computes that can start have."""
        end = time.monotonic() + min(timeout, self.remaining())
        start_end = time.monotonic() + min(START_TIMEOUT, self.remaining())
        while True:
            self.cloud.refresh()
            self._measure_heartbeats()
            snap = self.cloud.snapshot()
            self._check_liveness(snap)
            moving = self._moving(snap)
            starting = (
                STARTING in self.cloud.procs.values()
                and self.cloud.running(CONDUCTOR)
            )
            if not moving and not starting:
                return snap
            # A compute whose start-up call died with a restarted
            # conductor waits rpc_response_timeout (60 s) before it starts
            # up again (seed 22019): starting computes get START_TIMEOUT.
            if starting and time.monotonic() > start_end:
                raise TimeoutError(
                    f'computes did not start: {self.cloud.procs}'
                )
            if time.monotonic() > end and not starting:
                self.stalled.update(moving)
                self.notes.append(
                    f'after step {len(self.done)}: stalled '
                    f'{sorted(moving.items())}'
                )
                return snap
            self.remaining()
            time.sleep(0.5)

    def _measure_heartbeats(self) -> None:
        """The oldest heartbeat of a running compute once everything has
        run for a few heartbeats: how close service_down_time is to a
        false 'down'."""
        if self.cloud.settled_for() < 3 * self.cloud.dep.report_interval:
            return
        ages = self.cloud.heartbeat_ages()
        self.heartbeat_age = max([self.heartbeat_age, *ages.values()])

    # -- the steps ---

    def _do(self, step: Step) -> str:
        handler = getattr(self, f'_do_{step.action}', None)
        if handler is None:
            raise RuntimeError(f'unknown step {step}')
        if step.action in model_steps.SERVER_ACTIONS and (
            step.args[0] not in self.servers and step.action != 'boot'
        ):
            return f'skipped: no server {step.args[0]}'
        result = handler(*step.args)
        if isinstance(result, Answer):
            if not result.ok and result.status not in REFUSALS + (NO_ANSWER,):
                raise APIFailure(f'{step}: unexpected answer {result}')
            return str(result)
        return result or 'done'

    def _inst(self, slot: str) -> model.Instance | None:
        assert self.snap is not None
        return self.snap.records.instances.get(self.servers[slot])

    def _do_boot(self, slot: str) -> Answer:
        answer = self.cloud.boot(
            f'model-{self.seed}-{slot}', self.cloud.flavors[0]
        )
        if answer.ok:
            self.servers[slot] = answer.body['server']['id']
        return answer

    def _do_delete(self, slot: str) -> Answer:
        return self.cloud.delete(self.servers[slot])

    def _do_rebuild(self, slot: str) -> Answer:
        return self.cloud.action(
            self.servers[slot], {'rebuild': {'imageRef': self.cloud.image}}
        )

    def _do_server_stop(self, slot: str) -> Answer:
        return self.cloud.action(self.servers[slot], {'os-stop': None})

    def _do_server_start(self, slot: str) -> Answer:
        return self.cloud.action(self.servers[slot], {'os-start': None})

    def _do_reboot(self, slot: str, kind: str = 'SOFT') -> Answer:
        return self.cloud.action(
            self.servers[slot], {'reboot': {'type': kind}}
        )

    def _do_delete_service(self, host: str) -> Answer:
        return self.cloud.delete_service(host)

    def _do_api_crash(self, slot: str, what: str, delay: float) -> str:
        """Send ``what`` for ``slot`` and SIGKILL the API ``delay``
        seconds later (mid-request, or just after it), then start it
        again: what it stored is kept, what it had not sent on must
        still end (liveness)."""
        if slot not in self.servers:
            return f'skipped: no server {slot}'
        answer = self.cloud.crash_api_during(
            lambda: getattr(self, f'_do_{what}')(slot), delay
        )
        if (
            answer is not None
            and not answer.ok
            and (answer.status not in REFUSALS + (NO_ANSWER,))
        ):
            raise APIFailure(f'api_crash {what}: unexpected answer {answer}')
        return f'{what}: {answer}'

    def _do_evacuate(self, slot: str, host: str | None) -> Answer:
        spec = {'host': host} if host else {}
        return self.cloud.action(self.servers[slot], {'evacuate': spec})

    def _do_migrate(self, slot: str, host: str | None = None) -> Answer:
        spec = {'host': host} if host else None
        return self.cloud.action(
            self.servers[slot], {'migrate': spec}, version='2.56'
        )

    def _do_resize(self, slot: str) -> Answer:
        inst = self._inst(slot)
        small, large = self.cloud.flavors
        flavor = large if inst is None or inst.vcpus == 1 else small
        return self.cloud.action(
            self.servers[slot], {'resize': {'flavorRef': flavor}}
        )

    def _do_confirm(self, slot: str) -> Answer:
        return self.cloud.action(self.servers[slot], {'confirmResize': None})

    def _do_revert(self, slot: str) -> Answer:
        return self.cloud.action(self.servers[slot], {'revertResize': None})

    def _do_reset(self, slot: str, state: str) -> Answer:
        return self.cloud.action(
            self.servers[slot], {'os-resetState': {'state': state}}
        )

    def _do_shelve(self, slot: str) -> Answer:
        return self.cloud.action(self.servers[slot], {'shelve': None})

    def _do_offload(self, slot: str) -> Answer:
        return self.cloud.action(self.servers[slot], {'shelveOffload': None})

    def _do_unshelve(self, slot: str) -> Answer:
        return self.cloud.action(self.servers[slot], {'unshelve': None})

    def _do_force_down(self, host: str) -> Answer:
        return self.cloud.force(host, True)

    def _do_force_up(self, host: str) -> Answer:
        return self.cloud.force(host, False)

    def _do_pause(self, name: str) -> None:
        self.cloud.pause(name)

    def _do_resume(self, name: str) -> None:
        self.cloud.resume(name)

    def _do_kill(self, name: str) -> None:
        self.killed = True
        self.cloud.kill(name)

    def _do_restart(self, name: str) -> None:
        self.cloud.restart(name)

    def _do_start(self, name: str) -> None:
        self.cloud.start(name)

    def _do_replace(self, host: str) -> str:
        return model_twin.replace(self.cloud, host)

    def _do_wait_down(self, host: str) -> str:
        """Until the host's service is down (its agent frozen or dead
        for service_down_time), bounded."""
        end = time.monotonic() + self.cloud.dep.service_down_time + 15
        while time.monotonic() < end:
            if self.cloud.services().get(host, {}).get('state') == 'down':
                return 'down'
            time.sleep(0.5)
        return 'still up'

    def describe(self) -> dict[str, Any]:
        return {
            'seed': self.seed,
            'steps': len(self.done),
            'servers': dict(self.servers),
            'notes': self.notes,
            'heartbeat_age': round(self.heartbeat_age, 1),
        }
