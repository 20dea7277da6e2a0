"""The worker pool: reserve before use, refuse when full."""

import threading

import pytest

from ironic_lite import exception
from ironic_lite.conductor import workers


@pytest.fixture
def pool():
    result = workers.WorkerPool(2)
    yield result
    result.shutdown(wait=True)


def test_reserve_until_full(pool):
    first = pool.reserve()
    second = pool.reserve()
    with pytest.raises(exception.NoFreeConductorWorker) as info:
        pool.reserve()
    assert info.value.code == 503
    first.cancel()
    first.cancel()  # idempotent: frees one worker only
    third = pool.reserve()
    with pytest.raises(exception.NoFreeConductorWorker):
        pool.reserve()
    second.cancel()
    third.cancel()


def test_started_work_runs_and_frees_its_worker(pool):
    done = threading.Event()
    got = []

    def work(value):
        got.append(value)
        done.set()

    pool.reserve().start(work, 42)
    assert done.wait(5)
    assert got == [42]
    pool.shutdown(wait=True)
    assert pool._free._value == 2


def test_failing_work_frees_its_worker(pool):
    def boom():
        raise RuntimeError('boom')

    pool.reserve().start(boom)
    pool.reserve().start(boom)
    pool.shutdown(wait=True)
    assert pool._free._value == 2


def test_a_slot_starts_once(pool):
    release = threading.Event()
    slot = pool.reserve()
    slot.start(release.wait, 5)
    with pytest.raises(RuntimeError, match='already used'):
        slot.start(release.wait, 5)
    slot.cancel()  # a started slot is not given back twice
    pool.reserve()
    with pytest.raises(exception.NoFreeConductorWorker):
        pool.reserve()
    release.set()


def test_busy_workers_count_until_they_finish(pool):
    release = threading.Event()
    pool.reserve().start(release.wait, 5)
    pool.reserve().start(release.wait, 5)
    with pytest.raises(exception.NoFreeConductorWorker):
        pool.reserve()
    release.set()
    pool.shutdown(wait=True)
    assert pool._free._value == 2


def test_shutdown_refuses_new_work(pool):
    pool.shutdown(wait=True)
    with pytest.raises(exception.NoFreeConductorWorker):
        pool.reserve()
