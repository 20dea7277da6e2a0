"""Benchmark: boot N servers through the API, then time reads.

Starts ``stacklite-aio --noauth --driver fake --no-baremetal`` in a
temporary state directory, boots ``--servers`` servers concurrently (one
POST each, ``--concurrency`` client threads), times until every one is ACTIVE,
grows the fleet to ``--detail-at`` servers, and reports the median of
``GET /servers/detail`` and of a single server show. Reads go over one
kept-alive connection, as openstacksdk's session does. The compute
agents get enough capacity for the fleet through ``--config-file``.

    python benchmarks/boot_servers.py --servers 100 --detail-at 1000

A benchmark, not a test: it prints numbers and asserts nothing.
"""

import argparse
import concurrent.futures
import http.client
import json
import os
from pathlib import Path
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

HEADERS = {'Content-Type': 'application/json', 'Accept': 'application/json',
           'OpenStack-API-Version': 'compute 2.53'}


def call(url, method='GET', body=None, headers=None):
    if isinstance(body, bytes):  # image data
        data = body
        headers = {'Content-Type': 'application/octet-stream',
                   **(headers or {})}
    else:
        data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={**HEADERS, **(headers or {})})
    with urllib.request.urlopen(req, timeout=60) as resp:
        raw = resp.read()
        return json.loads(raw) if raw else None


def create_image(url):
    """The public image ``bench``, active (its data uploaded: only an
    active image boots)."""
    call(f'{url}/image/v2/images', 'POST', {
        'name': 'bench', 'id': IMAGE, 'disk_format': 'raw',
        'container_format': 'bare', 'visibility': 'public'})
    call(f'{url}/image/v2/images/{IMAGE}/file', 'PUT', b'bench image')


def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


#: Seconds stacklite-aio may take to start.
START_TIMEOUT = 120


def start_aio(state, port, servers):
    config = Path(state) / 'bench.conf'
    # Two computes, each with room for the whole fleet of 1-vCPU,
    # 1-MiB, 0-GiB servers (allocation ratio 4 for vCPUs).
    config.write_text('[virt_resources]\n'
                      f'vcpus = {max(16, servers)}\n')
    return start_aio_argv(state, port, ['--no-baremetal', '--config-file',
                                        str(config)])


def start_aio_argv(state, port, extra):
    """``stacklite-aio --noauth --driver fake`` with ``extra``."""
    exe = Path(sys.executable).with_name('stacklite-aio')
    proc = subprocess.Popen(
        [str(exe), '--state-dir', state, '--noauth', '--driver', 'fake',
         '--api-port', str(port), *extra],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # A deadline, not a count of tries: a loaded machine starts slower.
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            call(f'http://127.0.0.1:{port}/')
            return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit(f'stacklite-aio did not start within {START_TIMEOUT} s '
                     f'(exit status {proc.poll()})')


def boot(api, count, concurrency, name):
    spec = {'name': name, 'flavorRef': 'bench', 'imageRef': IMAGE,
            'networks': 'none'}
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(lambda _: call(f'{api}/servers', 'POST',
                                     {'server': spec}), range(count)))
    while True:
        servers = call(f'{api}/servers/detail?name={name}')['servers']
        if sum(s['status'] == 'ACTIVE' for s in servers) >= count:
            return time.monotonic() - started
        if any(s['status'] == 'ERROR' for s in servers):
            raise SystemExit('a server went to ERROR')
        time.sleep(0.05)


class KeptAlive:
    """GET over one HTTP/1.1 connection."""

    def __init__(self, port):
        self.conn = http.client.HTTPConnection('127.0.0.1', port,
                                               timeout=60)

    def get(self, path):
        """The raw body: the client's JSON decoding is not timed."""
        self.conn.request('GET', path, headers=HEADERS)
        resp = self.conn.getresponse()
        body = resp.read()
        if resp.status != 200:
            raise SystemExit(f'GET {path}: {resp.status} {body[:200]}')
        return body


def median_ms(func, times):
    samples = []
    for _ in range(times):
        started = time.perf_counter()
        func()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


IMAGE = '6f1d4a1e-8f43-4a43-9c1e-000000000001'


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--servers', type=int, default=100)
    parser.add_argument('--concurrency', type=int, default=10)
    parser.add_argument('--detail-at', type=int, default=1000)
    args = parser.parse_args()
    port = free_port()
    state = tempfile.mkdtemp(prefix='stacklite-bench-')
    proc = start_aio(state, port, max(args.servers, args.detail_at))
    api = f'http://127.0.0.1:{port}/v2.1'
    try:
        call(f'{api}/flavors', 'POST', {'flavor': {
            'name': 'bench', 'id': 'bench', 'ram': 1, 'vcpus': 1,
            'disk': 0}})
        create_image(f'http://127.0.0.1:{port}')
        elapsed = boot(api, args.servers, args.concurrency, 'first')
        print(f'{args.servers} servers ACTIVE in {elapsed:.2f} s')
        extra = args.detail_at - args.servers
        if extra > 0:
            boot(api, extra, args.concurrency, 'more')
        client = KeptAlive(port)
        total = max(args.detail_at, args.servers)
        listed = json.loads(client.get('/v2.1/servers/detail'))['servers']
        if len(listed) != total:
            raise SystemExit(f'detail listed {len(listed)} of {total}')
        detail = median_ms(lambda: client.get('/v2.1/servers/detail'), 20)
        any_id = call(f'{api}/servers?limit=1')['servers'][0]['id']
        show = median_ms(lambda: client.get(f'/v2.1/servers/{any_id}'),
                         100)
        print(f'GET /servers/detail at {total} servers: {detail:.1f} ms '
              '(median of 20)')
        print(f'GET /servers/{{id}}: {show:.2f} ms (median of 100)')
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


if __name__ == '__main__':
    os.environ.setdefault('PYTHONWARNINGS', 'ignore')
    main()
