"""Database faults under load: nova-lite-api and nova-lite-conductor on
MariaDB through a proxy that drops connections, refuses new ones
(restarts) and answers "Too many connections", two compute agents (they
have no database: their object calls go through the conductor).

Each run boots servers in parallel and deletes some of them (right
after the boot was accepted, or once active), as patient clients do
(again after a 503 or a 409), while seeded faults hit the database
(lite_common/tests/db_faults.py). Then:

- no request was answered 500 (nor any 5xx but 503), every 503 carried
  ``Retry-After``, every request was answered;
- every boot answered 202 ends ACTIVE with no task (or gone, when it was
  deleted), none in ERROR: a transient database error is no error the
  server earned; every delete answered 204 ends with the server gone.

CI runs ``NOVA_LITE_DB_FAULT_RUNS`` runs (default 1) of
``NOVA_LITE_DB_FAULT_SERVERS`` servers (default 8) from seed
``NOVA_LITE_DB_FAULT_SEED`` (default 2929). The long run (see
doc/source/contributor/testing.rst)::

    NOVA_LITE_DB_FAULT_RUNS=20 NOVA_LITE_DB_FAULT_SERVERS=30 \\
        .venv/bin/python -m pytest -s -p no:cacheprovider \\
        nova_lite/tests/integration/test_database_faults.py
"""

import dataclasses
import os
import random
import threading
import time
from typing import Any

import pytest

from lite_common.tests import db_faults
from lite_common.tests import db_proxy
from lite_common.tests import integration

RUNS = int(os.environ.get('NOVA_LITE_DB_FAULT_RUNS', '1'))
SERVERS = int(os.environ.get('NOVA_LITE_DB_FAULT_SERVERS', '8'))
SEED = int(os.environ.get('NOVA_LITE_DB_FAULT_SEED', '2929'))
#: Faults fall in the first WINDOW seconds of a run, while servers are
#: booted and deleted.
WINDOW = 12
#: Seconds a server may take to become ACTIVE or go.
SETTLE = 180
#: A boot whose request stored the server and then lost the database
#: (answered 503, "may or may not have been stored") is never sent to
#: the conductor: the recovery pass schedules it after
#: build_stall_timeout; shorter here, to see it end within the run.
CONTROLLER = {
    'database': {'request_retry_timeout': 2},
    'conductor': {'build_stall_timeout': 30, 'move_recovery_interval': 5},
    'quota': {'instances': -1, 'cores': -1, 'ram': -1},
}


proxy = db_proxy.module_fixture()


@pytest.fixture(scope='module')
def cloud(
    request: pytest.FixtureRequest,
    tmp_path_factory: Any,
    proxy: db_proxy.DatabaseProxy,
) -> Any:
    import devstack

    dep = devstack.start(
        tmp_path_factory.mktemp('db-faults'),
        db='mysql',
        computes=2,
        driver='fake',
        controller_options=CONTROLLER,
        db_port=proxy.port,
    )
    integration.register_cloud(request, dep)
    try:
        client = _client(dep)
        flavor = client.once(
            'POST',
            '/v2.1/flavors',
            {'flavor': {'name': 'dbf', 'vcpus': 1, 'ram': 64, 'disk': 1}},
        )
        image = client.once(
            'POST',
            '/image/v2/images',
            {'name': 'dbf', 'disk_format': 'raw', 'container_format': 'bare'},
        )
        assert (flavor.status, image.status) == (200, 201), (flavor, image)
        # (only an active image boots: its data first)
        data = client.once(
            'PUT', f'/image/v2/images/{image.body["id"]}/file', b'dbf image'
        )
        assert data.status == 204, data
        dep.boot_refs = (flavor.body['flavor']['id'], image.body['id'])
        yield dep
    finally:
        dep.stop()


@dataclasses.dataclass
class Book:
    """What the API acknowledged in one run: server id -> what became
    of it (``booted`` or ``deleted``)."""

    servers: dict[str, str] = dataclasses.field(default_factory=dict)
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)

    def note(self, server: str, what: str) -> None:
        with self.lock:
            self.servers[server] = what


def _client(cloud: Any) -> db_faults.Client:
    return db_faults.Client(
        cloud.api_url,
        'admin',
        cloud.passwords['admin'],
        {'OpenStack-API-Version': 'compute 2.53'},
    )


def _find(client: db_faults.Client, name: str) -> str | None:
    answer = client.patiently('GET', f'/v2.1/servers?name=^{name}$')
    assert answer.status == 200, answer
    found = answer.body['servers']
    return found[0]['id'] if found else None


def _boot(client: db_faults.Client, cloud: Any, name: str, book: Book) -> str:
    """The server's id; after a 503 it may exist: look first."""
    flavor, image = cloud.boot_refs
    for _attempt in range(60):
        found = _find(client, name)
        if found is not None:
            return found
        answer = client.once(
            'POST',
            '/v2.1/servers',
            {
                'server': {
                    'name': name,
                    'flavorRef': flavor,
                    'imageRef': image,
                    'networks': 'none',
                }
            },
        )
        if answer.status == 202:
            book.note(answer.body['server']['id'], 'booted')
            return answer.body['server']['id']
        assert answer.status in (409, 503), (name, answer)
        time.sleep(db_faults.RETRY_503)
    raise AssertionError(f'server {name} was never accepted')


