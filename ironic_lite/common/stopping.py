"""A conductor's stop, as the BMC calls of its drivers see it.

A BMC that does not answer is retried for minutes on end: the redfish
interfaces try a request ``[redfish]connection_attempts`` times, and
sushy repeats each of them ``[redfish]server_side_retries`` times; the
ipmi interfaces retry for ``[ipmi]command_retry_timeout`` seconds. A
conductor asked to stop must not sit in those loops: it waits for its
running flows, and the process for its threads (a stop of the
all-in-one once took 4 min 37 s retrying an unreachable emulator).

So the conductor service :func:`request` s the stop of its configuration
first thing when it stops (and :func:`reset` s it when it starts), and
the drivers of that configuration:

- sleep between two attempts with :func:`wait`, which returns at once
  on a stop;
- run every BMC call through :func:`call`, on a daemon thread of its
  own that the caller gives up at once on a stop (a BMC that accepted a
  connection and answers nothing holds a socket for a whole
  ``read_timeout``); the driver then raises
  :class:`~ironic_lite.exception.BMCCallStopped`.

Keyed by configuration object, not global: the all-in-one and the tests
run several conductors in one process, and stopping one must not cut
another's BMC calls.
"""

from collections.abc import Callable
import threading
import time
from typing import Any
from typing import TypeVar
import weakref

from oslo_config import cfg

T = TypeVar('T')

#: How often a caller waiting for a BMC call looks at the stop, seconds
#: (the stop wakes :func:`wait` at once; a running call is only seen
#: ending by its event).
_SLICE = 0.1

_EVENTS: dict[int, tuple['weakref.ref[cfg.ConfigOpts]', threading.Event]] = {}
_LOCK = threading.Lock()


class Stopped(Exception):
    """The conductor of this configuration is stopping: the BMC call
    (or the wait before its next attempt) was given up."""


class TimedOut(Exception):
    """The BMC call did not end within its time (see :func:`call`)."""


def event(conf: cfg.ConfigOpts) -> threading.Event:
    """The stop event of ``conf``'s conductor."""
    with _LOCK:
        entry = _EVENTS.get(id(conf))
        if entry is None or entry[0]() is not conf:
            entry = _EVENTS[id(conf)] = (weakref.ref(conf), threading.Event())
        return entry[1]


def request(conf: cfg.ConfigOpts) -> None:
    """The conductor of ``conf`` stops: BMC loops end now."""
    event(conf).set()


def reset(conf: cfg.ConfigOpts) -> None:
    """The conductor of ``conf`` (re)starts."""
    event(conf).clear()


def requested(conf: cfg.ConfigOpts) -> bool:
    return event(conf).is_set()


def wait(conf: cfg.ConfigOpts, seconds: float) -> None:
    """Sleep ``seconds`` (between two attempts at a BMC).

    :raises Stopped: the conductor stops (at once, not after the sleep).
    """
    if event(conf).wait(max(0.0, seconds)):
        raise Stopped()


def check(conf: cfg.ConfigOpts) -> None:
    """:raises Stopped: the conductor stops."""
    if requested(conf):
        raise Stopped()


def call(
    conf: cfg.ConfigOpts,
    func: Callable[[], T],
    timeout: float | None = None,
    name: str = 'bmc-call',
) -> T:
    """``func()`` on a daemon thread; its result or its exception.

    :raises Stopped: the conductor stops (before or while ``func``
        runs; the thread is left to end on its own).
    :raises TimedOut: ``func`` did not end within ``timeout`` seconds
        (None: no limit but the stop).
    """
    stop = event(conf)
    if stop.is_set():
        raise Stopped()
    outcome: dict[str, Any] = {}
    done = threading.Event()

    def run() -> None:
        try:
            outcome['result'] = func()
        except BaseException as exc:  # handed to the caller
            outcome['error'] = exc
        finally:
            done.set()

    threading.Thread(target=run, name=name, daemon=True).start()
    _wait_done(done, stop, timeout)
    if 'error' in outcome:
        raise outcome['error']
    return outcome['result']  # type: ignore[no-any-return]


def _wait_done(
    done: threading.Event, stop: threading.Event, timeout: float | None
) -> None:
    """Until ``done``; :class:`Stopped` or :class:`TimedOut` first."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        left = _SLICE if deadline is None else deadline - time.monotonic()
        if done.wait(max(0.0, min(_SLICE, left))):
            return
        if stop.is_set():
            raise Stopped()
        if deadline is not None and time.monotonic() >= deadline:
            raise TimedOut()
