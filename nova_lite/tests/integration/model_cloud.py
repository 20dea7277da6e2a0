"""The model-based evacuation test's hands on a devstack deployment: the
Compute API (REST, admin basic auth) and the service processes (SIGSTOP,
SIGCONT, SIGKILL, SIGTERM and start, for computes, the conductor and the
API), with the state of every process as the test made it.

A refusal (4xx) is an answer the test learns from; a 5xx is an
:class:`APIFailure`, and so is no answer from an API the test left
running. A request to an API the test froze or killed gets no answer
within :data:`IMPAIRED_TIMEOUT` (a client giving up): that is an answer
too (status 0), and a frozen API may still carry the request out when
it wakes up. Service states are read from the database (as the API
computes them), so that they are known while the API is impaired.
"""

from collections.abc import Callable
import dataclasses
import datetime
import http.client
import threading
import time
from typing import Any

import devstack
import devstack_support as support
import sqlalchemy as sa

from nova_lite.tests.integration import model

RUNNING, PAUSED, DEAD, STARTING = 'running', 'paused', 'dead', 'starting'
CONDUCTOR = 'conductor'
API = 'api'
API_TIMEOUT = 60
# How long a client waits for an API the test froze or killed.
IMPAIRED_TIMEOUT = 3
NO_ANSWER = 0
START_TIMEOUT = 120
RPC_TIMEOUT = 60  # oslo.messaging's rpc_response_timeout default


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
        if self.status == NO_ANSWER:
            return f'no answer ({self.body})'
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
        self.procs = {
            name: RUNNING for name in [*dep.computes, CONDUCTOR, API]
        }
        self.changed = time.monotonic()  # when a process state changed
        # name -> when its state last changed (for the liveness bound).
        self.changed_at = dict.fromkeys(self.procs, self.changed)
        self.conductor_changed = self.changed
        # Hosts whose compute service record was deleted while their
        # agent ran: it does nothing until it starts again.
        self.unregistered: set[str] = set()
        # While the test kills the API under a request of its own.
        self.crashing = False
        self.offsets: dict[str, int] = {}
        self.flavors: list[str] = []
        self.image = ''

    @property
    def hosts(self) -> list[str]:
        return sorted(self.dep.computes)

    def close(self) -> None:
        self.engine.dispose()

    # -- the API ---

    def call(
        self, method: str, path: str, body: Any = None, version: str = '2.53'
    ) -> Answer:
        impaired = self.procs[API] != RUNNING or self.crashing
        try:
            status, answer = support.http_request(
                self.dep.api_url + path,
                'admin',
                self.dep.passwords['admin'],
                method,
                IMPAIRED_TIMEOUT if impaired else API_TIMEOUT,
                body,
                {'OpenStack-API-Version': f'compute {version}'},
            )
        except (OSError, http.client.HTTPException) as exc:
            # An answer cut short is no answer either (IncompleteRead:
            # the API was killed while it sent it).
            if impaired:
                why = (
                    'killed under the request'
                    if self.crashing
                    else self.procs[API]
                )
                return Answer(NO_ANSWER, f'the API is {why}')
            raise APIFailure(f'{method} {path}: no answer ({exc})') from exc
        if status >= 500:
            raise APIFailure(f'{method} {path} {body}: {status} {answer}')
        return Answer(status, answer)

    def prepare(self, suffix: str) -> None:
        """Two flavors (resizable both ways: same disk) and an image."""
        self.flavors = []
        for name, vcpus, ram in (('small', 1, 256), ('large', 2, 512)):
            answer = self.call(
                'POST',
                '/v2.1/flavors',
                {
                    'flavor': {
                        'name': f'model-{name}-{suffix}',
                        'vcpus': vcpus,
                        'ram': ram,
                        'disk': 1,
                    }
                },
            )
            assert answer.status == 200, answer
            self.flavors.append(answer.body['flavor']['id'])
        answer = self.call(
            'POST',
            '/image/v2/images',
            {
                'name': f'model-{suffix}',
                'disk_format': 'raw',
                'container_format': 'bare',
            },
        )
        assert answer.status == 201, answer
        self.image = answer.body['id']
        # (only an active image boots: its data first)
        answer = self.call(
            'PUT', f'/image/v2/images/{self.image}/file', b'model image'
        )
        assert answer.status == 204, answer

    def boot(self, name: str, flavor: str) -> Answer:
        return self.call(
            'POST',
            '/v2.1/servers',
            {
                'server': {
                    'name': name,
                    'flavorRef': flavor,
                    'imageRef': self.image,
                    'networks': 'none',
                }
            },
        )

    def delete(self, uuid: str) -> Answer:
        return self.call('DELETE', f'/v2.1/servers/{uuid}')

    def action(
        self, uuid: str, body: dict[str, Any], version: str = '2.53'
    ) -> Answer:
        return self.call('POST', f'/v2.1/servers/{uuid}/action', body, version)

    def services(self) -> dict[str, dict[str, Any]]:
        """host -> nova-compute service: id (the uuid, as the API shows
        it from 2.53), state (up or down, as the API computes it) and
        forced_down; read from the database."""
        now = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.text(
                    'SELECT uuid, host, forced_down, last_seen_up FROM '
                    'services '
                    "WHERE deleted = 0 AND `binary` = 'nova-compute'"
                )
            ).all()
        limit = self.dep.service_down_time
        return {
            row.host: {
                'id': row.uuid,
                'host': row.host,
                'forced_down': bool(row.forced_down),
                'state': 'up'
                if not row.forced_down
                and row.last_seen_up
                and (abs((now - row.last_seen_up).total_seconds()) <= limit)
                else 'down',
            }
            for row in rows
        }

    def delete_service(self, host: str) -> Answer:
        """DELETE the compute service of ``host``; an agent that runs
        then does nothing until it starts again."""
        service = self.services().get(host)
        if service is None:
            return Answer(404, f'no compute service of {host}')
        answer = self.call('DELETE', f'/v2.1/os-services/{service["id"]}')
        if answer.ok and self.procs[host] in (RUNNING, PAUSED, STARTING):
            self.unregistered.add(host)
        return answer

    def force(self, host: str, down: bool) -> Answer:
        service = self.services().get(host)
        if service is None:
            return Answer(404, f'no compute service of {host}')
        return self.call(
            'PUT', f'/v2.1/os-services/{service["id"]}', {'forced_down': down}
        )

    def heartbeat_ages(self) -> dict[str, float]:
        """host -> seconds since its compute's last heartbeat."""
        now = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.text(
                    'SELECT host, last_seen_up FROM services WHERE deleted '
                    '= 0 '
                    "AND `binary` = 'nova-compute'"
                )
            ).all()
        return {
            row.host: (now - row.last_seen_up).total_seconds()
            for row in rows
            if row.last_seen_up is not None
        }

    def snapshot(self) -> model.Snapshot:
        return model.snapshot(
            self.engine,
            {name: c.state_path for name, c in self.dep.computes.items()},
        )

    # -- processes ---

    def running(self, name: str) -> bool:
        return self.procs[name] == RUNNING

    def _set(self, name: str, state: str) -> None:
        self.procs[name] = state
        self.changed = self.changed_at[name] = time.monotonic()
        if name == CONDUCTOR:
            self.conductor_changed = self.changed

    def working(self, name: str) -> bool:
        """Running, and (a compute) registered."""
        return self.procs.get(name) == RUNNING and (
            name not in self.unregistered
        )

    def settled_for(self) -> float:
        """Seconds since every process has been running (0 if not). A
        heartbeat sent to a conductor that went away waits for the RPC
        timeout (60 s): until then, 0 too."""
        now = time.monotonic()
        if any(state != RUNNING for state in self.procs.values()) or (
            now - self.conductor_changed < RPC_TIMEOUT + 5
        ):
            return 0.0
        return now - self.changed

    def pause(self, name: str) -> None:
        self.dep.pause(name)
        self._set(name, PAUSED)

    def resume(self, name: str) -> None:
        self.dep.resume(name)
        self._set(
            name,
            RUNNING
            if name in (CONDUCTOR, API) or (name not in self.offsets)
            else STARTING,
        )
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
        waits for a conductor); the conductor and the API are waited
        for."""
        if name == CONDUCTOR:
            self.dep.start_conductor(timeout=START_TIMEOUT)
            self._set(name, RUNNING)
            return
        if name == API:
            self.dep.spawn(API, 'nova-lite-api', self.dep.api_conf)
            self.dep.wait_api(START_TIMEOUT)
            self._set(name, RUNNING)
            return
        self.unregistered.discard(name)
        self.offsets[name] = self.dep.log_offset(name)
        self.dep.start_compute(name, wait=False)
        self._set(name, STARTING)

    def crash_api_during(
        self, request: Callable[[], Answer], delay: float
    ) -> Answer | None:
        """Run ``request`` in a thread, SIGKILL the API ``delay``
        seconds after it began, start the API again; the request's
        answer (status 0: none), None if it did not return in time."""
        answers: list[Answer] = []
        self.crashing = True
        try:
            thread = threading.Thread(
                target=lambda: answers.append(request()), daemon=True
            )
            thread.start()
            time.sleep(delay)
            self.kill(API)
            thread.join(API_TIMEOUT)
        finally:
            self.crashing = False
        self.start(API)
        return answers[0] if answers else None

    def restart(self, name: str) -> None:
        self.stop(name)
        self.start(name)

    def refresh(self) -> None:
        """Computes that finished starting are running; a process that
        exited by itself fails the test."""
        self.dep.check_alive()
        for name, offset in list(self.offsets.items()):
            if self.procs[name] == STARTING and self.dep.logged(
                name, devstack.STARTED, offset
            ):
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
