"""nova_lite's series every process may export: the scheduling
counters and the RPC client's. The database's counts are
:mod:`nova_lite.db.metrics` (nova-lite-api only; the agent, which has
no database, never imports them); nova-lite-api registers both in
:mod:`nova_lite.api.metrics`.
"""

from prometheus_client import Counter

from lite_common import metrics
from lite_common.metrics import rpc_client

SCHEDULER_DECISIONS = Counter(
    'nova_lite_scheduler_decisions_total',
    'Scheduling decisions of this conductor, by operation (claim: a '
    'build or unshelve claims a node; destination: a move picks one) '
    'and outcome (host_found, no_valid_host).',
    ['operation', 'outcome'],
    registry=None,
)
NO_VALID_HOST = Counter(
    'nova_lite_scheduler_no_valid_host_total',
    'Scheduling requests of this conductor that found no valid host.',
    registry=None,
)


#: The label values of :data:`SCHEDULER_DECISIONS`.
OPERATIONS = ('claim', 'destination')
OUTCOMES = ('host_found', 'no_valid_host')


def scheduled(operation: str, found: bool) -> None:
    """Count one scheduling decision."""
    outcome = 'host_found' if found else 'no_valid_host'
    SCHEDULER_DECISIONS.labels(operation, outcome).inc()
    if not found:
        NO_VALID_HOST.inc()


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
