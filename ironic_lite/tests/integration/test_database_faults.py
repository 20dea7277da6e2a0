"""Database faults under load: ironic-lite-api and three conductors on
MariaDB through a proxy that drops connections, refuses new ones
(restarts) and answers "Too many connections" (issue 29: with a MariaDB
user limited to 6 connections, 40 parallel provide calls gave 13 x 500
and 14 nodes in ``clean failed``).

Each run drives nodes from creation to ``available`` in parallel, as
patient clients do (again after a 503 or a 409): create, PATCH, manage,
PATCH, provide (automated cleaning), deploy, PATCH, tear down (cleaning
again), while seeded faults hit the database
(lite_common/tests/db_faults.py). Then:

- no request was answered 500 (nor any 5xx but 503), every 503 carried
  ``Retry-After``, every request was answered;
- every node answered 201 exists, every PATCH answered 200 is stored;
- every node ends ``available`` and unlocked: no cleaning failed, the
  flows waited for the database ([database]flow_retry_timeout is far
  longer than the faults).

CI runs ``IRONIC_LITE_DB_FAULT_RUNS`` runs (default 1) of
``IRONIC_LITE_DB_FAULT_NODES`` nodes (default 8) from seed
``IRONIC_LITE_DB_FAULT_SEED`` (default 2929). The long run (see
doc/source/contributor/testing.rst)::

    IRONIC_LITE_DB_FAULT_RUNS=20 IRONIC_LITE_DB_FAULT_NODES=40 \\
        .venv/bin/python -m pytest -s -p no:cacheprovider \\
        ironic_lite/tests/integration/test_database_faults.py
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

RUNS = int(os.environ.get('IRONIC_LITE_DB_FAULT_RUNS', '1'))
NODES = int(os.environ.get('IRONIC_LITE_DB_FAULT_NODES', '8'))
SEED = int(os.environ.get('IRONIC_LITE_DB_FAULT_SEED', '2929'))
#: Faults fall in the first WINDOW seconds of a run, while the nodes
#: are created, managed, cleaned, deployed and torn down.
WINDOW = 15
#: Seconds a node may take to reach a state once asked (cleaning of the
#: fake hardware takes seconds; a loaded machine, more).
SETTLE = 180
OPTIONS = {
    'conductor': {
        'heartbeat_interval': 1,
        'heartbeat_timeout': 10,
        'clean_step_poll_interval': 1,
    },
    'database': {'request_retry_timeout': 2},
}
#: States a node passes through on its way to each target.
ON_THE_WAY = {
    'manageable': {'verifying', 'manageable'},
    'available': {'deleting', 'cleaning', 'clean wait', 'available'},
    'active': {'deploying', 'wait call-back', 'active'},
}


proxy = db_proxy.module_fixture()


@pytest.fixture(scope='module')
def cloud(
    request: pytest.FixtureRequest,
    tmp_path_factory: Any,
    proxy: db_proxy.DatabaseProxy,
) -> Any:
    import devstack_ironic

    dep = devstack_ironic.start(
        tmp_path_factory.mktemp('db-faults'),
        db='mysql',
        conductors=3,
        step_delay=0.2,
        options=OPTIONS,
        db_port=proxy.port,
    )
    integration.register_cloud(request, dep)
    try:
        yield dep
    finally:
        dep.stop()


@dataclasses.dataclass
class Book:
    """What the API acknowledged in one run."""

    created: dict[str, str] = dataclasses.field(default_factory=dict)
    patched: dict[str, list[str]] = dataclasses.field(default_factory=dict)
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)


def _client(cloud: Any) -> db_faults.Client:
    return db_faults.Client(
        cloud.api_url,
        'admin',
        cloud.passwords['admin'],
        {'X-OpenStack-Ironic-API-Version': 'latest'},
    )


def _create(client: db_faults.Client, name: str, book: Book) -> str:
    """The node's uuid; after a 503 the node may exist: look first."""
    for _attempt in range(60):
        found = client.patiently('GET', f'/v1/nodes/{name}')
        if found.status == 200:
            return found.body['uuid']
        answer = client.once(
            'POST', '/v1/nodes', {'driver': 'fake-hardware', 'name': name}
        )
        if answer.status == 201:
            with book.lock:
                book.created[name] = answer.body['uuid']
            return answer.body['uuid']
        assert answer.status in (409, 503), (name, answer)
        time.sleep(db_faults.RETRY_503)
    raise AssertionError(f'node {name} was never created')


