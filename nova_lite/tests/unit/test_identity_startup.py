"""Identity checks at agent start-up, against a real SQLite database.

The start-up flow runs in process with the objects talking to the
database directly (an agent sends the same calls to the conductor).
"""

from pathlib import Path
from typing import Any
import uuid

from oslo_config import cfg
from oslo_config import fixture as config_fixture
import pytest

from nova_lite import exception
from nova_lite.compute import busy
from nova_lite.compute import cleanup
from nova_lite.compute import holder
from nova_lite.compute import identity
from nova_lite.compute import startup
from nova_lite.db import compute_nodes as node_db
from nova_lite.db import instances as instance_db
from nova_lite.db import services as service_db
from nova_lite.objects import compute_node as cn_obj
from nova_lite.objects import service as service_obj
from nova_lite.virt import driver as virt_driver


@pytest.fixture
def conf(conf):  # type: ignore[no-untyped-def]
    """The shared defaults (conftest.py) with the local driver."""
    # Option groups are shared between ConfigOpts: the fixture undoes
    # every override at the end of the test.
    fixture = config_fixture.Config(conf)
    fixture.setUp()
    fixture.config(compute_driver='local')
    yield conf
    fixture.cleanUp()


class Agent:
    """One compute host: its state directory and a local driver."""

    def __init__(
        self,
        conf: cfg.ConfigOpts,
        root: Path,
        host: str,
        extra_dirs: tuple[Path, ...] = (),
    ) -> None:
        self.conf = conf
        self.host = host
        self.state = root / 'state'
        self.dirs = [*extra_dirs, self.state]
        self.driver = virt_driver.load_driver(conf, host, str(self.state))
        self.cleaner = cleanup.Cleaner(conf, self.driver, host)
        self.holder: holder.Holder | None = None

    def start(self, ctx: Any) -> tuple[Any, dict[str, Any]]:
        if self.holder is not None:
            self.holder.let_go()  # the earlier start stopped cleanly
        self.holder = holder.Holder(self.host)
        return startup.start(
            ctx,
            self.conf,
            self.host,
            self.driver,
            self.dirs,
            self.cleaner,
            None,
            busy.Busy(),
            self.holder,
        )

    @property
    def file(self) -> Path:
        return self.state / identity.FILENAME

    def add_disk(self) -> str:
        server = str(uuid.uuid4())
        (self.driver.instances_path / server).mkdir(parents=True)
        (self.driver.instances_path / server / 'disk').write_bytes(b'x')
        return server


@pytest.fixture
def agent(conf, tmp_path):  # type: ignore[no-untyped-def]
    return Agent(conf, tmp_path, 'cmp1')


def _refused(agent: Agent, ctx: Any) -> str:
    with pytest.raises(exception.ComputeIdentityError) as err:
        agent.start(ctx)
    return str(err.value)


def _node_count(ctx: Any) -> int:
    return len(node_db.compute_node_get_all(ctx))


def test_greenfield_writes_the_file_and_creates_the_node_with_it(agent, ctx):
    service, nodes = agent.start(ctx)
    node = nodes['cmp1']
    assert agent.file.read_text() == node.uuid
    assert node.service_id == service.id
    assert service.version == service_obj.SERVICE_VERSION


def test_restart_reuses_the_file(agent, ctx):
    _, first = agent.start(ctx)
    _, again = agent.start(ctx)
    assert again['cmp1'].id == first['cmp1'].id
    assert agent.file.read_text() == first['cmp1'].uuid
    assert _node_count(ctx) == 1


def test_pre_generated_file_beside_the_config_is_honoured(conf, tmp_path, ctx):
    etc = tmp_path / 'etc'
    etc.mkdir()
    chosen = str(uuid.uuid4())
    (etc / identity.FILENAME).write_text(chosen + '\n')
    (etc / identity.FILENAME).chmod(0o444)
    agent = Agent(conf, tmp_path, 'cmp1', extra_dirs=(etc,))
    _, nodes = agent.start(ctx)
    assert nodes['cmp1'].uuid == chosen
    assert not agent.file.exists()  # nothing written beside it


