"""The stop a conductor's BMC calls watch: a stop ends waits and calls
at once, and only those of its own configuration (the all-in-one and
the tests run several conductors in one process)."""

import threading
import time

import pytest

from ironic_lite.common import stopping
from ironic_lite.tests.unit import make_conf


def _stop_soon(conf, delay: float = 0.2) -> None:
    threading.Timer(delay, stopping.request, [conf]).start()


def test_a_stop_ends_a_wait_at_once():
    conf = make_conf()
    _stop_soon(conf)
    started = time.monotonic()
    with pytest.raises(stopping.Stopped):
        stopping.wait(conf, 60)
    assert time.monotonic() - started < 5


def test_a_stop_gives_up_a_call_that_does_not_return():
    conf = make_conf()
    never = threading.Event()
    _stop_soon(conf)
    started = time.monotonic()
    with pytest.raises(stopping.Stopped):
        stopping.call(conf, lambda: never.wait(60))
    assert time.monotonic() - started < 5
    never.set()


def test_no_call_starts_once_stopped_until_a_restart():
    conf = make_conf()
    stopping.request(conf)
    ran = []
    with pytest.raises(stopping.Stopped):
        stopping.call(conf, lambda: ran.append(1))
    stopping.reset(conf)
    assert stopping.call(conf, lambda: 'answer') == 'answer'
    assert ran == []


def test_a_call_returns_its_result_or_raises_its_error():
    conf = make_conf()
    assert stopping.call(conf, lambda: 42) == 42
    with pytest.raises(ZeroDivisionError):
        stopping.call(conf, lambda: 1 / 0)
    with pytest.raises(stopping.TimedOut):
        stopping.call(conf, lambda: time.sleep(5), timeout=0.2)


def test_a_stop_is_of_one_configuration_only():
    stopped, running = make_conf(), make_conf()
    stopping.request(stopped)
    assert stopping.requested(stopped)
    assert not stopping.requested(running)
    stopping.wait(running, 0)
    assert stopping.call(running, lambda: 'still served') == 'still served'
