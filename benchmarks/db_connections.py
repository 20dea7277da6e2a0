"""Benchmark: database connections held by each service process.

Starts both control planes as separate processes on MariaDB and
RabbitMQ (tools/devstack_ironic.py: ironic-lite-api and ``--conductors``
conductors; tools/devstack.py: nova-lite-api, nova-lite-conductor and
``--computes`` fake compute agents), then reads MariaDB's
``information_schema.processlist`` and attributes every connection of
the two databases to the process that holds it (by its TCP port):

1. idle, once started;
2. the peak under load: ``--nodes`` bare metal nodes created, managed
   and provided (automated cleaning) and ``--servers`` servers booted,
   all at once;
3. idle again ``--idle-wait`` seconds after the load (past
   ``[database]idle_connection_timeout``, 60 s by default).

It prints the numbers; it asserts nothing. doc/source/admin/database.rst
has the sizing they inform::

    .venv/bin/python benchmarks/db_connections.py --nodes 40 --servers 20
"""

import argparse
import concurrent.futures
from pathlib import Path
import sys
import tempfile
import threading
import time
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'tools'))

import devstack  # noqa: E402
import devstack_ironic  # noqa: E402
import devstack_support as support  # noqa: E402
import psutil  # noqa: E402
import pymysql  # noqa: E402


def _owners(procs: dict[str, int]) -> dict[int, str]:
    """Local TCP port -> service name, for the given pids."""
    by_pid = {pid: name for name, pid in procs.items()}
    ports = {}
    for conn in psutil.net_connections(kind='tcp'):
        if conn.pid in by_pid and conn.raddr and conn.raddr.port == 3306:
            ports[conn.laddr.port] = by_pid[conn.pid]
    return ports


def sample(databases: list[str], procs: dict[str, int]) -> dict[str, int]:
    """Connections of ``databases`` now, by service name."""
    conn = pymysql.connect(host=support.LOCALHOST, user='root', password='')
    try:
        with conn.cursor() as cursor:
            cursor.execute(
                'SELECT host FROM information_schema.processlist WHERE db '
                f'IN ({", ".join(["%s"] * len(databases))})', databases)
            hosts = [row[0] for row in cursor.fetchall()]
    finally:
        conn.close()
    owners = _owners(procs)
    counts: dict[str, int] = {}
    for host in hosts:
        port = int(host.rsplit(':', 1)[1]) if ':' in host else 0
        name = owners.get(port, 'other')
        counts[name] = counts.get(name, 0) + 1
    return dict(sorted(counts.items()))


def _ironic_load(dep: Any, count: int) -> None:
    def call(method: str, path: str, body: Any = None) -> Any:
        for _ in range(60):
            status, answer = dep.api_call(method, path, body)
            if status not in (409, 503):
                return status, answer
            time.sleep(1)
        return status, answer

    def one(index: int) -> None:
        status, node = call('POST', '/v1/nodes', {
            'driver': 'fake-hardware', 'name': f'bench-{index}'})
        path = f'/v1/nodes/{node["uuid"]}'
        for target, wanted in (('manage', 'manageable'),
                               ('provide', 'available')):
            call('PUT', f'{path}/states/provision', {'target': target})
            support.wait_for(
                lambda state=wanted: call('GET', path)[1][
                    'provision_state'] == state,
                300, f'node {index} {wanted}', interval=1)

    with concurrent.futures.ThreadPoolExecutor(count) as pool:
        list(pool.map(one, range(count)))


def _nova_load(dep: Any, count: int) -> None:
    status, flavor = dep.api_call('POST', '/v2.1/flavors', {'flavor': {
        'name': 'bench', 'vcpus': 1, 'ram': 64, 'disk': 1}})
    status, image = dep.api_call('POST', '/image/v2/images', {
        'name': 'bench', 'disk_format': 'raw', 'container_format': 'bare'})
    dep.api_call('PUT', f'/image/v2/images/{image["id"]}/file',
                 b'bench image')  # only an active image boots

    def one(index: int) -> None:
        status, body = dep.api_call('POST', '/v2.1/servers', {'server': {
            'name': f'bench-{index}', 'flavorRef': flavor['flavor']['id'],
            'imageRef': image['id'], 'networks': 'none'}})
        server = body['server']['id']
        support.wait_for(lambda: dep.api_call(
            'GET', f'/v2.1/servers/{server}')[1]['server']['status']
            == 'ACTIVE', 300, f'server {index} ACTIVE', interval=1)

    with concurrent.futures.ThreadPoolExecutor(count) as pool:
        list(pool.map(one, range(count)))


def _peak(databases: list[str], procs: dict[str, int],
          done: threading.Event) -> dict[str, Any]:
    peak: dict[str, int] = {}
    total = 0
    while not done.wait(0.5):
        now = sample(databases, procs)
        total = max(total, sum(now.values()))
        for name, count in now.items():
            peak[name] = max(peak.get(name, 0), count)
    return {'per process': peak, 'total (at one moment)': total}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--conductors', type=int, default=3)
    parser.add_argument('--computes', type=int, default=2)
    parser.add_argument('--nodes', type=int, default=40)
    parser.add_argument('--servers', type=int, default=20)
    parser.add_argument('--idle-wait', type=float, default=75)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix='db-connections-'))
    ironic = devstack_ironic.start(work / 'ironic', conductors=args.conductors,
                                   step_delay=0.2)
    nova = None
    try:
        nova = devstack.start(work / 'nova', computes=args.computes,
                              driver='fake', controller_options={
                                  'quota': {'instances': -1, 'cores': -1,
                                            'ram': -1}})
        procs = {**{n: p.pid for n, p in ironic.procs.items()},
                 **{f'nova-{n}': p.pid for n, p in nova.procs.items()}}
        databases = [ironic.db_name, nova.db_name]
        time.sleep(10)
        print('idle after start:', sample(databases, procs))
        done = threading.Event()
        result: dict[str, Any] = {}
        watcher = threading.Thread(target=lambda: result.update(
            _peak(databases, procs, done)))
        watcher.start()
        started = time.monotonic()
        loads = [threading.Thread(target=_ironic_load,
                                  args=(ironic, args.nodes)),
                 threading.Thread(target=_nova_load,
                                  args=(nova, args.servers))]
        for load in loads:
            load.start()
        for load in loads:
            load.join()
        done.set()
        watcher.join()
        print(f'load ({time.monotonic() - started:.0f} s), peak:', result)
        print('idle just after the load:', sample(databases, procs))
        time.sleep(args.idle_wait)
        print(f'idle {args.idle_wait:.0f} s after the load:',
              sample(databases, procs))
    finally:
        if nova is not None:
            nova.stop()
        ironic.stop()
    return 0


if __name__ == '__main__':
    sys.exit(main())
