"""Proof that a recorded process is dead (lite_common.process_key), with
real processes."""

import os
import signal
import subprocess
import sys

from lite_common import process_key
from lite_common.process_key import ProcessKey


def _child() -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, '-c', 'import time; time.sleep(60)']
    )


def _key_of(pid: int) -> str:
    me = process_key.this_process()
    assert me is not None
    started = process_key.start_time(pid)
    assert started is not None
    return str(ProcessKey(me.boot, me.pid_namespace, pid, started))


def test_a_key_reads_back():
    me = process_key.this_process()
    assert me is not None and me.pid == os.getpid()
    assert ProcessKey.parse(str(me)) == me
    for text in (None, '', 'pid 3 on vm', 'a/b/c/d', '/ns/1/2', 'a/b/1'):
        assert ProcessKey.parse(text) is None


def test_a_running_process_is_not_dead():
    assert not process_key.proven_dead(str(process_key.this_process()))


def test_a_process_that_exited_is_dead():
    child = _child()
    key = _key_of(child.pid)
    assert not process_key.proven_dead(key)
    child.kill()
    child.wait()
    assert process_key.proven_dead(key)


def test_a_zombie_is_dead():
    child = _child()
    key = _key_of(child.pid)
    child.kill()
    os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)  # not reaped
    assert process_key.proven_dead(key)
    child.wait()


def test_a_frozen_process_is_not_dead():
    child = _child()
    try:
        key = _key_of(child.pid)
        os.kill(child.pid, signal.SIGSTOP)
        assert not process_key.proven_dead(key)
    finally:
        child.kill()
        child.wait()


def test_a_reused_pid_is_another_process():
    me = process_key.this_process()
    assert me is not None
    earlier = ProcessKey(me.boot, me.pid_namespace, me.pid, me.started - 1)
    assert process_key.proven_dead(str(earlier))


def test_another_machine_or_namespace_proves_nothing():
    child = _child()
    key = ProcessKey.parse(_key_of(child.pid))
    child.kill()
    child.wait()
    assert key is not None
    for other in (
        ProcessKey('another-boot', key.pid_namespace, key.pid, key.started),
        ProcessKey(key.boot, 'pid:[1]', key.pid, key.started),
    ):
        assert not process_key.proven_dead(str(other))
    assert not process_key.proven_dead(None)
    assert not process_key.proven_dead('garbage')
