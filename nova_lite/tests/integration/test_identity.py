"""Compute node identity with real agents (RabbitMQ + MariaDB, local
driver): the compute_id file, refusals, the upgrade path, and an
operator-driven rename under which every instance's disk survives.

The tests run in order on one deployment; each leaves its agents running
with their original identity unless it says otherwise.
"""

from pathlib import Path
import secrets

import devstack_support as support
import pytest
import sqlalchemy as sa

from nova_lite.objects import service as service_obj
from nova_lite.tests.integration import scenario

pytestmark = pytest.mark.integration

FILENAME = 'compute_id'
DOWN_TIMEOUT = 60


@pytest.fixture(scope='module')
def cloud(deployment):
    return deployment


def _file(cloud, name: str) -> Path:
    return cloud.computes[name].state_path / FILENAME


def _hypervisors(cloud) -> dict[str, str]:
    """hypervisor hostname -> uuid (microversion 2.53 shows uuids)."""
    rows = cloud.openstack(
        '--os-compute-api-version', '2.53', 'hypervisor', 'list'
    )
    return {row['Hypervisor Hostname']: row['ID'] for row in rows}


def _set_host(cloud, name: str, host: str) -> None:
    config = cloud.computes[name].config
    lines = config.read_text().splitlines()
    lines = [
        f'host = {host}' if line.startswith('host = ') else line
        for line in lines
    ]
    config.write_text('\n'.join(lines) + '\n')


def _refused(cloud, name: str, *expected: str) -> str:
    code, log = cloud.start_compute_expecting_exit(name)
    assert code == 78, log  # EX_CONFIG: systemd does not restart it
    assert 'nova-lite-compute refuses to start' in log, log
    for text in expected:
        assert text in log, log
    return log


def _restart(cloud, name: str) -> None:
    if name in cloud.procs and cloud.procs[name].alive():
        assert cloud.stop_compute(name) == 0
    cloud.start_compute(name)


def _wait_state(cloud, host: str, state: str) -> None:
    support.wait_for(
        lambda: cloud.compute_states().get(host) == state,
        DOWN_TIMEOUT,
        f'compute {host} {state}',
        interval=1,
    )


def test_greenfield_start_writes_the_file_of_its_node(cloud):
    hypervisors = _hypervisors(cloud)
    for name in ('compute-1', 'compute-2'):
        text = _file(cloud, name).read_text()
        assert text == hypervisors[name], (name, text, hypervisors)
        assert not text.endswith('\n')


def test_restart_reuses_the_file(cloud):
    before = _file(cloud, 'compute-1').read_text()
    _restart(cloud, 'compute-1')
    assert _file(cloud, 'compute-1').read_text() == before
    assert _hypervisors(cloud)['compute-1'] == before
    assert len(_hypervisors(cloud)) == 2


def test_changed_host_refuses_and_registers_nothing(cloud):
    uuid = _file(cloud, 'compute-1').read_text()
    assert cloud.stop_compute('compute-1') == 0
    _set_host(cloud, 'compute-1', 'compute-1-typo')
    try:
        _refused(
            cloud,
            'compute-1',
            uuid,
            "belongs to host 'compute-1'",
            "configured as host 'compute-1-typo'",
        )
        assert 'compute-1-typo' not in cloud.compute_states()
    finally:
        _set_host(cloud, 'compute-1', 'compute-1')
    cloud.start_compute('compute-1')


def test_deleted_file_refuses(cloud):
    path = _file(cloud, 'compute-1')
    uuid = path.read_text()
    assert cloud.stop_compute('compute-1') == 0
    path.unlink()
    try:
        _refused(cloud, 'compute-1', 'none was found', uuid)
        assert not path.exists()
    finally:
        path.write_text(uuid)
    cloud.start_compute('compute-1')


def test_garbage_file_refuses_naming_it(cloud):
    path = _file(cloud, 'compute-1')
    uuid = path.read_text()
    assert cloud.stop_compute('compute-1') == 0
    path.write_text('hello\n')
    try:
        _refused(cloud, 'compute-1', f'{path} does not hold a UUID')
        assert path.read_text() == 'hello\n'  # never "repaired"
    finally:
        path.write_text(uuid)
    cloud.start_compute('compute-1')