def test_changed_host_refuses_and_creates_nothing(conf, agent, ctx, tmp_path):
    _, nodes = agent.start(ctx)
    renamed = Agent(conf, tmp_path, 'cmp1-new')
    message = _refused(renamed, ctx)
    assert "belongs to host 'cmp1'" in message
    assert nodes['cmp1'].uuid in message
    assert "configured as host 'cmp1-new'" in message
    assert 'nova-lite-manage compute rename --from cmp1 --to cmp1-new' in (
        message
    )
    with pytest.raises(exception.ServiceNotFound):
        service_db.service_get(ctx, host='cmp1-new', binary='nova-compute')


def test_changed_hypervisor_hostname_refuses(conf, agent, ctx):
    agent.start(ctx)
    conf.set_override(
        'hypervisor_hostname', 'other-name', group='virt_resources'
    )
    message = _refused(agent, ctx)
    assert "hypervisor 'cmp1'" in message
    assert "driver reports 'other-name'" in message


def test_deleted_file_after_first_start_refuses(agent, ctx):
    _, nodes = agent.start(ctx)
    agent.file.unlink()
    message = _refused(agent, ctx)
    assert 'none was found' in message and nodes['cmp1'].uuid in message
    assert not agent.file.exists()


def test_duplicate_record_for_host_and_node_refuses(agent, ctx):
    _, nodes = agent.start(ctx)
    agent.file.unlink()
    other = str(uuid.uuid4())
    agent.file.write_text(other)
    message = _refused(agent, ctx)
    assert f'compute node {nodes["cmp1"].uuid} already exists' in message
    assert other in message
    assert _node_count(ctx) == 1


def test_no_service_but_instances_on_the_hypervisor_refuses(agent, ctx):
    server = agent.add_disk()
    message = _refused(agent, ctx)
    assert 'wrong cloud or database' in message and server in message
    assert not agent.file.exists()


def _old_service(ctx: Any, host: str, nodenames: list[str]) -> list[str]:
    svc = service_db.service_create(
        ctx,
        {
            'uuid': str(uuid.uuid4()),
            'host': host,
            'binary': 'nova-compute',
            'topic': 'compute',
            'version': 1,
        },
    )
    uuids = []
    for name in nodenames:
        node = node_db.compute_node_create(
            ctx,
            {
                'uuid': str(uuid.uuid4()),
                'host': host,
                'hypervisor_hostname': name,
                'service_id': svc['id'],
                'hypervisor_type': 'local',
            },
        )
        uuids.append(node['uuid'])
    return uuids


def test_upgrade_with_one_node_adopts_its_uuid(agent, ctx):
    [old] = _old_service(ctx, 'cmp1', ['cmp1'])
    server = agent.add_disk()  # instances may exist: the host is known
    service, nodes = agent.start(ctx)
    assert agent.file.read_text() == old
    assert nodes['cmp1'].uuid == old
    assert service.version == service_obj.SERVICE_VERSION
    assert server in agent.driver.list_instance_uuids()


def test_upgrade_without_node_refuses(agent, ctx):
    _old_service(ctx, 'cmp1', [])
    assert 'no compute node record' in _refused(agent, ctx)
    assert not agent.file.exists()


def test_upgrade_with_several_nodes_says_how_to_configure(agent, ctx):
    uuids = _old_service(ctx, 'cmp1', ['cmp1', 'cmp1-b'])
    message = _refused(agent, ctx)
    assert all(u in message for u in uuids)
    assert 'by hand' in message
    assert not agent.file.exists()


def test_deleted_records_are_restored_by_the_same_identity(agent, ctx):
    service, nodes = agent.start(ctx)
    node_db.compute_node_destroy(ctx, nodes['cmp1'].id)
    service_db.service_destroy(ctx, service.id)
    new_service, again = agent.start(ctx)
    assert again['cmp1'].uuid == nodes['cmp1'].uuid
    assert again['cmp1'].service_id == new_service.id != service.id


def _place(ctx: Any, node: Any) -> str:
    from nova_lite.tests.unit.test_db_api import make_instance

    inst = make_instance(
        ctx,
        host=node.host,
        node=node.hypervisor_hostname,
        compute_id=node.id,
        vm_state='active',
    )
    return str(inst['uuid'])


