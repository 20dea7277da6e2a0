"""Benchmark: Bare Metal API lists at scale (10,000 nodes, 20,000 ports).

Starts ``stacklite-aio --noauth`` (SQLite, in-process bus, fake
hardware) in a temporary state directory, fills its Bare Metal database
directly (one bulk INSERT per table: creating 30,000 objects through
the API would measure something else), then reports the median time of
each list at the default page size (``[api]max_limit``, 1000) over one
kept-alive connection, as a client paging through does:

* ``GET /v1/nodes``, ``/v1/nodes/detail``, ``/v1/nodes?fields=...``;
* ``GET /v1/ports``, ``/v1/ports?detail=true`` and a node's ports, when
  the database has ports;

and the median of one node show. A benchmark, not a test: it prints
numbers and asserts nothing. The goal of issue 15 is under 50 ms per
page on the all-in-one.

    python benchmarks/baremetal_list.py --nodes 10000 --ports 20000
"""

import argparse
import datetime
import http.client
from pathlib import Path
import sys
import tempfile
import time
import uuid as uuidlib

from baremetal_cleaning import HEADERS
from baremetal_cleaning import free_port
from baremetal_cleaning import median_ms
from baremetal_cleaning import start_aio
import sqlalchemy as sa

from ironic_lite.db import models

#: Rows per INSERT statement (SQLite binds at most 32,766 variables).
BATCH = 500


def _node_rows(count):
    now = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    for index in range(count):
        yield {
            'uuid': str(uuidlib.uuid4()), 'name': f'list-{index}',
            'driver': 'fake-hardware', 'provision_state': 'available',
            'power_state': 'power off', 'maintenance': False,
            'driver_info': {'ipmi_address': f'10.0.{index // 250}.'
                            f'{index % 250}', 'ipmi_password': 'secret'},
            'driver_internal_info': {}, 'properties': {'cpus': 8},
            'instance_info': {}, 'extra': {}, 'clean_step': {},
            'resource_class': 'baremetal', 'revision': 0,
            'created_at': now, 'updated_at': now,
        }


def _port_rows(count, node_ids):
    now = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    for index in range(count):
        mac = index.to_bytes(6, 'big').hex(':')
        yield {
            'uuid': str(uuidlib.uuid4()), 'address': f'52:{mac[3:]}',
            'node_id': node_ids[index % len(node_ids)], 'extra': {},
            'created_at': now, 'updated_at': now,
        }


def _insert(engine, table, rows):
    batch = []
    with engine.begin() as conn:
        for row in rows:
            batch.append(row)
            if len(batch) == BATCH:
                conn.execute(table.insert(), batch)
                batch = []
        if batch:
            conn.execute(table.insert(), batch)


def fill(state, nodes, ports):
    """Insert the rows; return the uuid of one node with ports."""
    engine = sa.create_engine(f'sqlite:///{Path(state) / "ironic.sqlite"}')
    started = time.monotonic()
    _insert(engine, models.Node.__table__, _node_rows(nodes))
    with engine.connect() as conn:
        node_ids = [row[0] for row in conn.execute(
            sa.select(models.Node.id).order_by(models.Node.id))]
        first = conn.execute(sa.select(models.Node.uuid).where(
            models.Node.id == node_ids[0])).scalar_one()
    port_model = getattr(models, 'Port', None)
    if ports and port_model is None:
        print('ports    none: this tree has no ports table yet')
        ports = 0
    if ports:
        columns = set(port_model.__table__.columns.keys())
        rows = ({k: v for k, v in row.items() if k in columns}
                for row in _port_rows(ports, node_ids))
        _insert(engine, port_model.__table__, rows)
    engine.dispose()
    print(f'filled   {nodes} nodes, {ports} ports in '
          f'{time.monotonic() - started:.1f} s')
    return first, ports


def report(api, first, ports, repeat):
    split = api.split('//')[1]
    host, port = split.split(':')
    conn = http.client.HTTPConnection(host, int(port), timeout=120)
    paths = [
        '/v1/nodes', '/v1/nodes/detail',
        '/v1/nodes?fields=uuid,provision_state,power_state',
        f'/v1/nodes/{first}',
    ]
    if ports:
        paths += ['/v1/ports', '/v1/ports?detail=true',
                  '/v1/ports/detail', f'/v1/nodes/{first}/ports']
    for path in paths:
        print(f'GET {path:55} {median_ms(conn, path, repeat):8.1f} ms '
              f'(median of {repeat})')
    conn.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--nodes', type=int, default=10000)
    parser.add_argument('--ports', type=int, default=20000)
    parser.add_argument('--repeat', type=int, default=20)
    args = parser.parse_args()
    HEADERS['X-OpenStack-Ironic-API-Version'] = 'latest'
    with tempfile.TemporaryDirectory() as state:
        proc, api = start_aio(state, free_port())
        try:
            first, ports = fill(state, args.nodes, args.ports)
            report(api, first, ports, args.repeat)
        finally:
            proc.terminate()
            proc.wait(30)
    return 0


if __name__ == '__main__':
    sys.exit(main())