def _patch(client: db_faults.Client, node: str, key: str, book: Book) -> None:
    answer = client.patiently(
        'PATCH',
        f'/v1/nodes/{node}',
        [{'op': 'add', 'path': f'/extra/{key}', 'value': key}],
    )
    assert answer.status == 200, (node, key, answer)
    with book.lock:
        book.patched.setdefault(node, []).append(key)


def _state(client: db_faults.Client, node: str) -> dict[str, Any]:
    answer = client.patiently('GET', f'/v1/nodes/{node}')
    assert answer.status == 200, (node, answer)
    return answer.body


def _move(client: db_faults.Client, node: str, verb: str, target: str) -> None:
    """Ask for ``verb`` until it is under way, then wait for ``target``
    (a 503 answered for a request that went through shows as a 400:
    the node is already on its way)."""
    answer = client.patiently(
        'PUT', f'/v1/nodes/{node}/states/provision', {'target': verb}
    )
    if answer.status != 202:
        state = _state(client, node)['provision_state']
        assert answer.status == 400 and state in ON_THE_WAY[target], (
            node,
            verb,
            answer,
            state,
        )
    deadline = time.monotonic() + SETTLE
    while time.monotonic() < deadline:
        row = _state(client, node)
        if row['provision_state'] == target and not row['reservation']:
            return
        assert row['provision_state'] in ON_THE_WAY[target], (
            f'node {node} left for {row["provision_state"]} on its way to '
            f'{target}: {row["last_error"]}'
        )
        time.sleep(0.5)
    raise AssertionError(f'node {node} not {target} in {SETTLE} s')


def _drive(client: db_faults.Client, name: str, book: Book) -> None:
    node = _create(client, name, book)
    _patch(client, node, f'{name}-a', book)
    _move(client, node, 'manage', 'manageable')
    _patch(client, node, f'{name}-b', book)
    _move(client, node, 'provide', 'available')
    _move(client, node, 'active', 'active')
    _patch(client, node, f'{name}-c', book)
    _move(client, node, 'deleted', 'available')


def _check(
    cloud: Any, client: db_faults.Client, book: Book, run: int
) -> list[str]:
    problems = client.problems()
    nodes = {
        node['name']: node
        for node in client.patiently('GET', '/v1/nodes/detail').body['nodes']
        if node['name'].startswith(f'dbf-{run}-')
    }
    for name, node_uuid in book.created.items():
        if name not in nodes or nodes[name]['uuid'] != node_uuid:
            problems.append(f'node {name} was answered 201 and is gone')
    for node in nodes.values():
        if node['provision_state'] != 'available' or node['reservation']:
            problems.append(
                f'node {node["name"]} ended '
                f'{node["provision_state"]} locked by '
                f'{node["reservation"]}: {node["last_error"]}'
            )
        for key in book.patched.get(node['uuid'], []):
            if node['extra'].get(key) != key:
                problems.append(
                    f'PATCH {key} of {node["name"]} was '
                    'answered 200 and is not stored'
                )
    return problems


def _run_once(
    cloud: Any, proxy: db_proxy.DatabaseProxy, seed: int, run: int
) -> dict[str, Any]:
    rng = random.Random(seed)
    faults = db_faults.plan(rng, WINDOW, rng.randint(3, 5))
    client, book = _client(cloud), Book()
    started = time.monotonic()
    applying = threading.Thread(target=db_faults.apply, args=(proxy, faults))
    applying.start()
    try:
        errors = db_faults.run_threads(
            [
                (_drive, (client, f'dbf-{run}-{index}', book))
                for index in range(NODES)
            ]
        )
    finally:
        applying.join()
    return {
        'seed': seed,
        'seconds': round(time.monotonic() - started, 1),
        'faults': [str(fault) for fault in faults],
        'proxy': dataclasses.asdict(proxy.counts),
        'statuses': client.statuses(),
        'problems': errors + _check(cloud, client, book, run),
    }


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
        'reproduce one with IRONIC_LITE_DB_FAULT_SEED=<seed> '
        'IRONIC_LITE_DB_FAULT_RUNS=1:\n'
        + '\n'.join(
            f'seed {r["seed"]}: faults {r["faults"]}: '
            + '; '.join(r['problems'])
            for r in failures
        )
        + '\n'
        + '\n'.join(unexpected)
    )
