"""Collectors that read the database at scrape time.

A :class:`DatabaseCollector` runs a fixed number of GROUP BY queries in
one read transaction per scrape, whatever the number of rows: the cost
of a scrape does not grow with the cloud. A failing query (database
down) is logged and leaves its series out of that scrape only, so the
process's other series are still served.
"""

from collections.abc import Iterable
import datetime
from typing import Any

from oslo_log import log as logging
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from lite_common import context as lite_context
from lite_common import db as lite_db

LOG = logging.getLogger(__name__)


def age_seconds(
    when: datetime.datetime | None, now: datetime.datetime
) -> float:
    """Seconds since the naive UTC ``when`` (+Inf when never)."""
    if when is None:
        return float('inf')
    return max(0.0, (now - when).total_seconds())


def counts(
    name: str, doc: str, labels: list[str], rows: Iterable[Any]
) -> GaugeMetricFamily:
    """A gauge family of ``(label values..., count)`` rows."""
    family = GaugeMetricFamily(name, doc, labels=labels)
    for row in rows:
        *values, count = row
        family.add_metric([str(v) for v in values], count)
    return family


class DatabaseCollector(Collector):
    """Base: subclasses implement :meth:`families` on a session."""

    #: A name for the log line when a scrape fails.
    name = 'database'

    def __init__(self, context_manager: Any) -> None:
        self.context_manager = context_manager

    def describe(self) -> Iterable[GaugeMetricFamily]:
        # Registering it must not query the database.
        return []

    def families(
        self, session: Any, now: datetime.datetime
    ) -> list[GaugeMetricFamily]:
        raise NotImplementedError

    def collect(self) -> Iterable[GaugeMetricFamily]:
        context = lite_context.get_admin_context()
        try:
            with self.context_manager.reader.using(context) as session:
                return self.families(session, lite_db.utcnow())
        except Exception as exc:
            LOG.warning(
                'Metrics of the %s database left out of this scrape: %s',
                self.name,
                exc,
            )
            return []
