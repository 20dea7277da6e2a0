"""Benchmark: compute agent start-up with many instances on its host.

For each size, a fresh SQLite database gets one compute host (service at
the current version, its compute node, its compute_id file) and N ACTIVE
instances whose disk files exist under the local driver's state path.
A conductor and the compute agent then run in this process over the
``inproc://`` bus, exactly as in the all-in-one, and the agent's start is
timed: waiting for the conductor, identity checks, service and node
record fix-ups, instance initialisation. Every SQL statement the
conductor runs meanwhile is counted.

    python benchmarks/compute_startup.py --sizes 100 1000 10000

A benchmark, not a test: it prints numbers and asserts nothing. Start-up
must grow with instances only through batched queries, so the query
count is expected to be the same for every size.
"""

import argparse
import os
from pathlib import Path
import sys
import time
import uuid

import sqlalchemy as sa

from lite_common import backend

backend.select_threading()

from lite_common import context as lite_context  # noqa: E402
from nova_lite import service  # noqa: E402
from nova_lite.compute import identity  # noqa: E402
from nova_lite.db import api as db_api  # noqa: E402
from nova_lite.db import models  # noqa: E402
from nova_lite.objects import service as service_obj  # noqa: E402
from nova_lite.tests.stack import Stack  # noqa: E402

HOST = 'bench-compute'


def seed(engine: sa.Engine, state: Path, count: int) -> None:
    """One host with ``count`` instances, written in bulk."""
    node_uuid = str(uuid.uuid4())
    now = sa.func.now()
    with engine.begin() as conn:
        service_id = conn.execute(sa.insert(models.Service).values(
            uuid=str(uuid.uuid4()), host=HOST, binary='nova-compute',
            topic='compute', version=service_obj.SERVICE_VERSION,
            created_at=now)).inserted_primary_key[0]
        node_id = conn.execute(sa.insert(models.ComputeNode).values(
            uuid=node_uuid, service_id=service_id, host=HOST,
            hypervisor_hostname=HOST, hypervisor_type='local',
            hypervisor_version=1000, vcpus=100000, memory_mb=10 ** 9,
            local_gb=10 ** 6, created_at=now)).inserted_primary_key[0]
        rows = [{'uuid': str(uuid.uuid4()), 'project_id': 'p',
                 'user_id': 'u', 'flavor': {}, 'vcpus': 1, 'memory_mb': 1,
                 'root_gb': 0, 'vm_state': 'active', 'power_state': 1,
                 'host': HOST, 'node': HOST, 'compute_id': node_id,
                 'metadata_': {}} for _ in range(count)]
        if rows:
            conn.execute(sa.insert(models.Instance), rows)
    state.mkdir(parents=True, exist_ok=True)
    identity.write_local_node_uuid(str(state), node_uuid)
    for row in rows:
        disk = state / 'instances' / row['uuid']
        disk.mkdir(parents=True)
        (disk / 'disk').write_bytes(b'')


def run(count: int) -> tuple[float, int]:
    stack = Stack(computes=0, driver='local')
    conf = stack.prepare()
    # No conductor heartbeat inside the timed window: only start-up work
    # is counted.
    conf.set_override('report_interval', 3600)
    try:
        conductor = service.conductor_service(conf)
        conductor.start()
        stack.add_cleanup(conductor.stop)
        engine = db_api.context_manager.writer.get_engine()
        state = Path(stack.state_path) / HOST
        seed(engine, state, count)
        statements = []
        sa.event.listen(engine, 'before_cursor_execute',
                        lambda *args: statements.append(args[2]))
        compute = service.compute_service(conf, HOST, str(state),
                                          search_config_dirs=False)
        start = time.perf_counter()
        compute.start()
        elapsed = time.perf_counter() - start
        stack.add_cleanup(compute.stop)
        # Heartbeats after start-up are not start-up work.
        queries = len(statements)
        ctx = lite_context.get_admin_context()
        assert service_obj.Service.get_by_host_and_binary(
            ctx, HOST, 'nova-compute').version == service_obj.SERVICE_VERSION
        return elapsed, queries
    finally:
        stack.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--sizes', type=int, nargs='+',
                        default=[100, 1000, 10000])
    args = parser.parse_args()
    print(f'{"instances":>10} {"start-up s":>11} {"queries":>8}')
    for count in args.sizes:
        elapsed, queries = run(count)
        print(f'{count:>10} {elapsed:>11.3f} {queries:>8}', flush=True)
    return 0


if __name__ == '__main__':
    os.environ.setdefault('PYTHONHASHSEED', '0')
    sys.exit(main())
