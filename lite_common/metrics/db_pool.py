"""Database connection pool usage, read at scrape time.

Each service family adds the engine getter of its database when it
configures it; a scrape reads the pool counters of each (no query).
"""

from collections.abc import Callable
from collections.abc import Iterator
import threading
from typing import Any

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from lite_common import metrics

_SERIES = (
    (
        'stacklite_db_pool_checked_out_connections',
        'Connections of the pool in use now.',
        'checkedout',
    ),
    (
        'stacklite_db_pool_size_connections',
        'Connections the pool keeps (its configured size).',
        'size',
    ),
    (
        'stacklite_db_pool_overflow_connections',
        'Connections open beyond the pool size now (negative: the pool '
        'has not opened all of its connections yet).',
        'overflow',
    ),
)


class PoolCollector(Collector):
    """Pool counters of the databases of this process, by database."""

    def __init__(self) -> None:
        self._engines: dict[str, Callable[[], Any]] = {}
        self._lock = threading.Lock()

    def add(self, database: str, get_engine: Callable[[], Any]) -> None:
        with self._lock:
            self._engines[database] = get_engine

    def _pools(self) -> Iterator[tuple[str, Any]]:
        with self._lock:
            engines = sorted(self._engines.items())
        for database, get_engine in engines:
            try:
                pool = get_engine().pool
            except Exception:  # not configured (yet): nothing to show
                continue
            if all(hasattr(pool, attr) for _n, _h, attr in _SERIES):
                yield database, pool

    def collect(self) -> Iterator[GaugeMetricFamily]:
        families = [
            (GaugeMetricFamily(name, doc, labels=['database']), a)
            for name, doc, a in _SERIES
        ]
        for database, pool in self._pools():
            for family, attr in families:
                family.add_metric([database], getattr(pool, attr)())
        for family, _attr in families:
            yield family


COLLECTOR = PoolCollector()


def track(database: str, get_engine: Callable[[], Any]) -> None:
    """Export the pool of ``database`` (idempotent)."""
    COLLECTOR.add(database, get_engine)
    metrics.register('stacklite_db_pool', COLLECTOR)
