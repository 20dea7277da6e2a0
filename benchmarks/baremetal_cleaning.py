"""Benchmark: enroll, manage, provide and clean N bare metal nodes.

Over the Bare Metal REST API only. By default it starts
``stacklite-aio --noauth`` (SQLite, in-process bus, fake hardware) in a
temporary state directory; ``--endpoint URL`` measures a running
ironic-lite-api instead (noauth). With ``--concurrency C`` client
threads it:

1. creates N nodes (one POST each) and reports nodes/s;
2. manages them (enroll -> verifying -> manageable);
3. provides them: automated cleaning to ``available``;
4. moves them back to manageable and cleans them by hand
   (``deploy.erase_devices``) back to ``manageable``;

while polling ``GET /v1/nodes?fields=uuid,provision_state`` (as a
client waiting for its nodes does) until all reach the target. Then it
reports the median time of ``GET /v1/nodes``, ``/v1/nodes/detail`` and
one node show at N nodes, over one kept-alive connection. With the
all-in-one it also reports its start-up time (until the API lists an
alive conductor) and its resident memory once idle.

``--devstack mysql|postgresql`` measures the multi-process deployment
instead: ironic-lite-api and ``--conductors`` conductors as separate
processes over RabbitMQ and MariaDB or PostgreSQL
(``tools/devstack_ironic.py``, http_basic authentication).

    python benchmarks/baremetal_cleaning.py --nodes 500 --concurrency 10
    python benchmarks/baremetal_cleaning.py --nodes 500 --devstack mysql

Upstream Ironic 39 (all-in-one on SQLite, fake hardware, 2 cores):
create 48 nodes/s, provide of 500 nodes 58 s, manual clean of 500 nodes
66 s. A benchmark, not a test: it prints numbers and asserts nothing.
"""

import argparse
import base64
import concurrent.futures
import http.client
import json
from pathlib import Path
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from urllib.parse import urlsplit

#: The newest version the API serves (the clean steps extension is
#: served at the advertised maximum).
VERSION = 'latest'
HEADERS = {'Content-Type': 'application/json', 'Accept': 'application/json',
           'X-OpenStack-Ironic-API-Version': VERSION}
MANUAL_STEPS = [{'interface': 'deploy', 'step': 'erase_devices',
                 'args': {'passes': 1}}]


def use_basic_auth(user, password):
    """Send http_basic credentials with every request (devstack)."""
    token = base64.b64encode(f'{user}:{password}'.encode()).decode()
    HEADERS['Authorization'] = f'Basic {token}'


_LOCAL = threading.local()


def _connection(url):
    """This thread's kept-alive connection to the API (as openstacksdk's
    session keeps its connections), opened on first use."""
    split = urlsplit(url)
    key = (split.hostname, split.port)
    conns = getattr(_LOCAL, 'conns', None)
    if conns is None:
        conns = _LOCAL.conns = {}
    if key not in conns:
        conns[key] = http.client.HTTPConnection(*key, timeout=120)
    return conns[key], key


def call(url, method='GET', body=None, retries=50):
    """One request; a 503 (conductor busy) or 409 (node locked) is
    retried after a short pause, as a patient client would."""
    data = json.dumps(body).encode() if body is not None else None
    split = urlsplit(url)
    path = split.path + (f'?{split.query}' if split.query else '')
    for _attempt in range(retries):
        conn, key = _connection(url)
        try:
            conn.request(method, path, body=data, headers=HEADERS)
            resp = conn.getresponse()
            raw = resp.read()
        except (http.client.HTTPException, OSError):
            conn.close()
            del _LOCAL.conns[key]
            raise
        if resp.status in (409, 503):
            time.sleep(0.2)
            continue
        if resp.status >= 400:
            raise SystemExit(f'{method} {url}: {resp.status} {raw[:300]!r}')
        return json.loads(raw) if raw else None
    raise SystemExit(f'{method} {url}: still busy after {retries} tries')


def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def rss_mib(pid):
    """Resident memory of a process, from /proc (Linux)."""
    for line in Path(f'/proc/{pid}/status').read_text().splitlines():
        if line.startswith('VmRSS:'):
            return int(line.split()[1]) / 1024
    return float('nan')


#: Seconds stacklite-aio may take to start.
START_TIMEOUT = 120


