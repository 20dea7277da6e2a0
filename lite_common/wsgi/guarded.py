"""waitress, guarded against clients that hold the server.

waitress reads every request on one I/O thread (``select``-free
``poll``) and hands a worker thread only a request it has received whole,
so a slow or idle client costs a socket, never a worker. What it lacks,
added here:

* a deadline for a whole request (head and body) counted from its first
  byte: a client that sends one byte every few seconds, or announces a
  ``Content-Length`` it never sends, is disconnected when it runs out
  (waitress alone only notices silence);
* a bounded connection count that degrades gracefully: at the limit the
  connection idle the longest (between requests) gives way to the new
  one, and with none idle the newcomer gets an immediate 503 and is
  closed (waitress alone stops accepting, and the kernel queue grows);
* a lane of its own for health checks, so a load balancer's probe is
  answered while every worker is busy;
* answers of its own (the 503 above, the 400 of a request it cannot
  parse) in the API's error format, as clients parse every error body
  with it; a request it cannot parse costs one warning, not a traceback.
"""

import logging
import socket
import threading
import time
from typing import Any

from waitress import channel as waitress_channel
from waitress import server as waitress_server
from waitress import task as waitress_task

from lite_common.wsgi import faults
from lite_common.wsgi.text import printable

LOG = logging.getLogger(__name__)

#: How often the overload warning may repeat (seconds).
WARN_EVERY = 10.0

BUSY_MESSAGE = 'The server is busy; retry shortly.'


def busy_response(formatter: faults.ErrorFormatter) -> bytes:
    """The raw 503 a connection beyond the limit gets, in the API's
    error format."""
    content_type, body = faults.server_error_body(503, BUSY_MESSAGE, formatter)
    return (
        b'HTTP/1.1 503 Service Unavailable\r\n'
        b'Content-Type: ' + content_type.encode('latin-1') + b'\r\n'
        b'Content-Length: ' + str(len(body)).encode() + b'\r\n'
        b'Retry-After: 1\r\nConnection: close\r\n\r\n' + body
    )


class HeaderCaseTask(waitress_task.WSGITask):
    """Sends header names as the application wrote them.

    waitress capitalises each word (``X-Openstack-Request-Id``); names
    are case-insensitive, but upstream services send
    ``X-OpenStack-Request-Id`` and ``OpenStack-API-Version``, and so do
    we.
    """

    def build_response_header(self) -> bytes:
        names = {name.lower(): name for name, _ in self.response_headers}
        head: bytes = super().build_response_header()
        lines = head.split(b'\r\n')
        for index, line in enumerate(lines[1:], start=1):
            name, colon, value = line.partition(b':')
            original = names.get(name.decode('latin-1').lower())
            if colon and original is not None:
                lines[index] = original.encode('latin-1') + colon + value
        return b'\r\n'.join(lines)


class FormattedErrorTask(waitress_task.ErrorTask):
    """The answer to a request waitress could not read (malformed request
    line or header, head or body too large: its 4xx), or to one whose
    task failed before it wrote anything (a 500, logged by waitress), in
    the API's error format; the connection is closed after it."""

    def execute(self) -> None:
        server = self.channel.server
        error = self.request.error
        message = f'{error.reason}: {error.body}'
        if error.code < 500:
            LOG.warning(
                '%s: answered %d to a request from %s that it '
                'could not read: %s',
                server.name,
                error.code,
                printable(self.channel.addr[0]),
                printable(message)[: faults.MESSAGE_LIMIT],
            )
        content_type, body = faults.server_error_body(
            error.code, message, server.formatter
        )
        self.status = f'{error.code} {error.reason}'
        self.response_headers.append(('Content-Type', content_type))
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


class GuardedChannel(waitress_channel.HTTPChannel):
    """A connection whose requests must arrive in time."""

    task_class = HeaderCaseTask
    error_task_class = FormattedErrorTask

    #: time.monotonic() of the first byte of the request being received.
    request_started: float | None = None

    def received(self, data: bytes) -> bool:
        if data and self.request is None:
            self.request_started = time.monotonic()
        accepted = super().received(data)
        if self.request is None:
            self.request_started = None
        return bool(accepted)

    def is_idle(self) -> bool:
        """No request being received, run or answered."""
        return (
            self.request is None
            and not self.requests
            and not self.total_outbufs_len
            and not self.will_close
        )

    def overdue(self, now: float, timeout: float, body_rate: int) -> bool:
        """The request being received has had ``timeout`` seconds, plus
        one per ``body_rate`` bytes of the body it announced."""
        request = self.request
        if request is None or self.request_started is None or self.requests:
            return False
        if request.headers_finished:
            timeout += request.content_length / body_rate
        return now - self.request_started > timeout


