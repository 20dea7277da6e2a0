"""Benchmark: N emulated machines deployed at once with one image, and
what it costs.

The deployment of :mod:`baremetal_emulated` (ironic-lite-api and
``--conductors`` conductors over RabbitMQ and MariaDB, a sushy-tools
Redfish emulator, an ``ironic-lite-agent`` per machine writing onto a
disk file of ``--disk-mib`` MiB). The nodes are enrolled, managed and
provided (agent cleaning) first; then every node is deployed at once
with one raw image of ``--image-mib`` MiB of random bytes, served over
HTTP by this script, which counts what it sends: with
``[deploy]image_download_source = local`` each conductor downloads the
image once into its cache and serves it to its agents. Reported:

- the wall time from the deploy requests until every node is
  ``active`` (a failed node is listed);
- the bytes read from the image source, and the number of downloads;
- the CPU time (user + system) of the conductors, in total and per
  deploy; of the API, the emulator and the agents;
- that every disk file starts with the image.

    python benchmarks/baremetal_deploy.py --nodes 50 --conductors 2

Measured here: see doc/source/admin/deploy.rst ("Scale").

A benchmark, not a test: it prints numbers and asserts nothing.
"""

import argparse
import concurrent.futures
import hashlib
import http.server
from pathlib import Path
import sys
import tempfile
import threading
import time
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / 'tools'), str(ROOT / 'benchmarks')]

import baremetal_emulated as emulated  # noqa: E402

from stacklite import emulated_machines  # noqa: E402

MIB = emulated_machines.MIB


class ImageSource(http.server.ThreadingHTTPServer):
    """Serves one file; counts the bytes sent and the GETs."""

    daemon_threads = True

    def __init__(self, path: Path) -> None:
        super().__init__(('127.0.0.1', 0), _Handler)
        self.path = path
        self.sent = 0
        self.downloads = 0
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f'http://127.0.0.1:{self.server_port}/{self.path.name}'


class _Handler(http.server.BaseHTTPRequestHandler):
    server: ImageSource

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        source = self.server
        size = source.path.stat().st_size
        self.send_response(200)
        self.send_header('Content-Length', str(size))
        self.end_headers()
        with source.lock:
            source.downloads += 1
        with source.path.open('rb') as data:
            while chunk := data.read(MIB):
                self.wfile.write(chunk)
                with source.lock:
                    source.sent += len(chunk)

    def log_message(self, *args: Any) -> None:
        pass


def _make_image(path: Path, size: int) -> str:
    digest = hashlib.sha256()
    with path.open('wb') as out:
        for index in range(size // MIB):
            chunk = hashlib.sha512(str(index).encode()).digest() * (MIB // 64)
            digest.update(chunk)
            out.write(chunk)
    return digest.hexdigest()


def _disk_holds(disk: Path, image: Path) -> bool:
    with disk.open('rb') as written, image.open('rb') as expected:
        while chunk := expected.read(MIB):
            if written.read(len(chunk)) != chunk:
                return False
    return True


def measure(run: emulated.Run, workdir: Path) -> None:
    args = run.args
    print(f'machines: {args.nodes} serving after '
          f'{run.start_machines():.1f} s', flush=True)
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        uuids = list(pool.map(run.enroll, range(args.nodes)))
    run.provision(uuids, 'manage')
    run.wait_all('manageable', 600)
    started = time.monotonic()
    run.provision(uuids, 'provide')
    states = run.wait_all('available', args.timeout)
    print(f'provide (agent cleaning): {time.monotonic() - started:.1f} s '
          f'{states}', flush=True)
    image = workdir / 'image.raw'
    checksum = _make_image(image, args.image_mib * MIB)
    source = ImageSource(image)
    threading.Thread(target=source.serve_forever, daemon=True).start()
    info = [{'op': 'add', 'path': '/instance_info',
             'value': {'image_source': source.url,
                       'image_checksum': checksum,
                       'image_disk_format': 'raw'}}]
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda uuid: run.call(
            'PATCH', f'/v1/nodes/{uuid}', info), uuids))
    groups = {'conductor': run.pids('conductor'),
              'api': run.pids('ironic-api'),
              'emulator': [run.machines.emulator.popen.pid],  # type: ignore
              'agents': [a.popen.pid for a in run.machines.agents]}  # type: ignore
    before = {name: emulated.cpu_seconds(p) for name, p in groups.items()}
    started = time.monotonic()
    run.provision(uuids, 'active')
    states = run.wait_all('active', args.timeout, failed='deploy failed')
    wall = time.monotonic() - started
    used = {name: emulated.cpu_seconds(p) - before[name]
            for name, p in groups.items()}
    source.shutdown()
    holding = sum(_disk_holds(agent.disks[0], image)
                  for agent in run.machines.agents)
    print(f'deploy: {args.nodes} nodes with one {args.image_mib} MiB image '
          f'in {wall:.1f} s; states {states}; {holding} disks hold the '
          'image')
    print(f'image source: {source.sent / MIB:.1f} MiB read in '
          f'{source.downloads} download(s) ({args.conductors} conductor(s))')
    per = used['conductor'] / args.nodes * 1000
    print(f'conductor CPU: {used["conductor"]:.1f} s over '
          f'{args.conductors} process(es) = {per:.0f} ms per deploy')
    print('other CPU: ' + ', '.join(
        f'{name} {seconds:.1f} s' for name, seconds in used.items()
        if name != 'conductor'))
    failed = run.call('GET', '/v1/nodes?provision_state=deploy+failed'
                      '&fields=name,last_error&limit=1000')['nodes']
    for node in failed[:5]:
        print(f'  {node["name"]}: {node["last_error"]}')


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--nodes', type=int, default=50)
    parser.add_argument('--conductors', type=int, default=2)
    parser.add_argument('--image-mib', type=int, default=64)
    parser.add_argument('--disk-mib', type=int, default=72)
    parser.add_argument('--heartbeat', type=float, default=2.0)
    parser.add_argument('--db', default='mysql')
    parser.add_argument('--timeout', type=float, default=1800)
    args = parser.parse_args(argv)
    args.agents = args.nodes
    with tempfile.TemporaryDirectory(prefix='bm-deploy-') as tmp:
        run = emulated.Run(args, Path(tmp))
        try:
            measure(run, Path(tmp))
        finally:
            run.machines.stop()
            run.dep.stop()
    return 0


if __name__ == '__main__':
    sys.exit(main())