def start_aio(state, port):
    exe = Path(sys.executable).with_name('stacklite-aio')
    started = time.monotonic()
    proc = subprocess.Popen(
        [str(exe), '--state-dir', state, '--noauth', '--computes', '0',
         '--driver', 'fake', '--api-port', str(free_port()),
         '--baremetal-port', str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f'http://127.0.0.1:{port}'
    # A deadline, not a count of tries: on a loaded machine the start
    # takes longer, which the startup line reports.
    deadline = started + START_TIMEOUT
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            drivers = call(f'{url}/v1/drivers')['drivers']
            if drivers and drivers[0].get('hosts'):
                print(f'startup  stacklite-aio: '
                      f'{time.monotonic() - started:.2f} s')
                time.sleep(2)
                print(f'memory   stacklite-aio idle: '
                      f'{rss_mib(proc.pid):.0f} MiB')
                return proc, url
        except OSError:
            pass
        time.sleep(0.02)
    proc.kill()
    raise SystemExit(f'stacklite-aio did not start within {START_TIMEOUT} s '
                     f'(exit status {proc.poll()})')


def in_parallel(concurrency, func, items):
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(func, items))


def wait_for_state(api, uuids, state, timeout):
    """Poll the node list until every node of ``uuids`` is in ``state``."""
    wanted = set(uuids)
    polls = 0
    deadline = time.monotonic() + timeout
    while True:
        nodes = call(f'{api}/v1/nodes?fields=uuid,provision_state')[
            'nodes']
        polls += 1
        done = {n['uuid'] for n in nodes if n['provision_state'] == state}
        failed = [n for n in nodes if n['uuid'] in wanted
                  and n['provision_state'] in ('clean failed', 'error')]
        if failed:
            raise SystemExit(f'{len(failed)} node(s) failed: {failed[:3]}')
        if wanted <= done:
            return polls
        if time.monotonic() > deadline:
            raise SystemExit(f'{len(wanted - done)} node(s) not {state} '
                             f'after {timeout} s')
        time.sleep(0.5)


def provision(api, uuids, concurrency, target, state, timeout, **extra):
    started = time.monotonic()
    in_parallel(concurrency, lambda uuid: call(
        f'{api}/v1/nodes/{uuid}/states/provision', 'PUT',
        {'target': target, **extra}), uuids)
    polls = wait_for_state(api, uuids, state, timeout)
    return time.monotonic() - started, polls


def median_ms(conn, path, repeat):
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        conn.request('GET', path, headers=HEADERS)
        response = conn.getresponse()
        response.read()
        if response.status != 200:
            raise SystemExit(f'GET {path}: {response.status}')
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def run(api, args):
    started = time.monotonic()
    uuids = []

    def create(index):
        node = call(f'{api}/v1/nodes', 'POST',
                    {'driver': 'fake-hardware',
                     'name': f'bench-{index}-{int(started)}'})
        uuids.append(node['uuid'])
    in_parallel(args.concurrency, create, range(args.nodes))
    took = time.monotonic() - started
    print(f'create   {args.nodes} nodes: {took:.1f} s '
          f'({args.nodes / took:.1f} nodes/s)')
    for label, target, state, extra in (
            ('manage  ', 'manage', 'manageable', {}),
            ('provide ', 'provide', 'available', {}),
            ('manage  ', 'manage', 'manageable', {}),
            ('clean   ', 'clean', 'manageable',
             {'clean_steps': MANUAL_STEPS})):
        took, polls = provision(api, uuids, args.concurrency, target, state,
                                args.timeout, **extra)
        print(f'{label} {args.nodes} nodes: {took:.1f} s '
              f'({polls} list polls)')
    split = urlsplit(api)
    conn = http.client.HTTPConnection(split.hostname, split.port,
                                      timeout=120)
    for label, path in (('list  ', '/v1/nodes'),
                        ('detail', '/v1/nodes/detail'),
                        ('show  ', f'/v1/nodes/{uuids[0]}')):
        print(f'GET {label} at {args.nodes} nodes: median '
              f'{median_ms(conn, path, args.repeat):.1f} ms')


def run_devstack(args):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'tools'))
    import devstack_ironic

    with tempfile.TemporaryDirectory() as workdir:
        started = time.monotonic()
        dep = devstack_ironic.start(workdir, db=args.devstack,
                                    conductors=args.conductors)
        print(f'startup  devstack ({args.conductors} conductors, '
              f'{args.devstack}): {time.monotonic() - started:.2f} s')
        try:
            use_basic_auth('admin', dep.passwords['admin'])
            run(dep.api_url, args)
        finally:
            dep.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--nodes', type=int, default=100)
    parser.add_argument('--concurrency', type=int, default=10)
    parser.add_argument('--repeat', type=int, default=20)
    parser.add_argument('--timeout', type=float, default=900)
    parser.add_argument('--endpoint',
                        help='a running ironic-lite-api (noauth)')
    parser.add_argument('--devstack', choices=['mysql', 'postgresql'],
                        help='run against tools/devstack_ironic.py on '
                        'this database')
    parser.add_argument('--conductors', type=int, default=2)
    args = parser.parse_args()
    if args.endpoint:
        run(args.endpoint.rstrip('/'), args)
        return
    if args.devstack:
        run_devstack(args)
        return
    with tempfile.TemporaryDirectory() as state:
        proc, api = start_aio(state, free_port())
        try:
            run(api, args)
        finally:
            proc.terminate()
            proc.wait(60)


if __name__ == '__main__':
    main()
