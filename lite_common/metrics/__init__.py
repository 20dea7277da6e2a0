"""Prometheus metrics: one registry per process.

Every series of a process lives in prometheus-client's default
registry (:data:`REGISTRY`), beside its process and Python collectors:
in the all-in-one, both APIs, the conductors and the compute agents
share it and the APIs' ``/metrics`` shows everything. Nothing is
registered at import time: metric objects are created unregistered and
:func:`register` adds them (idempotently) when a service that exports
them is built. See ``doc/source/admin/metrics.rst``.
"""

import threading

from prometheus_client import registry as prom_registry

REGISTRY: prom_registry.CollectorRegistry = prom_registry.REGISTRY
_LOCK = threading.Lock()
_REGISTERED: dict[str, prom_registry.Collector] = {}


def register(key: str, collector: prom_registry.Collector) -> None:
    """Export ``collector`` under ``key``; a different collector
    registered earlier under the same key is replaced (a rebuilt
    application, a test's new database)."""
    with _LOCK:
        old = _REGISTERED.get(key)
        if old is collector:
            return
        if old is not None:
            REGISTRY.unregister(old)
        REGISTRY.register(collector)
        _REGISTERED[key] = collector


def register_all(collectors: dict[str, prom_registry.Collector]) -> None:
    for key, collector in collectors.items():
        register(key, collector)
