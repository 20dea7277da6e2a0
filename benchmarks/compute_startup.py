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
    python benchmarks/compute_startup.py --sizes 10000 --evacuations 1000
    python benchmarks/compute_startup.py --sizes 10000 --shelved 2000 \
        --offloaded 2000

With ``--evacuations E``, E more instances were evacuated away from the
host while it was down: they run on another host, an evacuation record
(status ``done``) names each, and their stale disk files are still on
this host. The agent's recovery must destroy exactly those files and
complete every record; its time is reported apart, as is the time the
driver spent deleting files.

With ``--shelved S`` and ``--offloaded O``, S of the host's instances
are SHELVED (powered off, disk kept, a snapshot image each) and O more
instances were shelved here and offloaded (on no host, their disks gone,
a snapshot image each): start-up must keep every shelved disk, touch no
offloaded instance, and cost the same number of queries.

A benchmark: it prints numbers and checks only that the work was done.
Start-up must grow with instances only through batched queries, so the
query count is expected to be the same for every size.
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
from nova_lite.compute import cleanup  # noqa: E402
from nova_lite.compute import identity  # noqa: E402
from nova_lite.compute import service as compute_svc  # noqa: E402
from nova_lite.conductor import service as conductor_svc  # noqa: E402
from nova_lite.db import api as db_api  # noqa: E402
from nova_lite.db import models  # noqa: E402
from nova_lite.objects import migration as migration_obj  # noqa: E402
from nova_lite.objects import service as service_obj  # noqa: E402
from nova_lite.tests.stack import Stack  # noqa: E402
from nova_lite.virt import local  # noqa: E402

HOST = 'bench-compute'
DEST = 'bench-destination'


def _host(conn: sa.Connection, host: str) -> tuple[str, int]:
    """A compute service and node for ``host``: (node uuid, node id)."""
    node_uuid = str(uuid.uuid4())
    now = sa.func.now()
    service_id = conn.execute(sa.insert(models.Service).values(
        uuid=str(uuid.uuid4()), host=host, binary='nova-compute',
        topic='compute', version=service_obj.SERVICE_VERSION,
        created_at=now)).inserted_primary_key[0]
    node_id = conn.execute(sa.insert(models.ComputeNode).values(
        uuid=node_uuid, service_id=service_id, host=host,
        hypervisor_hostname=host, hypervisor_type='local',
        hypervisor_version=1000, vcpus=100000, memory_mb=10 ** 9,
        local_gb=10 ** 6, created_at=now)).inserted_primary_key[0]
    return node_uuid, node_id


def _instances(host: str, node_id: int, count: int) -> list[dict]:
    return [{'uuid': str(uuid.uuid4()), 'project_id': 'p', 'user_id': 'u',
             'flavor': {}, 'vcpus': 1, 'memory_mb': 1, 'root_gb': 0,
             'vm_state': 'active', 'power_state': 1, 'host': host,
             'node': host, 'compute_id': node_id, 'metadata_': {},
             'system_metadata': {}}
            for _ in range(count)]


def _shelve(conn: sa.Connection, rows: list[dict], offload: bool) -> None:
    """Make ``rows`` shelved (or offloaded: on no host), each with a
    snapshot image."""
    images = []
    for row in rows:
        image_id = str(uuid.uuid4())
        images.append({'id': image_id, 'name': f'{row["uuid"]}-shelved',
                       'status': 'active', 'visibility': 'private',
                       'properties': {}, 'tags': []})
        row.update(vm_state='shelved', power_state=4, system_metadata={
            'shelved_image_id': image_id, 'shelved_host': HOST,
            'shelved_at': '2026-01-01T00:00:00'})
        if offload:
            row.update(vm_state='shelved_offloaded', power_state=0,
                       host=None, node=None, compute_id=None)
    if images:
        conn.execute(sa.insert(models.Image), images)


def seed(engine: sa.Engine, state: Path, count: int, evacuations: int,
         shelved: int = 0, offloaded: int = 0) -> list[str]:
    """One host with ``count`` instances (``shelved`` of them SHELVED),
    ``offloaded`` offloaded ones and ``evacuations`` evacuated ones
    (records and stale disks), written in bulk; returns the uuids of the
    evacuated instances."""
    with engine.begin() as conn:
        node_uuid, node_id = _host(conn, HOST)
        rows = _instances(HOST, node_id, count)
        _shelve(conn, rows[:shelved], offload=False)
        gone = _instances(HOST, node_id, offloaded)
        _shelve(conn, gone, offload=True)
        if gone:
            conn.execute(sa.insert(models.Instance), gone)
        moved: list[dict] = []
        if evacuations:
            _, dest_id = _host(conn, DEST)
            moved = _instances(DEST, dest_id, evacuations)
            conn.execute(sa.insert(models.Migration), [{
                'uuid': str(uuid.uuid4()), 'instance_uuid': row['uuid'],
                'source_compute': HOST, 'source_node': HOST,
                'dest_compute': DEST, 'dest_node': DEST,
                'dest_compute_id': dest_id, 'migration_type': 'evacuation',
                'status': 'done', 'hidden': False} for row in moved])
        if rows or moved:
            conn.execute(sa.insert(models.Instance), rows + moved)
    state.mkdir(parents=True, exist_ok=True)
    identity.write_local_node_uuid(str(state), node_uuid)
    for row in rows + moved:
        disk = state / 'instances' / row['uuid']
        disk.mkdir(parents=True)
        (disk / 'disk').write_bytes(b'')
    return [row['uuid'] for row in moved]


