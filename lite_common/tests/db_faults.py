"""The machinery of both database fault tests (ironic_lite's and
nova_lite's ``tests/integration/test_database_faults.py``).

:func:`plan` draws a seeded schedule of database faults, applied to a
:class:`~lite_common.tests.db_proxy.DatabaseProxy` by :func:`apply`:
``cut`` (every connection dropped), ``restart`` (dropped and refused for
a moment), ``limit`` (the server at its connection limit: error 1040 for
a while). :class:`Client` sends the tests' HTTP requests the way a
patient client does (again after a 503 or a 409) and records every
answer; :meth:`Client.problems` names those the issue forbids: a 500 (or
any 5xx but 503), a 503 without ``Retry-After``, no answer at all.

Everything stays on 127.0.0.1 and is bounded in count and time.
"""

import base64
import dataclasses
import json
import random
import threading
import time
from typing import Any
import urllib.error
import urllib.request

from lite_common.tests import db_proxy

KINDS = ('cut', 'restart', 'limit')
#: Seconds a client waits after a 503 before it asks again: shorter
#: than the Retry-After the APIs send (5 s), to keep the runs short.
RETRY_503 = 1.0
RETRY_409 = 0.5


@dataclasses.dataclass
class Fault:
    at: float
    kind: str
    seconds: float = 0.0  # restart: down; limit: how long
    connections: int = 0  # limit: how many may stay open

    def __str__(self) -> str:
        detail = {
            'cut': '',
            'restart': f' {self.seconds:.1f} s down',
            'limit': f' {self.connections} for {self.seconds:.1f} s',
        }
        return f'{self.kind}{detail[self.kind]} at {self.at:.1f} s'


def plan(rng: random.Random, window: float, count: int) -> list[Fault]:
    """``count`` faults in the first ``window`` seconds, in order."""
    faults = []
    for _ in range(count):
        kind = rng.choice(KINDS)
        fault = Fault(round(rng.uniform(0, window), 1), kind)
        if kind == 'restart':
            fault.seconds = round(rng.uniform(0.5, 3), 1)
        elif kind == 'limit':
            fault.seconds = round(rng.uniform(1, 4), 1)
            fault.connections = rng.randint(2, 6)
        faults.append(fault)
    return sorted(faults, key=lambda fault: fault.at)


def apply(proxy: db_proxy.DatabaseProxy, faults: list[Fault]) -> None:
    """Apply ``faults`` at their times (seconds from now); the proxy is
    open and unlimited again at the end."""
    started = time.monotonic()
    try:
        for fault in faults:
            time.sleep(max(0.0, fault.at - (time.monotonic() - started)))
            if fault.kind == 'cut':
                proxy.cut()
            elif fault.kind == 'restart':
                proxy.restart(fault.seconds)
            else:
                proxy.limit(fault.connections)
                time.sleep(fault.seconds)
                proxy.limit(None)
    finally:
        proxy.limit(None)
        proxy.accept()


@dataclasses.dataclass
class Answer:
    method: str
    path: str
    status: int  # 0: no answer
    body: Any
    retry_after: str | None


class Client:
    """HTTP requests of one test, as a patient client sends them."""

    def __init__(
        self,
        base_url: str,
        user: str,
        password: str,
        headers: dict[str, str],
        timeout: float = 60,
    ) -> None:
        self.base_url = base_url
        self.auth = (user, password)
        self.headers = headers
        self.timeout = timeout
        self.answers: list[Answer] = []
        self._lock = threading.Lock()

    def once(self, method: str, path: str, body: Any = None) -> Answer:
        """One request; its answer is recorded."""
        answer = self._send(method, path, body)
        with self._lock:
            self.answers.append(answer)
        return answer

    def patiently(
        self, method: str, path: str, body: Any = None, attempts: int = 60
    ) -> Answer:
        """Again after a 503 or a 409, as the clients do; the last
        answer."""
        for _ in range(attempts):
            answer = self.once(method, path, body)
            if answer.status == 503:
                time.sleep(RETRY_503)
            elif answer.status == 409:
                time.sleep(RETRY_409)
            else:
                return answer
        return answer

    def _send(self, method: str, path: str, body: Any) -> Answer:
        # (bytes are an image's data, sent as they are)
        binary = isinstance(body, bytes)
        data = body if binary or body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.base_url + path, data=data, method=method
        )
        token = base64.b64encode(':'.join(self.auth).encode()).decode()
        request.add_header('Authorization', f'Basic {token}')
        request.add_header('Accept', 'application/json')
        if data is not None:
            request.add_header(
                'Content-Type',
                'application/octet-stream' if binary else 'application/json',
            )
        for key, value in self.headers.items():
            request.add_header(key, value)
        try:
            with urllib.request.urlopen(
                request, timeout=self.timeout
            ) as response:
                status, raw = response.status, response.read()
                headers = response.headers
        except urllib.error.HTTPError as exc:
            status, raw, headers = exc.code, exc.read(), exc.headers
        except OSError as exc:
            return Answer(method, path, 0, str(exc), None)
        try:
            decoded = json.loads(raw) if raw else None
        except ValueError:
            decoded = raw.decode('utf-8', 'replace')
        return Answer(
            method, path, status, decoded, headers.get('Retry-After')
        )

    def problems(self) -> list[str]:
        """Every answer the issue forbids, as a sentence."""
        problems = []
        for answer in self.answers:
            where = f'{answer.method} {answer.path}'
            if answer.status == 0:
                problems.append(f'{where}: no answer ({answer.body})')
            elif answer.status >= 500 and answer.status != 503:
                problems.append(f'{where}: {answer.status} {answer.body}')
            elif answer.status == 503 and not answer.retry_after:
                problems.append(f'{where}: 503 without Retry-After')
        return problems

    def statuses(self) -> dict[int, int]:
        counts: dict[int, int] = {}
        for answer in self.answers:
            counts[answer.status] = counts.get(answer.status, 0) + 1
        return dict(sorted(counts.items()))


def run_threads(targets: list[tuple[Any, tuple[Any, ...]]]) -> list[str]:
    """Run ``func(*args)`` for each target on a thread of its own, and
    return the exceptions that escaped, as sentences."""
    errors: list[str] = []

    def run(func: Any, args: tuple[Any, ...]) -> None:
        try:
            func(*args)
        except Exception as exc:  # reported by the test
            named = [str(arg) for arg in args if isinstance(arg, str)]
            errors.append(
                f'{getattr(func, "__name__", func)}'
                f'({", ".join(named)}): '
                f'{type(exc).__name__}: {exc}'
            )

    threads = [threading.Thread(target=run, args=target) for target in targets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def error_lines(logs: Any) -> list[str]:
    """The services' log lines at ERROR or CRITICAL (first 20)."""
    lines = []
    for path in sorted(logs.glob('*.log')):
        with open(path, errors='replace') as log:
            lines += [
                f'{path.name}: {line.strip()[:300]}'
                for line in log
                if ' ERROR ' in line or ' CRITICAL ' in line
            ]
    return lines[:20]
