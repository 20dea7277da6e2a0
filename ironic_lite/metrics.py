"""ironic_lite's series: cleaning, and node and conductor counts.

Node counts (by provision state, maintenance and fault) and the
conductors' heartbeat age are read at scrape time by
:class:`IronicDatabaseCollector` with two queries, whatever the number
of nodes; ironic-lite-api exports them (one database for every
process: a conductor exporting them too would double them). Clean step
durations and clean failures are counted by the conductor that runs
the steps.
"""

from collections.abc import Iterable
import datetime
from typing import Any

from prometheus_client import Counter
from prometheus_client import Histogram
from prometheus_client.core import GaugeMetricFamily
import sqlalchemy as sa

from ironic_lite.db import api as db_api
from ironic_lite.db import models
from lite_common import metrics
from lite_common.metrics import api as api_metrics
from lite_common.metrics import db_pool
from lite_common.metrics import rpc_client
from lite_common.metrics import scrape

#: Upstream's node faults; anything else is counted as ``other``.
FAULTS = frozenset(
    {
        'power failure',
        'clean failure',
        'rescue abort failure',
        'service failure',
    }
)

CLEAN_STEP_DURATION = Histogram(
    'ironic_lite_clean_step_duration_seconds',
    'Time of clean step executions on this conductor, by step '
    '(interface.step) and outcome (succeeded; async: the step goes on '
    'in clean wait, the time is that of its start; failed; aborted; '
    'interrupted: the conductor stopped or lost the node).',
    ['step', 'outcome'],
    registry=None,
    buckets=(
        0.1,
        0.5,
        1.0,
        5.0,
        10.0,
        30.0,
        60.0,
        300.0,
        900.0,
        1800.0,
        3600.0,
        7200.0,
    ),
)
CLEAN_FAILURES = Counter(
    'ironic_lite_clean_failures_total',
    'Cleanings that ended in clean failed on this conductor, by event '
    '(fail, abort).',
    ['event'],
    registry=None,
)


#: The ``event`` labels of :data:`CLEAN_FAILURES`.
CLEAN_FAILURE_EVENTS = ('fail', 'abort')
#: The ``outcome`` labels of :data:`CLEAN_STEP_DURATION`.
CLEAN_STEP_OUTCOMES = (
    'succeeded',
    'async',
    'failed',
    'aborted',
    'interrupted',
)


def clean_steps_known(steps: Iterable[str]) -> None:
    """Put the duration series of ``steps`` (``interface.step``, the
    clean steps of the interfaces this conductor loaded) at 0 for every
    outcome: a rate or increase() over them needs a sample before the
    first run. (Steps that only an agent reports are counted when they
    run.)"""
    for step in steps:
        for outcome in CLEAN_STEP_OUTCOMES:
            CLEAN_STEP_DURATION.labels(step, outcome)


def clean_step_done(step: str, outcome: str, seconds: float) -> None:
    CLEAN_STEP_DURATION.labels(step, outcome).observe(seconds)


def clean_failed(event: str) -> None:
    CLEAN_FAILURES.labels('abort' if event == 'abort' else 'fail').inc()


def _fault(value: str | None) -> str:
    if not value:
        return 'none'
    return value if value in FAULTS else 'other'


class IronicDatabaseCollector(scrape.DatabaseCollector):
    name = 'ironic_lite'

    def families(
        self, session: Any, now: datetime.datetime
    ) -> list[GaugeMetricFamily]:
        node, cond = models.Node, models.Conductor
        rows = session.execute(
            sa.select(
                node.provision_state,
                node.maintenance,
                node.fault,
                sa.func.count(),
            ).group_by(node.provision_state, node.maintenance, node.fault)
        )
        totals: dict[tuple[str, str, str], int] = {}
        for state, maintenance, fault, count in rows:
            key = (state, str(bool(maintenance)).lower(), _fault(fault))
            totals[key] = totals.get(key, 0) + count
        conductors = session.execute(
            sa.select(cond.hostname, cond.online, cond.heartbeat_at)
        )
        ages = GaugeMetricFamily(
            'ironic_lite_conductor_heartbeat_age_seconds',
            'Seconds since each conductor last heartbeat, by hostname '
            'and online flag.',
            labels=['hostname', 'online'],
        )
        for hostname, online, beat in conductors:
            ages.add_metric(
                [hostname, str(bool(online)).lower()],
                scrape.age_seconds(beat, now),
            )
        return [
            scrape.counts(
                'ironic_lite_nodes',
                'Nodes by provision state, maintenance and fault.',
                ['provision_state', 'maintenance', 'fault'],
                (key + (count,) for key, count in sorted(totals.items())),
            ),
            ages,
        ]


def register_process() -> None:
    """The series every ironic_lite process with a registry exports."""
    rpc_client.register()
    metrics.register('ironic_lite_clean_step_duration', CLEAN_STEP_DURATION)
    metrics.register('ironic_lite_clean_failures', CLEAN_FAILURES)
    # At 0 from start-up: increase() needs a sample before the first
    # failure to count it (doc/source/admin/metrics.rst).
    for event in CLEAN_FAILURE_EVENTS:
        CLEAN_FAILURES.labels(event)


def register_api() -> None:
    """ironic-lite-api's: the process series, requests, the database."""
    register_process()
    api_metrics.register()
    db_pool.track('ironic_lite', db_api.get_engine)
    metrics.register(
        'ironic_lite_database', IronicDatabaseCollector(db_api.context_manager)
    )
