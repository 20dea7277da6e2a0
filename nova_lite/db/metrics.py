"""The database's counts, read at scrape time: instances by vm_state,
migrations by type and status, services' heartbeat age (three queries,
whatever the number of rows), and the connection pool's use.

Exported by nova-lite-api only (:mod:`nova_lite.api.metrics`): the
database is the same for every process, a conductor exporting it too
would double it.
"""

import datetime
from typing import Any

from prometheus_client.core import GaugeMetricFamily
import sqlalchemy as sa

from lite_common import metrics
from lite_common.metrics import db_pool
from lite_common.metrics import scrape
from nova_lite.db import api as db_api
from nova_lite.db import models


class NovaDatabaseCollector(scrape.DatabaseCollector):
    name = 'nova_lite'

    def families(
        self, session: Any, now: datetime.datetime
    ) -> list[GaugeMetricFamily]:
        inst, mig, svc = models.Instance, models.Migration, models.Service
        instances = session.execute(
            sa.select(inst.vm_state, sa.func.count())
            .where(inst.deleted == 0)
            .group_by(inst.vm_state)
        )
        migrations = session.execute(
            sa.select(mig.migration_type, mig.status, sa.func.count())
            .where(mig.deleted == 0)
            .group_by(mig.migration_type, mig.status)
        )
        services = session.execute(
            sa.select(svc.binary, svc.host, svc.last_seen_up).where(
                svc.deleted == 0
            )
        )
        ages = GaugeMetricFamily(
            'nova_lite_service_heartbeat_age_seconds',
            'Seconds since each nova service last reported (+Inf: never).',
            labels=['binary', 'host'],
        )
        for binary, host, seen in services:
            ages.add_metric([binary, host], scrape.age_seconds(seen, now))
        return [
            scrape.counts(
                'nova_lite_instances',
                'Instances (not deleted) by vm_state.',
                ['vm_state'],
                instances,
            ),
            scrape.counts(
                'nova_lite_migrations',
                'Migration records (not deleted) by type and status.',
                ['migration_type', 'status'],
                migrations,
            ),
            ages,
        ]


def register() -> None:
    """The pool's series and the counts."""
    db_pool.track('nova_lite', db_api.get_engine)
    metrics.register(
        'nova_lite_database', NovaDatabaseCollector(db_api.context_manager)
    )
