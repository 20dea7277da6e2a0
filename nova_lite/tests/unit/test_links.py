"""Filling the integer links of old records: the batched fills, the
statements they cost, and ``nova-lite-manage db online_data_migrations``."""

from pathlib import Path
import subprocess
import sys
import uuid

import sqlalchemy as sa

from nova_lite.cmd import manage_online
from nova_lite.db import instances
from nova_lite.db import links
from nova_lite.db import migrations
from nova_lite.db import models
from nova_lite.tests.unit.test_db_api import make_legacy_instance
from nova_lite.tests.unit.test_db_api import make_node
from nova_lite.tests.unit.test_db_api import make_service

BIN = Path(sys.executable).parent


def _old_records(ctx, count=5):
    """Two hosts' records as an old release wrote them: no links."""
    made = {}
    for host in ('host1', 'host2'):
        service = make_service(ctx, host=host)
        node = make_node(ctx, service_id=None, host=host, name=f'{host}-n')
        insts = [
            make_legacy_instance(ctx, host=host, node=f'{host}-n')
            for _ in range(count)
        ]
        mig = migrations.migration_create(
            ctx,
            {
                'uuid': str(uuid.uuid4()),
                'instance_uuid': insts[0]['uuid'],
                'migration_type': 'resize',
                'status': 'finished',
                'source_compute': 'elsewhere',
                'dest_compute': host,
                'dest_node': f'{host}-n',
            },
        )
        made[host] = (service, node, insts, mig)
    # An instance on a node that no record knows stays unlinked.
    make_legacy_instance(ctx, host='gone', node='gone-n')
    return made


def _count(engine, model, column):
    with engine.connect() as conn:
        return conn.execute(
            sa.select(sa.func.count())
            .select_from(model)
            .where(getattr(model, column).is_(None), model.deleted == 0)
        ).scalar()


def _statements(engine):
    seen = []
    sa.event.listen(
        engine,
        'before_cursor_execute',
        lambda *args: (
            seen.append(args[2]) if not args[2].startswith('BEGIN') else None
        ),
    )
    return seen


def test_fills_link_by_names_in_batches(ctx, db):
    made = _old_records(ctx)
    engine = db.writer.get_engine()
    seen = _statements(engine)
    assert links.fill_instance_compute_ids(ctx, 4) == (4, 4)
    assert len(seen) == 2  # one SELECT, one UPDATE, whatever count
    assert links.fill_all(ctx, links.fill_instance_compute_ids, 4) == 6
    assert links.fill_instance_compute_ids(ctx, 4) == (0, 0)
    for _service, node, insts, _mig in made.values():
        for inst in insts:
            got = instances.instance_get_by_uuid(ctx, inst['uuid'])
            assert got['compute_id'] == node['id']
    # Only the instance of an unknown node is left, and never selected.
    assert _count(engine, models.Instance, 'compute_id') == 1


def test_fills_service_and_dest_links(ctx, db):
    made = _old_records(ctx)
    assert links.fill_compute_node_service_ids(ctx, 50) == (2, 2)
    assert links.fill_migration_dest_compute_ids(ctx, 50) == (2, 2)
    for service, node, _insts, mig in made.values():
        with db.writer.get_engine().connect() as conn:
            node_row = conn.execute(
                sa.select(models.ComputeNode).where(
                    models.ComputeNode.id == node['id']
                )
            ).one()
        assert node_row.service_id == service['id']
        got = migrations.migration_get(ctx, id=mig['id'])
        assert got['dest_compute_id'] == node['id']


def test_host_filter_fixes_only_that_hosts_records(ctx, db):
    made = _old_records(ctx, count=3)
    assert (
        links.fill_all(ctx, links.fill_instance_compute_ids, 2, host='host1')
        == 3
    )
    assert links.fill_migration_dest_compute_ids(ctx, 9, host='host1') == (
        1,
        1,
    )
    _s, _n, insts2, mig2 = made['host2']
    assert (
        instances.instance_get_by_uuid(ctx, insts2[0]['uuid'])['compute_id']
        is None
    )
    assert (
        migrations.migration_get(ctx, id=mig2['id'])['dest_compute_id'] is None
    )


def _manage(tmp_path, db_file, *args):
    config = tmp_path / 'manage.conf'
    config.write_text(f'[database]\nconnection = sqlite:///{db_file}\n')
    return subprocess.run(
        [
            str(BIN / 'nova-lite-manage'),
            '--config-file',
            str(config),
            'db',
            'online_data_migrations',
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_online_data_migrations_command(ctx, db, tmp_path):
    _old_records(ctx, count=2)
    db_file = tmp_path / 'nova.db'
    first = _manage(tmp_path, db_file, '--max-count', '1')
    assert first.returncode == 1, first
    assert 'fill_instance_compute_ids' in first.stdout
    rest = _manage(tmp_path, db_file)
    assert rest.returncode == 0, rest
    engine = db.writer.get_engine()
    assert _count(engine, models.Instance, 'compute_id') == 1  # 'gone'
    assert _count(engine, models.ComputeNode, 'service_id') == 0
    assert _count(engine, models.Migration, 'dest_compute_id') == 0
    again = _manage(tmp_path, db_file, '--max-count', '10')
    assert again.returncode == 0, again


def test_default_batch_is_documented():
    assert manage_online.DEFAULT_BATCH == 50


def test_upgrade_check_warns_until_linked(ctx, db):
    from nova_lite.cmd import status

    _old_records(ctx, count=1)
    checks = status.Checks()
    warned = checks._check_migration_links()
    assert warned.code == status.upgradecheck.Code.WARNING
    assert 'online_data_migrations' in warned.details
    links.fill_all(ctx, links.fill_migration_dest_compute_ids, 10)
    assert checks._check_migration_links().code == (
        status.upgradecheck.Code.SUCCESS
    )
