"""Benchmark: boot and delete N servers on bare metal through the
Compute API.

Starts ``stacklite-aio --noauth --baremetal-nodes N`` (N fake-hardware
nodes served by the ``ironic-compute`` agent, the ``ironic`` virt
driver talking to the Bare Metal API over REST), waits until every node
is available and offered, boots N servers of the ``baremetal`` flavor
(``--concurrency`` client threads, one POST each), times until all are
ACTIVE with every node ``active``, deletes them, and times until every
node is cleaned back to ``available``. It also counts what the pool
refused (a server in ERROR is a failure: N nodes for N servers).

    python benchmarks/baremetal_boot.py --nodes 100

A benchmark, not a test: it prints numbers and checks only that the
work was done.
"""

import argparse
import concurrent.futures
from pathlib import Path
import sys
import tempfile
import time

from boot_servers import IMAGE
from boot_servers import call
from boot_servers import create_image
from boot_servers import free_port
from boot_servers import start_aio_argv

TIMEOUT = 1800


def _nodes(bm):
    return call(f'{bm}/v1/nodes?fields=uuid,provision_state,instance_uuid',
                headers={'X-OpenStack-Ironic-API-Version': '1.80'})['nodes']


def _wait(what, predicate):
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.5)
    raise SystemExit(f'timed out waiting for {what}')


def _offered(api, count):
    """Every node is reported (with its resource class) to nova."""
    hypervisors = call(f'{api}/os-hypervisors/detail')['hypervisors']
    return sum(h['hypervisor_type'] == 'ironic' for h in hypervisors) >= count


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--nodes', type=int, default=100)
    parser.add_argument('--concurrency', type=int, default=10)
    args = parser.parse_args()
    port, bm_port = free_port(), free_port()
    state = tempfile.mkdtemp(prefix='stacklite-bm-bench-')
    config = Path(state) / 'bench.conf'
    # The fleet is one project's: no quota in the way.
    config.write_text('[quota]\ninstances = -1\ncores = -1\nram = -1\n')
    proc = start_aio_argv(state, port, [
        '--baremetal-port', str(bm_port), '--computes', '0',
        '--baremetal-nodes', str(args.nodes), '--config-file', str(config)])
    api, bm = f'http://127.0.0.1:{port}/v2.1', f'http://127.0.0.1:{bm_port}'
    try:
        create_image(f'http://127.0.0.1:{port}')
        started = time.monotonic()
        _wait('the pool', lambda: len(_nodes(bm)) >= args.nodes and all(
            n['provision_state'] == 'available' for n in _nodes(bm))
            and _offered(api, args.nodes))
        enrolled = time.monotonic() - started
        time.sleep(6)    # one resource report: every node offered
        spec = {'name': 'bm', 'flavorRef': 'baremetal', 'imageRef': IMAGE,
                'networks': 'none'}
        started = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(args.concurrency) as pool:
            list(pool.map(lambda _: call(f'{api}/servers', 'POST',
                                         {'server': spec}),
                          range(args.nodes)))

        def all_active():
            servers = call(f'{api}/servers/detail?name=bm')['servers']
            if any(s['status'] == 'ERROR' for s in servers):
                raise SystemExit('a server went to ERROR: '
                                 f'{[s.get("fault") for s in servers]}')
            return sum(s['status'] == 'ACTIVE' for s in servers) == args.nodes
        _wait('every server ACTIVE', all_active)
        booted = time.monotonic() - started
        assert all(n['provision_state'] == 'active' for n in _nodes(bm))
        servers = call(f'{api}/servers?name=bm')['servers']
        started = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(args.concurrency) as pool:
            list(pool.map(lambda s: call(f'{api}/servers/{s["id"]}',
                                         'DELETE'), servers))
        _wait('every node available', lambda: all(
            n['provision_state'] == 'available' and not n['instance_uuid']
            for n in _nodes(bm)))
        cleaned = time.monotonic() - started
        print(f'{"nodes":>6} {"enroll+provide s":>17} {"boot all s":>11} '
              f'{"per boot ms":>12} {"delete+clean s":>15}')
        print(f'{args.nodes:>6} {enrolled:>17.1f} {booted:>11.1f} '
              f'{booted / args.nodes * 1000:>12.0f} {cleaned:>15.1f}',
              flush=True)
    finally:
        proc.terminate()
        proc.wait(60)
    return 0


if __name__ == '__main__':
    sys.exit(main())
