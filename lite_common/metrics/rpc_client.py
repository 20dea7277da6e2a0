"""RPC call latency on the client side.

:func:`lite_common.rpc.get_client` returns a :class:`TimedClient`: the
oslo.messaging client whose ``call`` (on it and on what ``prepare``
returns) is timed by topic, method and outcome. Methods are those of
our versioned RPC APIs and topics are fixed names (``compute``,
``conductor``, ``ironic-lite.conductor``): the cardinality is bounded.
Casts are not timed (they return once sent).

An exception the server declares as expected (oslo.messaging's
``expected_exceptions``: NodeLocked, InvalidState, not found ...) is a
refusal, not a fault: the client is built with the classes its server
declares and counts them as ``expected_error``, apart from ``error``.
The first call of a method creates its series for every outcome at 0,
so that a later failure is an increase Prometheus can see.
"""

import time
from typing import Any

import oslo_messaging as messaging
from prometheus_client import Histogram

from lite_common import db_retry
from lite_common import metrics

CALL_LATENCY = Histogram(
    'stacklite_rpc_client_call_duration_seconds',
    'Time of RPC calls made by this process, by topic, method and '
    'outcome (success; expected_error: the server refused with an '
    'exception it declares as expected; error: it raised anything '
    'else; timeout).',
    ['topic', 'method', 'outcome'],
    registry=None,
    buckets=(
        0.005,
        0.01,
        0.025,
        0.05,
        0.1,
        0.25,
        0.5,
        1.0,
        2.5,
        5.0,
        10.0,
        30.0,
        60.0,
    ),
)


#: Every outcome label, in the order of the help text.
OUTCOMES = ('success', 'expected_error', 'error', 'timeout')
Expected = tuple[type[BaseException], ...]


def register() -> None:
    metrics.register('stacklite_rpc_client_call_duration', CALL_LATENCY)


def initialise(topic: str, method: str) -> None:
    """The series of ``method`` at 0 for every outcome (idempotent:
    ``labels`` creates a child once)."""
    for outcome in OUTCOMES:
        CALL_LATENCY.labels(topic, method, outcome)


class TimedClient:
    """An RPC client (or call context) whose calls are timed."""

    def __init__(
        self, client: Any, topic: str, expected: Expected = ()
    ) -> None:
        self._client = client
        self._topic = topic
        self._expected = expected

    def prepare(self, *args: Any, **kwargs: Any) -> 'TimedClient':
        topic = kwargs.get('topic') or self._topic
        return TimedClient(
            self._client.prepare(*args, **kwargs), topic, self._expected
        )

    def _timeout(self) -> float | None:
        """The call's timeout, as oslo.messaging works it out (None: a
        client that does not say)."""
        timeout = getattr(self._client, 'timeout', None)
        conf = getattr(self._client, 'conf', None)
        if timeout is None and conf is not None:
            timeout = conf.rpc_response_timeout
        return None if timeout is None else float(timeout)

    def call(self, ctxt: Any, method: str, **kwargs: Any) -> Any:
        started = time.monotonic()
        outcome = 'error'
        initialise(self._topic, method)
        try:
            # The server learns how long this call waits for it (it
            # gives up on the database in time to answer).
            with db_retry.calling(self._timeout()):
                result = self._client.call(ctxt, method, **kwargs)
            outcome = 'success'
            return result
        except messaging.MessagingTimeout:
            outcome = 'timeout'
            raise
        except self._expected:
            outcome = 'expected_error'
            raise
        finally:
            CALL_LATENCY.labels(self._topic, method, outcome).observe(
                time.monotonic() - started
            )

    def __getattr__(self, name: str) -> Any:
        # cast, can_send_version, target ...: the client's own.
        return getattr(self._client, name)