def test_replaced_file_and_renamed_hypervisor_refuses(conf, agent, ctx):
    """A new compute_id plus a new hypervisor name would create a second
    node under the same service and strand the first node's servers on
    it (still up, still a scheduling candidate)."""
    _, nodes = agent.start(ctx)
    old = nodes['cmp1']
    servers = [_place(ctx, old), _place(ctx, old)]
    agent.file.unlink()
    agent.file.write_text(str(uuid.uuid4()))
    conf.set_override(
        'hypervisor_hostname', 'cmp1-renamed', group='virt_resources'
    )
    message = _refused(agent, ctx)
    assert old.uuid in message and '2 instance(s)' in message
    assert 'put the old UUID back' in message
    assert _node_count(ctx) == 1
    assert {
        i['uuid']
        for i in instance_db.instance_get_all(ctx, {'compute_id': old.id})
    } == set(servers)


def test_verify_refuses_the_same(conf, agent, ctx):
    """``identity verify`` runs the same plan: it says no too."""
    from nova_lite.compute import identity_check

    agent.start(ctx)
    agent.file.write_text(str(uuid.uuid4()))
    with pytest.raises(exception.ComputeIdentityError):
        identity_check.plan(ctx, 'cmp1', 'cmp1-renamed', agent.dirs, [])


class ManyNodes(virt_driver.ComputeDriver):
    """A driver fronting several nodes whose identities it knows."""

    manages_many_nodes = True
    NODES = {'bm-1': str(uuid.uuid4()), 'bm-2': str(uuid.uuid4())}

    def get_available_nodes(self) -> list[str]:
        return sorted(self.NODES)

    def get_node_resources(self, nodename: str) -> virt_driver.NodeResources:
        return virt_driver.NodeResources(
            vcpus=8,
            memory_mb=1024,
            local_gb=10,
            hypervisor_type='bm',
            hypervisor_version=1,
            hypervisor_hostname=nodename,
        )

    def get_node_uuid(self, nodename: str) -> str:
        return self.NODES[nodename]

    def list_instance_uuids(self) -> list[str]:
        return []


def test_a_driver_of_many_nodes_keeps_no_file(conf, tmp_path, ctx):
    state = tmp_path / 'state'
    driver = ManyNodes(conf, 'bm-host', str(state))
    _, nodes = startup.start(
        ctx,
        conf,
        'bm-host',
        driver,
        [state],
        cleanup.Cleaner(conf, driver, 'bm-host'),
        None,
        busy.Busy(),
        holder.Holder('bm-host'),
    )
    assert {n: node.uuid for n, node in nodes.items()} == ManyNodes.NODES
    assert not (state / identity.FILENAME).exists()
    assert len(cn_obj.ComputeNodeList.get_all_by_host(ctx, 'bm-host')) == 2


def test_a_start_up_cut_by_a_lost_conductor_answer_starts_again(
    agent, ctx, monkeypatch
):
    """The conductor dies while the agent starts (an object call times
    out after the records were written): the agent starts up again
    instead of exiting, and the second run finds what the first wrote."""
    import types

    import oslo_messaging as messaging

    from nova_lite.compute import manager as compute_manager
    from nova_lite.compute import task_recovery

    real = task_recovery.at_start
    calls: list[int] = []

    def lost_once(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise messaging.MessagingTimeout('no answer')
        return real(*args, **kwargs)

    monkeypatch.setattr(task_recovery, 'at_start', lost_once)
    waits: list[int] = []
    manager = types.SimpleNamespace(
        conf=agent.conf,
        host=agent.host,
        driver=agent.driver,
        identity_dirs=agent.dirs,
        cleaner=agent.cleaner,
        compute_rpcapi=None,
        busy=busy.Busy(),
        holder=holder.Holder(agent.host),
        conductor=types.SimpleNamespace(
            wait_until_ready=lambda context: waits.append(1)
        ),
    )
    compute_manager.ComputeManager.init_host(manager)  # type: ignore
    assert len(calls) == 2 and len(waits) == 2
    assert manager.nodes['cmp1'].service_id == manager.service.id
    assert _node_count(ctx) == 1
    assert agent.file.read_text() == manager.nodes['cmp1'].uuid
    assert len(service_db.service_get_all(ctx)) == 1
