"""Service records over a service's life: start-up order, deleted records.

Real conductor and compute services over the in-process bus and SQLite.
"""

import logging
import threading
import time

from oslo_db import exception as db_exc
import pytest

from lite_common import context as lite_context
from nova_lite import exception
from nova_lite.compute import service as compute_svc
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite.conductor import service as conductor_svc
from nova_lite.db import services as service_db
from nova_lite.objects import service as service_obj
from nova_lite.tests.stack import Stack


def _wait(predicate, timeout=10.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def stack():  # type: ignore[no-untyped-def]
    stack = Stack(computes=0)
    yield stack
    stack.stop()


def _record(host, binary):  # type: ignore[no-untyped-def]
    ctx = lite_context.get_admin_context()
    try:
        return service_obj.Service.get_by_host_and_binary(ctx, host, binary)
    except exception.ServiceNotFound:
        return None


def _compute_record(host):  # type: ignore[no-untyped-def]
    return _record(host, service_obj.COMPUTE_BINARY)


def test_compute_started_before_the_conductor_waits(
    stack, monkeypatch, caplog
):
    """A compute agent started first waits, logging, then registers."""
    monkeypatch.setattr(conductor_rpcapi, 'PING_TIMEOUT', 0.3)
    caplog.set_level(logging.WARNING, logger='nova_lite.conductor.rpcapi')
    conf = stack.prepare()
    compute = compute_svc.compute_service(
        conf, 'early', f'{stack.state_path}/e'
    )
    starter = threading.Thread(target=compute.start, daemon=True)
    starter.start()
    conductor = conductor_svc.conductor_service(conf)
    # The agent stops before the conductor (as the launcher orders
    # them): a periodic call in flight is answered, not left to time out.
    stack.add_cleanup(conductor.stop)
    stack.add_cleanup(compute.stop)

    assert _wait(lambda: 'No nova-lite-conductor answered' in caplog.text)
    assert starter.is_alive()
    assert _compute_record('early') is None

    conductor.start()
    starter.join(15)
    assert not starter.is_alive()
    assert _compute_record('early') is not None


def test_deleted_compute_record_stops_reporting_with_one_error(stack, caplog):
    conf = stack.prepare()
    conductor = conductor_svc.conductor_service(conf)
    conductor.start()
    stack.add_cleanup(conductor.stop)
    compute = compute_svc.compute_service(
        conf, 'gone', f'{stack.state_path}/g'
    )
    compute.start()
    stack.add_cleanup(compute.stop)
    manager = compute.endpoints[0]._endpoint
    record = _compute_record('gone')
    service_db.service_destroy(lite_context.get_admin_context(), record.id)

    caplog.set_level(logging.ERROR, logger='nova_lite.compute.manager')
    assert _wait(lambda: manager.record_deleted)
    time.sleep(2.5)  # two more report intervals: no repeated errors
    errors = [r for r in caplog.records if 'was deleted' in r.getMessage()]
    assert len(errors) == 1
    assert record.uuid in errors[0].getMessage()
    assert _compute_record('gone') is None


def _conductor_record(host):  # type: ignore[no-untyped-def]
    return _record(host, service_obj.CONDUCTOR_BINARY)


def _started_conductor(stack):  # type: ignore[no-untyped-def]
    conf = stack.prepare()
    conductor = conductor_svc.conductor_service(conf)
    conductor.start()
    stack.add_cleanup(conductor.stop)
    return conf


def test_deleted_conductor_record_is_registered_again(stack):
    conf = _started_conductor(stack)
    ctx = lite_context.get_admin_context()
    service_db.service_destroy(ctx, _conductor_record(conf.host).id)
    assert _wait(lambda: _conductor_record(conf.host) is not None)


def test_a_failed_register_again_is_tried_again(stack, monkeypatch):
    """The conductor's record is deleted and the database refuses the
    first new one: the conductor tries again at its next heartbeat and
    then keeps beating (it kept the record without an id and failed
    every second, "Cannot load 'id'", until it was restarted)."""
    conf = _started_conductor(stack)
    ctx = lite_context.get_admin_context()
    real_create = service_db.service_create
    refused = []

    def create_once_refused(context, values):  # type: ignore[no-untyped-def]
        if not refused:
            refused.append(values['host'])
            raise db_exc.DBConnectionError('the database went away')
        return real_create(context, values)

    monkeypatch.setattr(service_db, 'service_create', create_once_refused)
    service_db.service_destroy(ctx, _conductor_record(conf.host).id)
    # (a record just made has no last_seen_up until its first heartbeat)
    assert _wait(
        lambda: (
            getattr(_conductor_record(conf.host), 'last_seen_up', None)
            is not None
        )
    )
    assert refused == [conf.host]
    seen = _conductor_record(conf.host).last_seen_up
    assert _wait(
        lambda: _conductor_record(conf.host).last_seen_up > seen, timeout=15
    )