def test_disagreeing_files_refuse_naming_both(cloud):
    path = _file(cloud, 'compute-1')
    beside_config = cloud.computes['compute-1'].config.parent / FILENAME
    other = '00000000-0000-4000-8000-000000000001'
    assert cloud.stop_compute('compute-1') == 0
    beside_config.write_text(other)
    try:
        _refused(
            cloud,
            'compute-1',
            f'{beside_config} holds {other}',
            f'{path} holds {path.read_text()}',
        )
        result = cloud.manage(
            'compute',
            'identity',
            'verify',
            config=cloud.computes['compute-1'].config,
        )
        assert result.returncode == 1, result
        assert f'{beside_config} holds {other}' in result.stdout, result
    finally:
        beside_config.unlink()
    cloud.start_compute('compute-1')


def test_identity_show_and_verify_on_a_compute_host(cloud):
    config = cloud.computes['compute-2'].config
    uuid = _file(cloud, 'compute-2').read_text()
    result = cloud.manage('compute', 'identity', 'verify', config=config)
    assert result.returncode == 0, result
    assert uuid in result.stdout
    shown = cloud.manage('compute', 'identity', 'show', config=config)
    assert shown.returncode == 0, shown
    assert f'{_file(cloud, "compute-2")}: {uuid}' in shown.stdout, shown
    assert f'compute node {uuid}: host compute-2' in shown.stdout, shown
    assert 'verdict:     OK' in shown.stdout, shown


def test_pre_generated_read_only_file_is_used(cloud):
    import devstack

    compute = devstack.write_compute_config(cloud, 'compute-3')
    chosen = '6a1b5e0c-3f2d-4c8b-9a7e-5d4c3b2a1f00'
    pre = compute.config.parent / FILENAME
    pre.write_text(chosen + '\n')
    pre.chmod(0o444)
    cloud.start_compute('compute-3')
    assert _hypervisors(cloud)['compute-3'] == chosen
    assert not _file(cloud, 'compute-3').exists()
    assert pre.read_text() == chosen + '\n'


def test_upgrade_path_writes_the_file(cloud):
    path = _file(cloud, 'compute-2')
    uuid = path.read_text()
    assert cloud.stop_compute('compute-2') == 0
    path.unlink()
    engine = sa.create_engine(cloud.db_url)
    update = sa.text(
        'UPDATE services SET version = 1 WHERE host = '
        "'compute-2' AND `binary` = 'nova-compute'"
    )
    try:
        with engine.begin() as connection:
            assert connection.execute(update).rowcount == 1
        cloud.start_compute('compute-2')
        with engine.connect() as connection:
            version = connection.execute(
                sa.text(
                    "SELECT version FROM services WHERE host = 'compute-2' "
                    'AND deleted = 0'
                )
            ).scalar()
    finally:
        engine.dispose()
    assert path.read_text() == uuid
    assert version == service_obj.SERVICE_VERSION


def test_rename_then_restart_keeps_every_instance(cloud):
    suffix = secrets.token_hex(3)
    others = [h for h in cloud.compute_states() if h != 'compute-2']
    flavor = scenario.create_flavor(cloud, f'id-{suffix}')
    image = scenario.create_image(cloud, f'id-{suffix}')
    for host in others:
        scenario.set_compute_enabled(cloud, host, enabled=False)
    try:
        servers = [
            scenario.boot(cloud, flavor, image, f'id-{suffix}-{i}')['id']
            for i in range(2)
        ]
    finally:
        for host in others:
            scenario.set_compute_enabled(cloud, host, enabled=True)
    assert set(scenario.placement(cloud, servers).values()) == {'compute-2'}
    disks = {
        s: support.disk_fingerprint(cloud.disk_path('compute-2', s))
        for s in servers
    }
    uuid = _file(cloud, 'compute-2').read_text()

    # While the agent runs (and for service_down_time after it stopped)
    # the rename is refused.
    early = cloud.manage(
        'compute', 'rename', '--from', 'compute-2', '--to', 'compute-2b'
    )
    assert early.returncode == 1 and 'still up' in early.stdout, early
    assert cloud.stop_compute('compute-2') == 0
    _wait_state(cloud, 'compute-2', 'down')
    done = cloud.manage(
        'compute', 'rename', '--from', 'compute-2', '--to', 'compute-2b'
    )
    assert done.returncode == 0, done
    assert '2 instances' in done.stdout, done

    _set_host(cloud, 'compute-2', 'compute-2b')
    cloud.start_compute('compute-2', host='compute-2b')
    assert 'compute-2' not in cloud.compute_states()
    assert _hypervisors(cloud)['compute-2b'] == uuid
    assert set(scenario.placement(cloud, servers).values()) == {'compute-2b'}
    for server, data in disks.items():
        assert (
            support.disk_fingerprint(cloud.disk_path('compute-2', server))
            == data
        )
    cloud.openstack('server', 'delete', '--wait', *servers, parse=False)
    for server in servers:
        assert not cloud.disk_path('compute-2', server).exists()