class GuardedServer(waitress_server.TcpWSGIServer):
    """The listening socket of :class:`GuardedChannel` connections."""

    channel_class = GuardedChannel

    def __init__(
        self,
        application: Any,
        *,
        name: str,
        client_timeout: float,
        body_rate: int,
        formatter: faults.ErrorFormatter,
        health_paths: frozenset[str],
        health_threads: int,
        **kw: Any,
    ) -> None:
        self.name = name
        self.client_timeout = client_timeout
        self.body_rate = body_rate
        self.formatter = formatter
        self.busy_response = busy_response(formatter)
        self.health_paths = health_paths
        self.health_dispatcher = waitress_task.ThreadedTaskDispatcher()
        self.health_dispatcher.set_thread_count(health_threads)
        self._trigger_lock = threading.Lock()
        self._trigger_closed = False
        self.refused = 0
        self.evicted = 0
        self._last_warning = 0.0
        self._next_cleanup = 0.0
        super().__init__(application, **kw)

    # The accepting side: always accept, then decide.
    def readable(self) -> bool:
        now = time.time()
        if now >= self._next_cleanup:
            self._next_cleanup = now + self.adj.cleanup_interval
            self.maintenance(now)
        return bool(self.accepting)

    def handle_accept(self) -> None:
        try:
            pair = self.accept()
        except OSError:
            LOG.warning('%s: accept() failed', self.name, exc_info=True)
            return
        if pair is None:
            return
        conn, addr = pair
        if len(self.active_channels) >= self.adj.connection_limit:
            if not self._evict_idle():
                self._refuse(conn)
                return
        try:
            self.set_socket_options(conn)
        except OSError:
            conn.close()
            return
        self.channel_class(
            self, conn, self.fix_addr(addr), self.adj, map=self._map
        )

    def _evict_idle(self) -> bool:
        idle = [
            c
            for c in self.active_channels.values()
            if isinstance(c, GuardedChannel) and c.is_idle()
        ]
        if not idle:
            return False
        oldest = min(idle, key=lambda c: c.last_activity)
        oldest.handle_close()
        self.evicted += 1
        self._warn_overload()
        return True

    def _refuse(self, conn: socket.socket) -> None:
        """Answer 503 at once, without reading the request."""
        try:
            conn.setblocking(False)
            conn.send(self.busy_response)
            conn.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        finally:
            conn.close()
        self.refused += 1
        self._warn_overload()

    def _warn_overload(self) -> None:
        now = time.monotonic()
        if now - self._last_warning < WARN_EVERY:
            return
        self._last_warning = now
        LOG.warning(
            '%s is at its connection limit (%d): %d connection(s) refused '
            'with 503 and %d idle one(s) closed so far; raise '
            '[api]max_connections if this is legitimate load',
            self.name,
            self.adj.connection_limit,
            self.refused,
            self.evicted,
        )

    def maintenance(self, now: float) -> None:
        """Close connections silent for ``channel_timeout`` (waitress) and
        those whose request is overdue.

        Both are only marked (``will_close``): the channel closes itself
        when the loop next handles its events. Closing here would free
        its file descriptor in the middle of the loop's snapshot of the
        channels (this runs from ``readable()``): the stale descriptor is
        still polled, comes back as POLLNVAL, and if a connection
        accepted on the same pass reused the number, waitress closes
        that new connection instead (its client saw a reset).
        """
        super().maintenance(now)
        mono = time.monotonic()
        for channel in list(self.active_channels.values()):
            if (
                isinstance(channel, GuardedChannel)
                and not channel.will_close
                and channel.overdue(mono, self.client_timeout, self.body_rate)
            ):
                LOG.info(
                    '%s: closing the connection of %s: its request '
                    'did not arrive in time ([api]client_timeout)',
                    self.name,
                    channel.addr,
                )
                channel.will_close = True

    # The worker side: health checks have their own threads. A request
    # waitress could not parse has no path (and gets a 400).
    def add_task(self, task: Any) -> None:
        requests = getattr(task, 'requests', None)
        if (
            requests
            and not requests[0].error
            and requests[0].path in self.health_paths
        ):
            self.health_dispatcher.add_task(task)
        else:
            super().add_task(task)

    # Stopping (see APIServer.stop for the order).
    def close_connections(self) -> None:
        """Close every connection and the listening socket (on the I/O
        thread, once its loop has ended)."""
        for channel in list(self.active_channels.values()):
            channel.handle_close()
        waitress_server.wasyncore.dispatcher.close(self)

    def pull_trigger(self) -> None:
        """Wake the I/O thread; a no-op once the trigger is closed (a
        worker finishing late must not write to a reused descriptor)."""
        with self._trigger_lock:
            if not self._trigger_closed:
                super().pull_trigger()

    def close_trigger(self) -> None:
        with self._trigger_lock:
            self._trigger_closed = True
            self.trigger.close()
