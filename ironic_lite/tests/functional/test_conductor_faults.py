"""Conductors that stop, die or go quiet, in one process.

The real conductor services over the in-process bus and a SQLite file,
with short heartbeats, the fake run log (every run of a fake clean step,
by conductor) and gates that hold a step until the test opens them.
A stop is :meth:`ConductorService.stop` (what SIGTERM calls); a
conductor that died is one stopped without unregistering, whose
heartbeat the test ages.
"""

import datetime
import json
import threading
import time
import uuid

import pytest
import sqlalchemy as sa

from ironic_lite import exception
from ironic_lite.common import hash_ring
from ironic_lite.common import states
from ironic_lite.conductor import rpcapi
from ironic_lite.db import api as db_api
from ironic_lite.db import models
from ironic_lite.db import nodes as db_nodes
from ironic_lite.tests import db_fixture
from ironic_lite.tests.functional.test_conductor import Cloud
from lite_common import context as lite_context
from lite_common import db as lite_db
from lite_common import rpc

HOSTS = ['conductor-1', 'conductor-2']
VERIFY = {'interface': 'management', 'step': 'verify_properties'}


@pytest.fixture
def cloud(tmp_path):
    with db_fixture.migrated_db(f'sqlite:///{tmp_path / "ironic.db"}'):
        result = Cloud(tmp_path)
        result.run_log = tmp_path / 'runs.jsonl'
        result.gates = tmp_path / 'gates'
        result.gates.mkdir()
        try:
            yield result
        finally:
            result.stop()
            rpc.cleanup()


def conf_of(cloud, host, **overrides):
    return cloud.new_conf(
        host,
        conductor__heartbeat_timeout=3,
        fake__run_log=str(cloud.run_log),
        fake__gate_dir=str(cloud.gates),
        **overrides,
    )


def create_owned_by(cloud, host):
    """A manageable node the ring of :data:`HOSTS` maps to ``host``."""
    ring = hash_ring.HashRing(HOSTS)
    while True:
        node_uuid = str(uuid.uuid4())
        if ring.get_host(node_uuid) == host:
            break
    node = cloud.create(uuid=node_uuid)
    cloud.act(node, 'manage')
    return cloud.wait(node, states.MANAGEABLE)


def runs(cloud):
    """The fake run log: one dict per started run, with its end."""
    started = {}
    for line in cloud.run_log.read_text().splitlines():
        record = json.loads(line)
        run = started.setdefault(record['run'], {})
        run.update(
            {'start' if record['event'] == 'start' else 'end': record['time']},
            **{k: v for k, v in record.items() if k not in ('time', 'event')},
        )
    return list(started.values())


def wait_running(cloud, node, step, timeout=10):
    deadline = time.monotonic() + timeout
    while cloud.get(node)['clean_step'].get('step') != step:
        assert time.monotonic() < deadline, cloud.get(node)
        time.sleep(0.02)


def age_heartbeat(host, seconds):
    old = lite_db.utcnow() - datetime.timedelta(seconds=seconds)
    with db_api.context_manager.writer.using(
        lite_context.get_admin_context()
    ) as session:
        session.execute(
            sa.update(models.Conductor)
            .where(models.Conductor.hostname == host)
            .values(heartbeat_at=old)
        )


def test_a_stopping_conductor_keeps_its_step_to_itself(cloud):
    """Item 1: SIGTERM during a step. The stopping conductor leaves the
    ring at once but heartbeats until the step ends, so nobody clears
    its lock and runs the step again meanwhile (a stop took longer than
    [conductor]heartbeat_timeout here); the next conductor goes on with
    the next step afterwards."""
    first = cloud.start(conf_of(cloud, 'conductor-1'))
    cloud.start(conf_of(cloud, 'conductor-2'))
    node = create_owned_by(cloud, 'conductor-1')
    work = {
        'interface': 'deploy',
        'step': 'repeatable_work',
        'args': {'seconds': 5, 'tag': 'long'},
    }
    cloud.act(node, 'clean', [work, VERIFY])
    wait_running(cloud, node, 'repeatable_work')
    stopping = threading.Thread(target=first.stop)
    started = time.monotonic()
    stopping.start()
    row = cloud.wait(node, states.MANAGEABLE, timeout=30)
    stopping.join(30)
    assert time.monotonic() - started > 3  # longer than the timeout
    long_runs = [run for run in runs(cloud) if run['tag'] == 'long']
    assert [(run['conductor'], run['outcome']) for run in long_runs] == [
        ('conductor-1', 'done')
    ]
    assert row['driver_internal_info']['fake_steps_run'] == [
        'repeatable_work',
        'verify_properties',
    ]
    assert (row['last_error'], row['maintenance']) == (None, False)


def test_requests_go_to_the_next_conductor_when_the_owner_is_down(cloud):
    """Item 8: a conductor killed a moment ago is still in the ring (its
    heartbeat is younger than the timeout) but missed its heartbeats:
    requests for its nodes go to the next conductor of the ring instead
    of waiting for an answer that never comes and failing."""
    cloud.start(conf_of(cloud, 'conductor-1'))
    dying = cloud.start(conf_of(cloud, 'conductor-2'))
    node = create_owned_by(cloud, 'conductor-2')
    dying.stop(unregister=False)
    cloud.services.remove(dying)
    api = rpcapi.ConductorAPI(cloud.conf, timeout=2)
    # Not down yet: late, but not by the 5 s a conductor is given at
    # least. The call waits its timeout, the owner turns out to be down
    # by then, the next conductor answers.
    age_heartbeat('conductor-2', 3.5)
    started = time.monotonic()
    updated = api.update_node(cloud.ctx, node, {'extra': {'a': 1}})
    assert updated['extra'] == {'a': 1}
    assert 1.5 < time.monotonic() - started < 10
    # Down already: no waiting at all.
    age_heartbeat('conductor-2', 6)
    api.rings.alive(cloud.ctx, refresh=True)
    started = time.monotonic()
    api.do_provisioning_action(cloud.ctx, node, 'provide')
    assert time.monotonic() - started < 1.5
    cloud.wait(node, states.AVAILABLE)
    # A node the dead conductor still holds: a quick 409, not a wait.
    db_nodes.node_update(
        cloud.ctx, node['uuid'], {'reservation': 'conductor-2'}
    )
    started = time.monotonic()
    with pytest.raises(exception.NodeLocked, match='conductor-2'):
        api.update_node(cloud.ctx, node, {'extra': {}})
    assert time.monotonic() - started < 1.5


def test_a_slow_conductor_that_is_up_is_not_bypassed(cloud):
    """Heartbeating but not answering in time: a 503 to retry (it may be
    working on the request), not a second conductor."""
    cloud.start(conf_of(cloud, 'conductor-1'))
    quiet = cloud.start(conf_of(cloud, 'conductor-2'))
    node = create_owned_by(cloud, 'conductor-2')
    quiet.service.stop()  # no RPC server, heartbeat still running
    api = rpcapi.ConductorAPI(cloud.conf, timeout=1)
    with pytest.raises(rpcapi.messaging.MessagingTimeout):
        api.update_node(cloud.ctx, node, {'extra': {'a': 1}})
    assert cloud.get(node)['extra'] == {}
