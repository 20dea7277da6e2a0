"""ironic_lite's series on a real SQLite file: node counts and
conductor heartbeat age at scrape time (GROUP BY), clean step
durations and clean failures from the cleaning flow."""

import datetime

import sqlalchemy as sa

from ironic_lite import metrics as ironic_metrics
from ironic_lite import service
from ironic_lite.common import states
from ironic_lite.common.conductor_identity import ConductorIdentity
from ironic_lite.conductor import cleaning
from ironic_lite.db import api as db_api
from ironic_lite.db import conductors as db_conductors
from ironic_lite.db import models
from ironic_lite.tests.unit import make_conf
from ironic_lite.tests.unit import test_cleaning as flows
from ironic_lite.tests.unit.test_task_manager import holder  # noqa: F401
from ironic_lite.tests.unit.test_task_manager import make_node
from lite_common import db as lite_db
from lite_common import metrics

conf = flows.conf
pool = flows.pool


def value(name, **labels):
    return metrics.REGISTRY.get_sample_value(name, labels)


def _statements(engine):
    seen = []

    def before(conn, cursor, statement, *args):
        seen.append(statement)

    sa.event.listen(engine, 'before_cursor_execute', before)
    return seen, lambda: sa.event.remove(
        engine, 'before_cursor_execute', before
    )


def test_nodes_by_state_maintenance_and_fault(ctx):
    ironic_metrics.register_api()
    make_node(ctx, provision_state=states.AVAILABLE)
    make_node(ctx, provision_state=states.AVAILABLE)
    make_node(
        ctx,
        provision_state=states.CLEANFAIL,
        maintenance=True,
        fault='clean failure',
    )
    make_node(
        ctx,
        provision_state=states.ACTIVE,
        maintenance=True,
        fault='a fault nobody knows',
    )
    assert (
        value(
            'ironic_lite_nodes',
            provision_state='available',
            maintenance='false',
            fault='none',
        )
        == 2
    )
    assert (
        value(
            'ironic_lite_nodes',
            provision_state='clean failed',
            maintenance='true',
            fault='clean failure',
        )
        == 1
    )
    assert (
        value(
            'ironic_lite_nodes',
            provision_state='active',
            maintenance='true',
            fault='other',
        )
        == 1
    )


def test_scrape_cost_does_not_grow_with_nodes(ctx):
    ironic_metrics.register_api()
    make_node(ctx, provision_state=states.AVAILABLE)
    seen, stop = _statements(db_api.get_engine())
    try:
        value(
            'ironic_lite_nodes',
            provision_state='available',
            maintenance='false',
            fault='none',
        )
        queries = len(seen)
        for _ in range(25):
            make_node(ctx, provision_state=states.ENROLL)
        seen.clear()
        assert (
            value(
                'ironic_lite_nodes',
                provision_state='enroll',
                maintenance='false',
                fault='none',
            )
            == 25
        )
        assert len(seen) == queries
    finally:
        stop()


def test_conductor_heartbeat_age(ctx):
    ironic_metrics.register_api()
    db_conductors.register(ctx, ConductorIdentity.new('c1'), ['fake-hardware'])
    old = lite_db.utcnow() - datetime.timedelta(seconds=300)
    with db_api.context_manager.writer.using(ctx) as session:
        session.execute(sa.update(models.Conductor).values(heartbeat_at=old))
    age = value(
        'ironic_lite_conductor_heartbeat_age_seconds',
        hostname='c1',
        online='true',
    )
    assert 299 <= age < 400


def _step_count(step, outcome):
    return (
        value(
            'ironic_lite_clean_step_duration_seconds_count',
            step=step,
            outcome=outcome,
        )
        or 0
    )


def test_clean_step_durations_and_failures(ctx, conf):
    ironic_metrics.register_process()
    before = (
        _step_count('management.verify_properties', 'succeeded'),
        _step_count('deploy.fail_step', 'failed'),
        value('ironic_lite_clean_failures_total', event='fail') or 0,
    )
    node = flows.cleaning_node(ctx, target=states.MANAGEABLE)
    with flows.lock(ctx, conf, node) as task:
        cleaning.do_node_clean(task, [flows.VERIFY, flows.FAIL, flows.VERIFY])
    assert (
        _step_count('management.verify_properties', 'succeeded')
        == before[0] + 1
    )
    assert _step_count('deploy.fail_step', 'failed') == before[1] + 1
    assert (
        value('ironic_lite_clean_failures_total', event='fail')
        == before[2] + 1
    )


def test_asynchronous_step_is_counted_as_async(ctx, conf):
    ironic_metrics.register_process()
    before = _step_count('deploy.wait_a_bit', 'async')
    node = flows.cleaning_node(ctx, target=states.MANAGEABLE)
    with flows.lock(ctx, conf, node) as task:
        cleaning.do_node_clean(task, [flows.WAIT])
    assert _step_count('deploy.wait_a_bit', 'async') == before + 1


def test_clean_failures_exist_at_0_from_start_up():
    ironic_metrics.register_process()
    for event in ('fail', 'abort'):
        assert (
            value('ironic_lite_clean_failures_total', event=event) is not None
        )


def test_clean_step_durations_exist_at_0_from_conductor_start_up():
    # A step no node ran yet: increase() over it is 0, not "no data".
    ironic_metrics.register_process()
    service.load_enabled_drivers(make_conf())
    for outcome in ironic_metrics.CLEAN_STEP_OUTCOMES:
        for step in ('management.verify_properties', 'deploy.erase_devices'):
            assert (
                value(
                    'ironic_lite_clean_step_duration_seconds_count',
                    step=step,
                    outcome=outcome,
                )
                is not None
            ), (step, outcome)
