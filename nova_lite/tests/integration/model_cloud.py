"""The model-based evacuation test's hands on a devstack deployment: the
Compute API (REST, admin basic auth) and the service processes (SIGSTOP,
SIGCONT, SIGKILL, SIGTERM and start, for computes and the conductor),
with the state of every process as the test made it.

A refusal (4xx) is an answer the test learns from; a 5xx or no answer
is an :class:`APIFailure`.
"""

import dataclasses
import datetime
import time
from typing import Any

import devstack
import devstack_support as support
import sqlalchemy as sa

from nova_lite.tests.integration import model

RUNNING, PAUSED, DEAD, STARTING = 'running', 'paused', 'dead', 'starting'
CONDUCTOR = 'conductor'
API_TIMEOUT = 60
START_TIMEOUT = 120
RPC_TIMEOUT = 60      # oslo.messaging's rpc_response_timeout default


class APIFailure(AssertionError):
    """The API answered 5xx, or not at all."""


@dataclasses.dataclass
class Answer:
    status: int
    body: Any

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def __str__(self) -> str:
        """The status, and the message of a refusal."""
        if self.ok or not isinstance(self.body, dict):
            return str(self.status)
        fault = next(iter(self.body.values()), None)
        message = fault.get('message') if isinstance(fault, dict) else None
        return f'{self.status} {message or self.body}'[:300]


class ModelCloud:
    """One deployment (3 computes, local driver) and what runs in it."""

    def __init__(self, dep: devstack.Deployment) -> None:
        assert dep.db_url is not None
        self.dep = dep
        self.engine = sa.create_engine(dep.db_url, pool_pre_ping=True)
        self.procs = {name: RUNNING for name in [*dep.computes, CONDUCTOR]}
        self.changed = time.monotonic()   # when a process state changed
        self.conductor_changed = self.changed
        self.offsets: dict[str, int] = {}
        self.flavors: list[str] = []
        self.image = ''

    @property
    def hosts(self) -> list[str]:
        return sorted(self.dep.computes)

    def close(self) -> None:
        self.engine.dispose()

    # -- the API ---

    def call(self, method: str, path: str, body: Any = None,
             version: str = '2.53') -> Answer:
        try:
            status, answer = support.http_request(
                self.dep.api_url + path, 'admin',
                self.dep.passwords['admin'], method, API_TIMEOUT, body,
                {'OpenStack-API-Version': f'compute {version}'})
        except OSError as exc:
            raise APIFailure(f'{method} {path}: no answer ({exc})') from exc
        if status >= 500:
            raise APIFailure(f'{method} {path} {body}: {status} {answer}')
        return Answer(status, answer)

    def prepare(self, suffix: str) -> None:
        """Two flavors (resizable both ways: same disk) and an image."""
        self.flavors = []
        for name, vcpus, ram in (('small', 1, 256), ('large', 2, 512)):
            answer = self.call('POST', '/v2.1/flavors', {'flavor': {
                'name': f'model-{name}-{suffix}', 'vcpus': vcpus,
                'ram': ram, 'disk': 1}})
            assert answer.status == 200, answer
            self.flavors.append(answer.body['flavor']['id'])
        answer = self.call('POST', '/image/v2/images', {
            'name': f'model-{suffix}', 'disk_format': 'raw',
            'container_format': 'bare'})
        assert answer.status == 201, answer
        self.image = answer.body['id']

    def boot(self, name: str, flavor: str) -> Answer:
        return self.call('POST', '/v2.1/servers', {'server': {
            'name': name, 'flavorRef': flavor, 'imageRef': self.image,
            'networks': 'none'}})

    def delete(self, uuid: str) -> Answer:
        return self.call('DELETE', f'/v2.1/servers/{uuid}')

    def action(self, uuid: str, body: dict[str, Any],
               version: str = '2.53') -> Answer:
        return self.call('POST', f'/v2.1/servers/{uuid}/action', body,
                         version)

    def services(self) -> dict[str, dict[str, Any]]:
        """host -> nova-compute service (id, state, forced_down...)."""
        answer = self.call('GET', '/v2.1/os-services?binary=nova-compute')
        assert answer.status == 200, answer
        return {s['host']: s for s in answer.body['services']}

    def force(self, host: str, down: bool) -> Answer:
        service = self.services().get(host)
        if service is None:
            return Answer(404, f'no compute service of {host}')
        return self.call('PUT', f'/v2.1/os-services/{service["id"]}',
                         {'forced_down': down})

    def heartbeat_ages(self) -> dict[str, float]:
        """host -> seconds since its compute's last heartbeat."""
        now = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
        with self.engine.connect() as conn:
            rows = conn.execute(sa.text(
                "SELECT host, last_seen_up FROM services WHERE deleted = 0 "
                "AND `binary` = 'nova-compute'")).all()
        return {row.host: (now - row.last_seen_up).total_seconds()
                for row in rows if row.last_seen_up is not None}

    def snapshot(self) -> model.Snapshot:
        return model.snapshot(self.engine, {
            name: c.state_path for name, c in self.dep.computes.items()})

    # -- processes ---

    def running(self, name: str) -> bool:
        return self.procs[name] == RUNNING

    def _set(self, name: str, state: str) -> None:
        self.procs[name] = state
        self.changed = time.monotonic()
        if name == CONDUCTOR:
            self.conductor_changed = self.changed

    def settled_for(self) -> float:
        """Seconds since every process has been running (0 if not). A
        heartbeat sent to a conductor that went away waits for the RPC
        timeout (60 s): until then, 0 too."""
        now = time.monotonic()
        if any(state != RUNNING for state in self.procs.values()) or (
                now - self.conductor_changed < RPC_TIMEOUT + 5):
            return 0.0
        return now - self.changed

    def pause(self, name: str) -> None:
        self.dep.pause(name)
        self._set(name, PAUSED)

    def resume(self, name: str) -> None:
        self.dep.resume(name)
        self._set(name, RUNNING if name == CONDUCTOR or (
            name not in self.offsets) else STARTING)
        self.refresh()

    def kill(self, name: str) -> None:
        self.dep.kill(name)
        self._set(name, DEAD)
        self.offsets.pop(name, None)

    def stop(self, name: str) -> None:
        """SIGTERM (SIGKILL after 30 s)."""
        self.dep.terminate([name], timeout=30)
        self._set(name, DEAD)
        self.offsets.pop(name, None)

    def start(self, name: str) -> None:
        """Start a dead process. A compute starts in the background (it
        waits for a conductor); the conductor is waited for."""
        if name == CONDUCTOR:
            self.dep.start_conductor(timeout=START_TIMEOUT)
            self._set(name, RUNNING)
            return
        self.offsets[name] = self.dep.log_offset(name)
        self.dep.start_compute(name, wait=False)
        self._set(name, STARTING)

    def restart(self, name: str) -> None:
        self.stop(name)
        self.start(name)

    def refresh(self) -> None:
        """Computes that finished starting are running; a process that
        exited by itself fails the test."""
        self.dep.check_alive()
        for name, offset in list(self.offsets.items()):
            if self.procs[name] == STARTING and self.dep.logged(
                    name, devstack.STARTED, offset):
                self._set(name, RUNNING)
                del self.offsets[name]

    def wait_started(self, timeout: float = START_TIMEOUT) -> None:
        """Until every starting compute has started, if it can (the
        conductor runs)."""
        if not self.running(CONDUCTOR):
            return

        def started() -> bool:
            self.refresh()
            return STARTING not in self.procs.values()
        support.wait_for(started, timeout, 'the computes to start')