class Timer:
    """Accumulated time in a wrapped function."""

    def __init__(self, owner: object, name: str) -> None:
        self.total = 0.0
        self.owner, self.name = owner, name
        self.func = getattr(owner, name)

        def timed(*args: object, **kwargs: object) -> object:
            start = time.perf_counter()
            try:
                return self.func(*args, **kwargs)
            finally:
                self.total += time.perf_counter() - start
        setattr(owner, name, timed)

    def restore(self) -> None:
        setattr(self.owner, self.name, self.func)


def check_recovery(state: Path, moved: list[str], count: int) -> None:
    left = [u for u in moved if (state / 'instances' / u).exists()]
    assert not left, f'{len(left)} evacuated copies were not destroyed'
    kept = sum(1 for p in (state / 'instances').iterdir()
               if (p / 'disk').exists()) if count else 0
    assert kept == count, f'{count - kept} disks of the host were lost'
    ctx = lite_context.get_admin_context()
    statuses = {m.status for m in migration_obj.MigrationList.get_by_filters(
        ctx, {'source_compute': HOST})}
    assert statuses <= {'completed'}, statuses


def run(count: int, evacuations: int, shelved: int = 0,
        offloaded: int = 0) -> dict[str, float]:
    stack = Stack(computes=0, driver='local')
    conf = stack.prepare()
    # No conductor heartbeat inside the timed window: only start-up work
    # is counted.
    conf.set_override('report_interval', 3600)
    try:
        conductor = conductor_svc.conductor_service(conf)
        conductor.start()
        stack.add_cleanup(conductor.stop)
        engine = db_api.context_manager.writer.get_engine()
        state = Path(stack.state_path) / HOST
        moved = seed(engine, state, count, evacuations, shelved, offloaded)
        statements = []
        sa.event.listen(engine, 'before_cursor_execute',
                        lambda *args: statements.append(args[2]))
        compute = compute_svc.compute_service(conf, HOST, str(state),
                                          search_config_dirs=False)
        recovery = Timer(cleanup.Cleaner, 'run')
        deleting = Timer(local.LocalDriver, 'destroy')
        stack.add_cleanup(recovery.restore)
        stack.add_cleanup(deleting.restore)
        start = time.perf_counter()
        compute.start()
        elapsed = time.perf_counter() - start
        stack.add_cleanup(compute.stop)
        # Heartbeats after start-up are not start-up work.
        queries = len(statements)
        ctx = lite_context.get_admin_context()
        assert service_obj.Service.get_by_host_and_binary(
            ctx, HOST, 'nova-compute').version == service_obj.SERVICE_VERSION
        check_recovery(state, moved, count)
        return {'start-up s': elapsed, 'queries': queries,
                'recovery s': recovery.total,
                'file deletion s': deleting.total}
    finally:
        stack.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--sizes', type=int, nargs='+',
                        default=[100, 1000, 10000])
    parser.add_argument('--evacuations', type=int, default=0,
                        help='evacuated instances to recover from')
    parser.add_argument('--shelved', type=int, default=0,
                        help='of the host\'s instances, how many are '
                        'SHELVED (disk kept)')
    parser.add_argument('--offloaded', type=int, default=0,
                        help='offloaded instances shelved on this host')
    args = parser.parse_args()
    columns = ('start-up s', 'queries', 'recovery s', 'file deletion s')
    print(f'{"instances":>10} {"evacuated":>10} {"shelved":>8} '
          f'{"offloaded":>10} ' + ' '.join(f'{c:>16}' for c in columns))
    for count in args.sizes:
        result = run(count, args.evacuations, min(args.shelved, count),
                     args.offloaded)
        print(f'{count:>10} {args.evacuations:>10} '
              f'{min(args.shelved, count):>8} {args.offloaded:>10} '
              + ' '.join(f'{result[c]:>16.3f}' if c != 'queries'
                         else f'{int(result[c]):>16}' for c in columns),
              flush=True)
    return 0


if __name__ == '__main__':
    os.environ.setdefault('PYTHONHASHSEED', '0')
    sys.exit(main())
