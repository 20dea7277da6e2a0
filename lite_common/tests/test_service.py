"""The Launcher: start, stop on a signal, and stop during start-up."""

import os
import signal
import threading
import time

from lite_common import service


class Recorder:
    def __init__(self, name, log, block=None):
        self.name = name
        self.log = log
        self.block = block

    def start(self):
        self.log.append(f'start {self.name}')
        while self.block is not None and not self.block.is_set():
            time.sleep(0.05)  # like a retry loop waiting for a broker

    def stop(self):
        self.log.append(f'stop {self.name}')


def _signal_later(signum, delay):
    timer = threading.Timer(delay, os.kill, (os.getpid(), signum))
    timer.start()
    return timer


def test_sigterm_stops_services_in_reverse_order():
    log = []
    launcher = service.Launcher()
    for name in ('a', 'b'):
        launcher.add(Recorder(name, log))
    _signal_later(signal.SIGTERM, 0.3)
    previous = signal.getsignal(signal.SIGTERM)
    try:
        assert launcher.run() == 0
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert log == ['start a', 'start b', 'stop b', 'stop a']


def test_a_signal_during_start_up_interrupts_it():
    """A service blocked in start() (waiting for RabbitMQ or the
    conductor) does not make the process ignore SIGTERM."""
    log = []
    never = threading.Event()
    launcher = service.Launcher()
    launcher.add(Recorder('ready', log))
    launcher.add(Recorder('waiting', log, block=never))
    launcher.add(Recorder('never-started', log))
    _signal_later(signal.SIGINT, 0.3)
    previous = signal.getsignal(signal.SIGINT)
    started = time.monotonic()
    try:
        assert launcher.run() == 0
    finally:
        signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - started < 5
    assert log == ['start ready', 'start waiting', 'stop ready']


class Failing(Recorder):
    def start(self):
        self.log.append(f'start {self.name}')
        raise OSError('address already in use')


def test_a_failed_start_stops_what_started_and_raises():
    """A port in use must end the process, not leave it half running."""
    log = []
    launcher = service.Launcher()
    launcher.add(Recorder('api', log))
    launcher.add(Failing('second-api', log))
    launcher.add(Recorder('never-started', log))
    try:
        launcher.start()
    except OSError as exc:
        assert 'address already in use' in str(exc)
    else:
        raise AssertionError('start() did not raise')
    assert log == ['start api', 'start second-api', 'stop api']
    launcher.stop()  # nothing left to stop
    assert log == ['start api', 'start second-api', 'stop api']
