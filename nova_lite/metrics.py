"""nova_lite's series: scheduling counters and database counts.

Counts of the database (instances by vm_state, migrations by type and
status, services' heartbeat age) are read at scrape time by
:class:`NovaDatabaseCollector`: three queries, whatever the number of
rows. It is exported by nova-lite-api only (the database is the same
for every process; a conductor exporting it too would double it).
"""

import datetime
from typing import Any

from prometheus_client import Counter
from prometheus_client.core import GaugeMetricFamily
import sqlalchemy as sa

from lite_common import metrics
from lite_common.metrics import api as api_metrics
from lite_common.metrics import db_pool
from lite_common.metrics import rpc_client
from lite_common.metrics import scrape
from nova_lite.db import api as db_api
from nova_lite.db import models

SCHEDULER_DECISIONS = Counter(
    'nova_lite_scheduler_decisions_total',
    'Scheduling decisions of this conductor, by operation (claim: a '
    'build or unshelve claims a node; destination: a move picks one) '
    'and outcome (host_found, no_valid_host).',
    ['operation', 'outcome'], registry=None)
NO_VALID_HOST = Counter(
    'nova_lite_scheduler_no_valid_host_total',
    'Scheduling requests of this conductor that found no valid host.',
    registry=None)


#: The label values of :data:`SCHEDULER_DECISIONS`.
OPERATIONS = ('claim', 'destination')
OUTCOMES = ('host_found', 'no_valid_host')


def scheduled(operation: str, found: bool) -> None:
    """Count one scheduling decision."""
    outcome = 'host_found' if found else 'no_valid_host'
    SCHEDULER_DECISIONS.labels(operation, outcome).inc()
    if not found:
        NO_VALID_HOST.inc()


class NovaDatabaseCollector(scrape.DatabaseCollector):
    name = 'nova_lite'

    def families(self, session: Any, now: datetime.datetime
                 ) -> list[GaugeMetricFamily]:
        inst, mig, svc = models.Instance, models.Migration, models.Service
        instances = session.execute(
            sa.select(inst.vm_state, sa.func.count())
            .where(inst.deleted == 0).group_by(inst.vm_state))
        migrations = session.execute(
            sa.select(mig.migration_type, mig.status, sa.func.count())
            .where(mig.deleted == 0)
            .group_by(mig.migration_type, mig.status))
        services = session.execute(
            sa.select(svc.binary, svc.host, svc.last_seen_up)
            .where(svc.deleted == 0))
        ages = GaugeMetricFamily(
            'nova_lite_service_heartbeat_age_seconds',
            'Seconds since each nova service last reported (+Inf: '
            'never).', labels=['binary', 'host'])
        for binary, host, seen in services:
            ages.add_metric([binary, host], scrape.age_seconds(seen, now))
        return [
            scrape.counts('nova_lite_instances',
                          'Instances (not deleted) by vm_state.',
                          ['vm_state'], instances),
            scrape.counts('nova_lite_migrations',
                          'Migration records (not deleted) by type and '
                          'status.', ['migration_type', 'status'],
                          migrations),
            ages,
        ]


def register_process() -> None:
    """The series every nova_lite process with a registry exports."""
    rpc_client.register()
    metrics.register('nova_lite_scheduler_decisions', SCHEDULER_DECISIONS)
    metrics.register('nova_lite_scheduler_no_valid_host', NO_VALID_HOST)
    # At 0 from start-up: increase() needs a sample before the first
    # decision to count it (doc/source/admin/metrics.rst).
    for operation in OPERATIONS:
        for outcome in OUTCOMES:
            SCHEDULER_DECISIONS.labels(operation, outcome)


def register_api() -> None:
    """nova-lite-api's: the process series, requests, the database."""
    register_process()
    api_metrics.register()
    db_pool.track('nova_lite', db_api.get_engine)
    metrics.register('nova_lite_database',
                     NovaDatabaseCollector(db_api.context_manager))
