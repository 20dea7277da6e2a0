"""An in-process oslo.messaging driver that waits instead of polling.

The all-in-one and the in-process tests run every service in one
process. oslo.messaging offers two buses for that, and both cost a
daemon dearly: ``fake://`` sleeps 50 ms between polls of its queues,
and ``kombu+memory://`` polls with an interval of zero, so that every
RPC server and reply listener spins a core while the process is idle.

``inproc://`` (entry point ``inproc`` in ``oslo.messaging.drivers``)
keeps the fake driver's exchange and queue semantics (topics, servers,
fanout, pools) but delivers through a condition variable: a listener
sleeps until a message arrives. Like a real broker it carries only
JSON: every message and reply is encoded and decoded, and a failure
travels as a serialized remote exception, so that code that works here
behaves the same over RabbitMQ.
"""

import queue
import threading
import time
from typing import Any

import oslo_messaging
from oslo_messaging._drivers import base
from oslo_messaging._drivers import common as driver_common
from oslo_messaging._drivers import impl_fake
from oslo_serialization import jsonutils

# The longest a listener sleeps without looking at its queues again;
# deliveries wake it at once, this only bounds a missed wake-up.
_MAX_WAIT = 1.0


def _copy(message: Any) -> Any:
    """What a broker would hand over: the message as JSON, decoded."""
    return jsonutils.loads(jsonutils.dumps(message))


class _Exchange(impl_fake.FakeExchange):
    """Queues of one exchange, with a condition to wait on."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.changed = threading.Condition(self._queues_lock)

    def deliver_message(
        self,
        topic: str,
        ctxt: Any,
        message: Any,
        server: str | None = None,
        fanout: bool = False,
        reply_q: Any = None,
    ) -> None:
        with self.changed:
            super().deliver_message(
                topic,
                ctxt,
                message,
                server=server,
                fanout=fanout,
                reply_q=reply_q,
            )
            self.changed.notify_all()

    def wake(self) -> None:
        with self.changed:
            self.changed.notify_all()


class _ExchangeManager(impl_fake.FakeExchangeManager):
    _exchanges_lock = threading.Lock()
    _exchanges: dict[str, _Exchange] = {}

    def get_exchange(self, name: str | None) -> _Exchange:
        name = name or self._default_exchange
        with self._exchanges_lock:
            return self._exchanges.setdefault(name, _Exchange(name))


class _IncomingMessage(base.RpcIncomingMessage):
    def __init__(
        self, ctxt: Any, message: Any, reply_q: Any, requeue: Any
    ) -> None:
        super().__init__(ctxt, message)
        self._reply_q = reply_q
        self._requeue = requeue

    def reply(self, reply: Any = None, failure: Any = None) -> None:
        if self._reply_q is None:
            return
        if failure is not None:
            failure = driver_common.serialize_remote_exception(failure)
        self._reply_q.put((_copy(reply), failure))

    def acknowledge(self) -> None:
        pass

    def requeue(self) -> None:
        self._requeue()

    def heartbeat(self) -> None:
        pass


class _Listener(base.PollStyleListener):
    """Takes messages for its targets; sleeps until one arrives."""

    def __init__(
        self,
        exchanges: _ExchangeManager,
        targets: list[oslo_messaging.Target],
        pool: str | None = None,
    ) -> None:
        super().__init__()
        self._targets = targets
        self._pool = pool
        self._stopped = threading.Event()
        self._exchanges = [exchanges.get_exchange(t.exchange) for t in targets]
        for exchange, target in zip(self._exchanges, targets, strict=True):
            exchange.ensure_queue(target, pool)

    def _take(self) -> Any:
        for exchange, target in zip(
            self._exchanges, self._targets, strict=True
        ):
            ctxt, message, reply_q, requeue = exchange.poll(target, self._pool)
            if message is not None:
                return _IncomingMessage(ctxt, message, reply_q, requeue)
        return None

    # (oslo.messaging's decorator is untyped; it keeps the signature)
    @base.batch_poll_helper  # type: ignore[untyped-decorator]
    def poll(self, timeout: float | None = None) -> Any:
        deadline = None if timeout is None else time.monotonic() + timeout
        # Every target of one listener is on one exchange in practice;
        # waiting on the first one's condition covers it, and _MAX_WAIT
        # bounds the wait for any other.
        changed = self._exchanges[0].changed
        with changed:
            while not self._stopped.is_set():
                incoming = self._take()
                if incoming is not None:
                    return incoming
                wait = _MAX_WAIT
                if deadline is not None:
                    wait = min(wait, deadline - time.monotonic())
                    if wait <= 0:
                        return None
                changed.wait(wait)
        return None

    def stop(self) -> None:
        self._stopped.set()
        for exchange in self._exchanges:
            exchange.wake()


class InProcessDriver(impl_fake.FakeDriver):
    """``inproc://``: one process, no broker, no polling."""

    def __init__(
        self,
        conf: Any,
        url: Any,
        default_exchange: Any = None,
        allowed_remote_exmods: Any = None,
    ) -> None:
        super().__init__(conf, url, default_exchange, allowed_remote_exmods)
        self._exchange_manager = _ExchangeManager(default_exchange)

    def _send(
        self,
        target: Any,
        ctxt: Any,
        message: Any,
        wait_for_reply: Any = None,
        timeout: Any = None,
        transport_options: Any = None,
    ) -> Any:
        exchange = self._exchange_manager.get_exchange(target.exchange)
        reply_q: Any = queue.Queue() if wait_for_reply else None
        exchange.deliver_message(
            target.topic,
            _copy(ctxt),
            _copy(message),
            server=target.server,
            fanout=target.fanout,
            reply_q=reply_q,
        )
        if reply_q is None:
            return None
        try:
            reply, failure = reply_q.get(timeout=timeout)
        except queue.Empty:
            raise oslo_messaging.MessagingTimeout(
                f'No reply on topic {target.topic} within {timeout} s'
            )
        if failure is not None:
            raise driver_common.deserialize_remote_exception(
                failure, self._allowed_remote_exmods
            )
        return reply

    def listen(self, target: Any, batch_size: int, batch_timeout: Any) -> Any:
        exchange = target.exchange or self._default_exchange
        listener = _Listener(
            self._exchange_manager,
            [
                oslo_messaging.Target(
                    topic=target.topic, server=target.server, exchange=exchange
                ),
                oslo_messaging.Target(topic=target.topic, exchange=exchange),
            ],
        )
        return base.PollStyleListenerAdapter(
            listener, batch_size, batch_timeout
        )

    def listen_for_notifications(
        self,
        targets_and_priorities: Any,
        pool: Any,
        batch_size: int,
        batch_timeout: Any,
    ) -> Any:
        targets = [
            oslo_messaging.Target(
                topic=f'{target.topic}.{priority}', exchange=target.exchange
            )
            for target, priority in targets_and_priorities
        ]
        listener = _Listener(self._exchange_manager, targets, pool)
        return base.PollStyleListenerAdapter(
            listener, batch_size, batch_timeout
        )
