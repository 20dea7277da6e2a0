"""One compute host name, one live agent process: taking the name,
heartbeats and the destroy fence, on a real SQLite database (objects
talk to it directly; an agent sends the same calls to the conductor)."""

import datetime
import subprocess
import sys

import pytest

from lite_common import db as lite_db
from lite_common import process_key
from nova_lite import exception
from nova_lite.compute import holder as holder_mod
from nova_lite.db import service_identity
from nova_lite.db import services as service_db
from nova_lite.objects import service as service_obj

DOWN = 60


def _service(ctx, host='cmp1'):
    svc = service_obj.Service(
        ctx, host=host, binary='nova-compute', topic='compute'
    )
    svc.create()
    return svc


def _age(ctx, svc, seconds):
    seen = lite_db.utcnow() - datetime.timedelta(seconds=seconds)
    service_db.service_update(ctx, svc.id, {'last_seen_up': seen})


def _take(ctx, host='cmp1'):
    holder = holder_mod.Holder(host)
    svc = service_obj.Service.get_by_host_and_binary(ctx, host, 'nova-compute')
    holder.take(svc, DOWN)
    return holder


def test_a_second_process_is_refused_while_the_first_lives(ctx):
    _service(ctx)
    first = _take(ctx)
    with pytest.raises(exception.ComputeHostInUse) as caught:
        _take(ctx)
    message = str(caught.value)
    assert first.incarnation in message
    assert holder_mod.this_process() in message
    assert 'nova-lite-manage compute release cmp1' in message
    first.check()  # still the holder


def test_a_holder_silent_past_the_down_time_is_replaced_and_fenced(ctx):
    svc = _service(ctx)
    first = _take(ctx)
    _age(ctx, svc, DOWN + 1)
    second = _take(ctx)
    with pytest.raises(exception.ComputeReplaced, match=second.incarnation):
        first.check()
    assert first.replaced
    with pytest.raises(exception.ComputeReplaced):
        first.service.heartbeat()
    second.service.heartbeat()
    second.check()


def test_a_clean_stop_lets_the_name_go_at_once(ctx):
    _service(ctx)
    first = _take(ctx)
    first.let_go()
    second = _take(ctx)
    second.check()
    with pytest.raises(exception.ComputeReplaced):
        first.check()


def test_release_by_an_operator_fences_the_holder(ctx):
    _service(ctx)
    first = _take(ctx)
    before = service_identity.release(ctx, 'cmp1', 'nova-compute')
    assert before['incarnation'] == first.incarnation
    with pytest.raises(exception.ComputeReplaced, match='released'):
        first.service.heartbeat()
    _take(ctx).check()


def _key(pid, started):
    me = process_key.this_process()
    assert me is not None
    return str(process_key.ProcessKey(me.boot, me.pid_namespace, pid, started))


def test_a_holder_proven_dead_on_this_machine_is_replaced_at_once(ctx):
    """A crash, then a restart: no wait for service_down_time."""
    svc = _service(ctx)
    child = subprocess.Popen([sys.executable, '-c', 'pass'])
    started = process_key.start_time(child.pid)
    child.wait()
    svc.claim(
        '00000000-0000-4000-8000-000000000001',
        f'pid {child.pid} on here',
        DOWN,
        process_key=_key(child.pid, started or 1),
    )
    _take(ctx).check()


def test_a_holder_that_runs_or_elsewhere_keeps_its_name(ctx):
    """A live (or frozen) process here, a process of another machine or
    container, or one with no key: no proof, the name stays held."""
    child = subprocess.Popen([sys.executable, '-c', 'pass'])
    child.wait()
    for number, key in enumerate(
        [
            str(process_key.this_process()),
            f'another-boot/pid:[4026531836]/{child.pid}/1',
            None,
        ],
        start=1,
    ):
        svc = _service(ctx, host=f'cmp{number}')
        svc.claim(
            f'00000000-0000-4000-8000-00000000000{number}',
            'pid 1 on elsewhere',
            DOWN,
            process_key=key,
        )
        with pytest.raises(exception.ComputeHostInUse):
            _take(ctx, host=f'cmp{number}')


class _Driver:
    def __init__(self):
        self.destroyed = []
        self.state_path = '/nowhere'

    def destroy(self, instance, destroy_disks=True):
        self.destroyed.append(instance)


def test_the_fenced_driver_destroys_only_for_the_holder(ctx):
    svc = _service(ctx)
    driver = _Driver()
    first = _take(ctx)
    fenced = holder_mod.FencedDriver(driver, first)
    assert fenced.state_path == '/nowhere'
    fenced.destroy('a')
    _age(ctx, svc, DOWN + 1)
    _take(ctx)
    with pytest.raises(exception.ComputeReplaced):
        fenced.destroy('b')
    assert driver.destroyed == ['a']


def test_nothing_is_destroyed_before_the_name_is_taken():
    driver = _Driver()
    fenced = holder_mod.FencedDriver(driver, holder_mod.Holder('cmp1'))
    with pytest.raises(exception.ComputeReplaced, match='not taken'):
        fenced.destroy('a')
    assert driver.destroyed == []


def test_an_older_agent_object_heartbeats_unconditionally(ctx):
    svc = _service(ctx)
    _take(ctx)
    primitive = svc.obj_to_primitive(target_version='1.0')
    old = service_obj.Service.obj_from_primitive(primitive, ctx)
    assert not old.obj_attr_is_set('incarnation')
    old.heartbeat()


def test_a_deleted_record_destroys_nothing_but_is_no_replacement(ctx):
    svc = _service(ctx)
    holder = _take(ctx)
    service_db.service_destroy(ctx, svc.id)
    with pytest.raises(exception.ServiceNotFound):
        holder.check()
    assert not holder.replaced
