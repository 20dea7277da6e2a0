"""nova_lite's series on a real SQLite file: counts by GROUP BY at
scrape time, and the scheduler's decisions."""

import datetime
import uuid

import pytest
import sqlalchemy as sa

from lite_common import db as lite_db
from lite_common import metrics
from nova_lite import exception
from nova_lite import metrics as nova_metrics
from nova_lite.api import metrics as nova_api_metrics
from nova_lite.db import api as db_api
from nova_lite.db import instances
from nova_lite.db import migrations
from nova_lite.db import services
from nova_lite.scheduler import claims
from nova_lite.tests.unit import test_claims


def value(name, **labels):
    return metrics.REGISTRY.get_sample_value(name, labels)


def _instance(ctx, vm_state):
    return instances.instance_create(
        ctx,
        {
            'uuid': str(uuid.uuid4()),
            'project_id': 'p',
            'user_id': 'u',
            'flavor': {'name': 'f'},
            'vm_state': vm_state,
            'vcpus': 1,
            'memory_mb': 64,
            'root_gb': 1,
        },
    )


def _migration(ctx, inst, kind, status):
    return migrations.migration_create(
        ctx,
        {
            'uuid': str(uuid.uuid4()),
            'instance_uuid': inst['uuid'],
            'source_compute': 'h1',
            'migration_type': kind,
            'status': status,
        },
    )


def _count_statements(engine):
    seen = []

    def before(conn, cursor, statement, *args):
        seen.append(statement)

    sa.event.listen(engine, 'before_cursor_execute', before)
    return seen, lambda: sa.event.remove(
        engine, 'before_cursor_execute', before
    )


def test_counts_by_state_type_and_status_in_constant_queries(ctx):
    nova_api_metrics.register()
    for state in ('active', 'active', 'error', 'stopped'):
        inst = _instance(ctx, state)
    _migration(ctx, inst, 'resize', 'finished')
    _migration(ctx, inst, 'resize', 'finished')
    _migration(ctx, inst, 'evacuation', 'done')
    svc = services.service_create(
        ctx,
        {
            'uuid': str(uuid.uuid4()),
            'host': 'h1',
            'binary': 'nova-compute',
            'topic': 'compute',
        },
    )
    services.service_update(
        ctx,
        svc['id'],
        {'last_seen_up': lite_db.utcnow() - datetime.timedelta(seconds=90)},
    )
    seen, stop = _count_statements(db_api.get_engine())
    try:
        assert value('nova_lite_instances', vm_state='active') == 2
        queries = len(seen)
        for _ in range(20):
            _instance(ctx, 'active')
        seen.clear()
        assert value('nova_lite_instances', vm_state='active') == 22
        assert len(seen) == queries  # not one more for 20 more rows
    finally:
        stop()
    assert value('nova_lite_instances', vm_state='error') == 1
    assert (
        value(
            'nova_lite_migrations', migration_type='resize', status='finished'
        )
        == 2
    )
    assert (
        value(
            'nova_lite_migrations', migration_type='evacuation', status='done'
        )
        == 1
    )
    age = value(
        'nova_lite_service_heartbeat_age_seconds',
        binary='nova-compute',
        host='h1',
    )
    assert 89 <= age < 200
    assert (
        value('stacklite_db_pool_size_connections', database='nova_lite')
        is not None
    )


def test_a_database_that_fails_leaves_only_its_series_out(ctx):
    nova_api_metrics.register()
    with db_api.context_manager.writer.using(ctx) as session:
        session.execute(sa.text('DROP TABLE migrations'))
    assert value('nova_lite_instances', vm_state='active') is None
    assert (
        value('stacklite_db_pool_size_connections', database='nova_lite')
        is not None
    )


def test_scheduler_counts_decisions_and_no_valid_host(ctx, conf):
    nova_metrics.register_process()
    before = (
        value('nova_lite_scheduler_no_valid_host_total') or 0,
        value(
            'nova_lite_scheduler_decisions_total',
            operation='claim',
            outcome='no_valid_host',
        )
        or 0,
    )
    inst = _instance(ctx, 'building')
    req = claims.Request(inst['uuid'], 1, 64, 1)
    with pytest.raises(exception.NoValidHost):
        claims.select_and_claim(ctx, conf, req)
    with pytest.raises(exception.NoValidHost):
        claims.select_destination(ctx, conf, req, ())
    assert value('nova_lite_scheduler_no_valid_host_total') == before[0] + 2
    assert (
        value(
            'nova_lite_scheduler_decisions_total',
            operation='claim',
            outcome='no_valid_host',
        )
        == before[1] + 1
    )
    assert (
        value(
            'nova_lite_scheduler_decisions_total',
            operation='destination',
            outcome='no_valid_host',
        )
        >= 1
    )
    found = (
        value(
            'nova_lite_scheduler_decisions_total',
            operation='claim',
            outcome='host_found',
        )
        or 0
    )
    test_claims._node(ctx, test_claims._service(ctx, 'h1'))
    assert claims.select_and_claim(ctx, conf, req).host == 'h1'
    assert (
        value(
            'nova_lite_scheduler_decisions_total',
            operation='claim',
            outcome='host_found',
        )
        == found + 1
    )
    assert value('nova_lite_scheduler_no_valid_host_total') == before[0] + 2


def test_scheduler_decisions_exist_at_0_from_start_up():
    nova_metrics.register_process()
    for operation in nova_metrics.OPERATIONS:
        for outcome in nova_metrics.OUTCOMES:
            assert (
                value(
                    'nova_lite_scheduler_decisions_total',
                    operation=operation,
                    outcome=outcome,
                )
                is not None
            )