def _show(client: db_faults.Client, server: str) -> dict[str, Any] | None:
    answer = client.patiently('GET', f'/v2.1/servers/{server}')
    if answer.status == 404:
        return None
    assert answer.status == 200, (server, answer)
    return answer.body['server']


def _wait_active(client: db_faults.Client, server: str) -> None:
    deadline = time.monotonic() + SETTLE
    while time.monotonic() < deadline:
        shown = _show(client, server)
        assert shown is not None, f'server {server} vanished'
        assert shown['status'] != 'ERROR', (server, shown.get('fault'))
        if (
            shown['status'] == 'ACTIVE'
            and shown['OS-EXT-STS:task_state'] is None
        ):
            return
        time.sleep(0.5)
    raise AssertionError(f'server {server} not ACTIVE in {SETTLE} s')


def _delete(client: db_faults.Client, server: str, book: Book) -> None:
    answer = client.patiently('DELETE', f'/v2.1/servers/{server}')
    # 404: an earlier attempt answered 503 had deleted it.
    assert answer.status in (204, 404), (server, answer)
    book.note(server, 'deleted')
    deadline = time.monotonic() + SETTLE
    while _show(client, server) is not None:
        assert time.monotonic() < deadline, f'{server} not gone'
        time.sleep(0.5)


def _drive(
    client: db_faults.Client, cloud: Any, name: str, fate: str, book: Book
) -> None:
    """Boot server ``name``; ``fate``: ``keep`` it, delete it ``early``
    (as soon as accepted) or ``late`` (once active)."""
    server = _boot(client, cloud, name, book)
    if fate != 'early':
        _wait_active(client, server)
    if fate != 'keep':
        _delete(client, server, book)


def _check(client: db_faults.Client, book: Book) -> list[str]:
    problems = client.problems()
    for server, what in sorted(book.servers.items()):
        shown = _show(client, server)
        if what == 'deleted' and shown is not None:
            problems.append(
                f'server {server} was answered 204 and is '
                f'still there: {shown["status"]}'
            )
        elif what == 'booted' and shown is None:
            problems.append(f'server {server} was answered 202 and is gone')
        elif what == 'booted' and (
            shown['status'] != 'ACTIVE'
            or shown['OS-EXT-STS:task_state'] is not None
        ):
            problems.append(
                f'server {server} ended {shown["status"]} / '
                f'{shown["OS-EXT-STS:task_state"]}: '
                f'{shown.get("fault")}'
            )
    return problems


def _run_once(
    cloud: Any, proxy: db_proxy.DatabaseProxy, seed: int, run: int
) -> dict[str, Any]:
    rng = random.Random(seed)
    faults = db_faults.plan(rng, WINDOW, rng.randint(3, 5))
    fates = [rng.choice(('keep', 'early', 'late')) for _ in range(SERVERS)]
    client, book = _client(cloud), Book()
    started = time.monotonic()
    applying = threading.Thread(target=db_faults.apply, args=(proxy, faults))
    applying.start()
    try:
        errors = db_faults.run_threads(
            [
                (_drive, (client, cloud, f'dbf-{run}-{index}', fate, book))
                for index, fate in enumerate(fates)
            ]
        )
    finally:
        applying.join()
    problems = errors + _check(client, book)
    report = {
        'seed': seed,
        'seconds': round(time.monotonic() - started, 1),
        'faults': [str(fault) for fault in faults],
        'proxy': dataclasses.asdict(proxy.counts),
        'statuses': client.statuses(),
        'problems': problems,
    }
    # The next run starts on empty hosts.
    db_faults.run_threads(
        [
            (_delete, (client, server, Book()))
            for server, what in book.servers.items()
            if what == 'booted'
        ]
    )
    return report


def test_database_faults_under_load(
    cloud: Any, proxy: db_proxy.DatabaseProxy
) -> None:
    failures = []
    for run in range(RUNS):
        report = _run_once(cloud, proxy, SEED + run, run)
        print(f'database faults run {run + 1}/{RUNS}: {report}')
        if report['problems']:
            failures.append(report)
    unexpected = [
        line
        for line in db_faults.error_lines(cloud.logs)
        if 'Unexpected' in line
    ]
    assert not failures and not unexpected, (
        'reproduce one with NOVA_LITE_DB_FAULT_SEED=<seed> '
        'NOVA_LITE_DB_FAULT_RUNS=1:\n'
        + '\n'.join(
            f'seed {r["seed"]}: faults {r["faults"]}: '
            + '; '.join(r['problems'])
            for r in failures
        )
        + '\n'
        + '\n'.join(unexpected)
    )
