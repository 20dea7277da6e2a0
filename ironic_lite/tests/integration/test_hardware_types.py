"""The redfish and ipmi hardware types and agent cleaning, end to end.

ironic-lite-api and two conductors run as processes over RabbitMQ and
MariaDB (tools/devstack_ironic.py). The BMCs are sushy-tools'
``sushy-emulator`` (its fake systems, with a BIOS, firmware versions and
an inventory: :mod:`ironic_lite.tests.redfish_fake_plus`) and pyghmi's
BMC (:mod:`ironic_lite.tests.ipmi_responder`), both processes on
127.0.0.1; each redfish node with the ``agent`` deploy interface has an
``ironic-lite-agent`` process whose disk is a file. Nodes are driven by
the real ``openstack baremetal`` CLI and watched through the API.

- rf-1: manage -> inspect (ports from the Redfish inventory) -> provide
  (agent cleaning: the disk file is zero afterwards) -> deploy a raw
  image, then a qcow2 one (the agent writes them: the disk file holds
  the image's raw content byte for byte) -> undeploy (automated
  cleaning erases it again) -> available; an image that does not verify
  ends in ``deploy failed``, never ``active``; the conductor running a
  deployment killed while the node waits for its agent: the other one
  takes it over and the image is written once; an image download cut
  short and an agent killed mid-write (the agent downloads http images
  itself here) end in ``deploy failed``; a deployment without an image
  is refused (400);
- rf-2: a BIOS change, a firmware update and a BIOS factory reset as
  manual clean steps, checked on the BMC;
- rf-3: its agent killed mid-clean: ``clean failed`` at the
  clean_callback_timeout, then clean again once the agent is back;
- ipmi-1: power sync against a BMC that stops answering (maintenance,
  fault ``power failure``) and answers again (recovered).

The tests of this module run in order and share one deployment.
"""

import hashlib
import json
from pathlib import Path
import random
import time
from typing import Any

import devstack_support as support
import pytest

from ironic_lite.tests import disk_images
from ironic_lite.tests import ipmi_responder
from ironic_lite.tests import redfish_emulator
from ironic_lite.tests.half_image_server import HalfImageServer
from lite_common.tests import integration
from stacklite import emulated_machines as machines

#: Seconds a node waits in ``clean wait`` without a heartbeat.
CALLBACK_TIMEOUT = 10
#: The same in ``wait call-back`` (long enough for a takeover by the
#: other conductor on a loaded machine).
DEPLOY_CALLBACK_TIMEOUT = 45
#: Above 2 MiB: erase_devices_metadata wipes the first and last MiB
#: only, so a disk whose cleaning stopped there still holds data.
DISK_SIZE = 4 * machines.MIB
AGENT_NODES = {'rf-1': 0, 'rf-3': 2}
#: What an agent logs once per prepare_image command it gets.
PREPARE = 'Command standby.prepare_image received'
ENABLED = {
    'enabled_hardware_types': 'fake-hardware,redfish,ipmi',
    'enabled_power_interfaces': 'fake,redfish,ipmi',
    'enabled_management_interfaces': 'fake,redfish,ipmi',
    'enabled_deploy_interfaces': 'fake,agent',
    'enabled_bios_interfaces': 'fake,no-bios,redfish',
    'enabled_firmware_interfaces': 'fake,no-firmware,redfish',
    'enabled_inspect_interfaces': 'fake,no-inspect,redfish',
}
OPTIONS = {
    'DEFAULT': ENABLED,
    'conductor': {
        'clean_callback_timeout': CALLBACK_TIMEOUT,
        'deploy_callback_timeout': DEPLOY_CALLBACK_TIMEOUT,
        'sync_power_state_interval': 1,
        'power_failure_recovery_interval': 1,
        'power_state_sync_max_retries': 2,
    },
    'api': {'ramdisk_heartbeat_timeout': 4},
    # An http(s) image is downloaded by the agent itself (a file:// one
    # is still served by the conductor's image cache).
    'deploy': {'image_download_source': 'http'},
    'redfish': {
        'power_state_change_timeout': 40,
        'power_state_poll_interval': 0.5,
        'connection_attempts': 2,
        'connection_retry_interval': 0,
        'read_timeout': 5,
    },
    # Retries on (a session dropped under load is tried again); a
    # silent BMC still fails within two attempts of operation_timeout.
    'ipmi': {
        'command_retry_timeout': 1,
        'min_command_interval': 0,
        'operation_timeout': 3,
        'power_state_poll_interval': 0.2,
    },
}


@pytest.fixture(scope='module')
def bmcs(tmp_path_factory: Any) -> Any:
    workdir = tmp_path_factory.mktemp('bmcs')
    redfish = redfish_emulator.Emulator(
        workdir / 'redfish',
        [redfish_emulator.system(n) for n in (1, 2, 3)],
        plus=True,
    ).start()
    try:
        ipmi = ipmi_responder.Responder(workdir / 'ipmi').start()
    except BaseException:
        redfish.stop()
        raise
    yield redfish, ipmi
    ipmi.stop()
    redfish.stop()


@pytest.fixture(scope='module')
def cloud(
    request: pytest.FixtureRequest, tmp_path_factory: Any, bmcs: Any
) -> Any:
    import devstack_ironic

    workdir = tmp_path_factory.mktemp('hardware')
    dep = devstack_ironic.start(
        workdir, db='mysql', conductors=2, options=OPTIONS
    )
    integration.register_cloud(request, dep)
    dep.redfish, dep.ipmi = bmcs
    dep.agents = {}
    try:
        yield dep
    finally:
        for agent in dep.agents.values():
            agent.terminate()
            agent.wait_ended(10)
        codes = dep.stop()
    assert not {n: c for n, c in codes.items() if c != 0}, (
        f'services did not exit cleanly: {codes}\n' + dep.log_tails()
    )


# -- helpers ---


def node(cloud: Any, name: str) -> dict[str, Any]:
    status, body = cloud.api_call('GET', f'/v1/nodes/{name}')
    assert status == 200, body
    return dict(body)


def wait_node(
    cloud: Any, name: str, check: Any, what: str, timeout: float = 120
) -> dict[str, Any]:
    found: dict[str, Any] = {}

    def done() -> bool:
        cloud.check_alive()
        found.update(node(cloud, name))
        return bool(check(found))

    try:
        support.wait_for(done, timeout, f'{name}: {what}', interval=0.2)
    except TimeoutError:
        raise AssertionError(
            f'{name}: not {what}: ' + json.dumps(found, default=str)
        ) from None
    return found


def settled(
    cloud: Any, name: str, state: str, timeout: float = 120
) -> dict[str, Any]:
    """The node once no provision action is under way; in ``state``."""
    record = wait_node(
        cloud,
        name,
        lambda n: n['target_provision_state'] is None,
        'settled',
        timeout,
    )
    assert record['provision_state'] == state, record
    return record


def start_agent(
    cloud: Any, tmp: Path, name: str, heartbeat: float = 0.5
) -> machines.Agent:
    index = AGENT_NODES[name]
    workdir = tmp / f'agent-{name}'
    workdir.mkdir(exist_ok=True)
    disk = workdir / 'sda.img'
    if not disk.exists():
        machines.make_disk(disk, DISK_SIZE)
    mac = redfish_emulator.system(index + 1)['nics'][0]['mac']
    agent = machines.Agent(
        workdir, cloud.api_url, mac, [disk], heartbeat, lookup_interval=0.3
    )
    cloud.agents[name] = agent
    agent.start()
    return agent


def enroll_redfish(
    cloud: Any, name: str, index: int, *interfaces: str
) -> None:
    info = {
        'redfish_address': cloud.redfish.address,
        'redfish_system_id': cloud.redfish.system_path(index),
        'redfish_username': 'admin',
        'redfish_password': 's3cret',
        'redfish_verify_ca': 'false',
    }
    args = [f'--driver-info={key}={value}' for key, value in info.items()]
    cloud.baremetal(
        'node',
        'create',
        '--driver',
        'redfish',
        '--name',
        name,
        *interfaces,
        *args,
    )


def manage(cloud: Any, name: str) -> None:
    cloud.baremetal('node', 'manage', name, parse=False)
    settled(cloud, name, 'manageable')


# -- the scenario ---


def test_enroll_redfish_and_ipmi_nodes(cloud: Any) -> None:
    enroll_redfish(cloud, 'rf-1', 0, '--deploy-interface', 'agent')
    enroll_redfish(cloud, 'rf-2', 1)
    enroll_redfish(cloud, 'rf-3', 2, '--deploy-interface', 'agent')
    info = cloud.ipmi.driver_info()
    cloud.baremetal(
        'node',
        'create',
        '--driver',
        'ipmi',
        '--name',
        'ipmi-1',
        *[f'--driver-info={k}={v}' for k, v in info.items()],
    )
    shown = node(cloud, 'rf-1')
    assert shown['driver_info']['redfish_password'] == '******'
    assert (
        shown['deploy_interface'],
        shown['bios_interface'],
        shown['inspect_interface'],
    ) == ('agent', 'redfish', 'redfish')
    for name in ('rf-1', 'rf-2', 'rf-3', 'ipmi-1'):
        manage(cloud, name)


def test_inspect_then_agent_cleaning_erases_the_disk(
    cloud: Any, tmp_path_factory: Any
) -> None:
    cloud.baremetal('node', 'inspect', 'rf-1', parse=False)
    record = settled(cloud, 'rf-1', 'manageable')
    assert record['last_error'] is None, record
    assert record['properties']['memory_mb'] == 16 * 1024
    ports = cloud.api_call('GET', '/v1/ports?node=rf-1')[1]['ports']
    assert {p['address'] for p in ports} == {
        '52:54:00:12:34:01',
        '52:54:00:12:35:01',
    }
    agent = start_agent(cloud, tmp_path_factory.mktemp('rf1'), 'rf-1')
    cloud.baremetal('node', 'provide', 'rf-1', parse=False)
    wait_node(
        cloud,
        'rf-1',
        lambda n: n['provision_state'] == 'clean wait',
        'in clean wait',
    )
    record = settled(cloud, 'rf-1', 'available')
    assert record['last_error'] is None, record
    assert record['power_state'] == 'power off'
    assert machines.disk_is_erased(agent.disks[0])
    assert agent.steps_run() == ['erase_devices_metadata', 'erase_devices']


def _image(path: Path, size: int, seed: int) -> bytes:
    data = random.Random(seed).randbytes(size)
    path.write_bytes(data)
    return data


def _deploy(cloud: Any, name: str, **instance_info: str) -> None:
    args = [f'--instance-info={k}={v}' for k, v in instance_info.items()]
    cloud.baremetal('node', 'set', name, *args, parse=False)
    cloud.baremetal('node', 'deploy', name, parse=False)


def _undeploy_erases(cloud: Any, name: str, agent: machines.Agent) -> None:
    cloud.baremetal('node', 'undeploy', name, parse=False)
    record = settled(cloud, name, 'available', timeout=180)
    assert record['last_error'] is None, record
    assert record['instance_info'] == {}, record
    assert machines.disk_is_erased(agent.disks[0])


def test_deploy_writes_a_raw_image_and_undeploy_erases_it(
    cloud: Any, tmp_path: Path
) -> None:
    agent = cloud.agents['rf-1']
    data = _image(tmp_path / 'disk.raw', 3 * machines.MIB // 2, seed=1)
    _deploy(
        cloud,
        'rf-1',
        image_source=f'file://{tmp_path / "disk.raw"}',
        image_checksum=hashlib.sha256(data).hexdigest(),
    )
    record = settled(cloud, 'rf-1', 'active', timeout=180)
    assert record['last_error'] is None, record
    assert record['power_state'] == 'power on'
    assert record['deploy_step'] == {}, record
    disk = agent.disks[0].read_bytes()
    assert disk[: len(data)] == data
    assert agent.steps_run() == ['erase_devices_metadata', 'erase_devices']
    _undeploy_erases(cloud, 'rf-1', agent)
    assert agent.steps_run() == ['erase_devices_metadata', 'erase_devices'] * 2


def test_deploy_writes_the_raw_content_of_a_qcow2_image(
    cloud: Any, tmp_path: Path
) -> None:
    agent = cloud.agents['rf-1']
    data = _image(tmp_path / 'disk.raw', 2 * machines.MIB, seed=2)
    qcow2 = disk_images.qcow2_of(tmp_path / 'disk.raw')
    _deploy(
        cloud,
        'rf-1',
        image_source=f'file://{qcow2}',
        image_os_hash_algo='sha512',
        image_os_hash_value=hashlib.sha512(qcow2.read_bytes()).hexdigest(),
    )
    record = settled(cloud, 'rf-1', 'active', timeout=180)
    assert record['last_error'] is None, record
    assert agent.disks[0].read_bytes()[: len(data)] == data
    _undeploy_erases(cloud, 'rf-1', agent)


def test_an_image_that_does_not_verify_never_becomes_active(
    cloud: Any, tmp_path: Path
) -> None:
    agent = cloud.agents['rf-1']
    _image(tmp_path / 'disk.raw', machines.MIB, seed=3)
    _deploy(
        cloud,
        'rf-1',
        image_source=f'file://{tmp_path / "disk.raw"}',
        image_checksum='0' * 64,
    )
    record = settled(cloud, 'rf-1', 'deploy failed', timeout=180)
    assert 'verif' in record['last_error'].lower(), record
    assert '0' * 64 in record['last_error'], record
    assert machines.disk_is_erased(agent.disks[0])
    _undeploy_erases(cloud, 'rf-1', agent)


def test_a_conductor_killed_in_wait_call_back_is_taken_over(
    cloud: Any, tmp_path: Path
) -> None:
    """rf-1 waits for its agent (stopped) when the conductor that runs
    its deployment is killed: the other one takes it over, the agent
    comes back, the image is written once and the node is active."""
    agent = cloud.agents['rf-1']
    agent.kill()
    data = _image(tmp_path / 'disk.raw', machines.MIB, seed=4)
    _deploy(
        cloud,
        'rf-1',
        image_source=f'file://{tmp_path / "disk.raw"}',
        image_checksum=hashlib.sha256(data).hexdigest(),
    )
    waiting = wait_node(
        cloud,
        'rf-1',
        lambda n: n['provision_state'] == 'wait call-back',
        'waiting for its agent',
        180,
    )
    owner = waiting['conductor']
    assert owner in cloud.conductors, waiting
    cloud.kill(owner)
    try:
        before = agent.log_file.read_text().count(PREPARE)
        # (the same machine: its workdir and disk)
        agent = start_agent(cloud, agent.disks[0].parent.parent, 'rf-1')
        record = settled(cloud, 'rf-1', 'active', timeout=240)
    finally:
        cloud.start_conductor(owner)
        cloud.wait_conductors()
    assert record['last_error'] is None, record
    assert record['conductor'] != owner, record
    assert agent.disks[0].read_bytes()[: len(data)] == data
    assert agent.log_file.read_text().count(PREPARE) == before + 1
    _undeploy_erases(cloud, 'rf-1', agent)


def test_a_short_download_and_an_agent_killed_mid_write_end_in_deploy_failed(
    cloud: Any, tmp_path: Path
) -> None:
    """The agent downloads an http image itself: a server that sends
    half of it and closes fails the agent's write (``deploy failed`` with
    its error); one that sends half and holds the connection while the
    agent is killed fails the deployment at the callback timeout. Never
    ``active``, never the whole image on the disk; undeployed and
    cleaned after each."""
    agent = cloud.agents['rf-1']
    data = random.Random(21).randbytes(2 * machines.MIB)
    info = {
        'image_checksum': hashlib.sha256(data).hexdigest(),
        'image_disk_format': 'raw',
    }
    with HalfImageServer(data) as server:
        _deploy(cloud, 'rf-1', image_source=server.url(), **info)
        record = settled(cloud, 'rf-1', 'deploy failed', timeout=180)
    assert 'image.raw' in record['last_error'], record
    assert agent.disks[0].read_bytes()[: len(data)] != data
    _undeploy_erases(cloud, 'rf-1', agent)

    with HalfImageServer(data, hold=True) as server:
        _deploy(cloud, 'rf-1', image_source=server.url(), **info)
        assert server.half_sent.wait(120), 'the agent never downloaded'
        # The conductor has the agent's answer to prepare_image (its
        # command recorded): the agent is killed while it writes, not
        # while it answers.
        wait_node(
            cloud,
            'rf-1',
            lambda n: 'agent_command_id' in n['driver_internal_info'],
            'the command recorded',
            60,
        )
        agent.kill()
        record = settled(
            cloud, 'rf-1', 'deploy failed', DEPLOY_CALLBACK_TIMEOUT + 120
        )
    assert (
        'Timeout reached while waiting for callback' in (record['last_error'])
    ), record
    assert 'deploy.write_image' in record['last_error'], record
    assert agent.disks[0].read_bytes()[: len(data)] != data
    agent = start_agent(cloud, agent.disks[0].parent.parent, 'rf-1')
    _undeploy_erases(cloud, 'rf-1', agent)


def test_instance_info_without_an_image_is_refused(cloud: Any) -> None:
    status, body = cloud.api_call(
        'PUT', '/v1/nodes/rf-1/states/provision', {'target': 'active'}
    )
    assert status == 400, body
    assert 'image_source' in json.dumps(body), body
    assert node(cloud, 'rf-1')['provision_state'] == 'available'


def _clean(
    cloud: Any, name: str, steps: list[dict[str, Any]]
) -> dict[str, Any]:
    cloud.baremetal(
        'node', 'clean', name, '--clean-steps', json.dumps(steps), parse=False
    )
    return settled(cloud, name, 'manageable', timeout=180)


def _bmc_bios(cloud: Any, index: int) -> dict[str, str]:
    path = cloud.redfish.system_path(index) + '/BIOS'
    return dict(cloud.redfish.get(path)['Attributes'])


def test_bios_and_firmware_as_manual_clean_steps(cloud: Any) -> None:
    record = _clean(
        cloud,
        'rf-2',
        [
            {
                'interface': 'bios',
                'step': 'apply_configuration',
                'args': {
                    'settings': [
                        {'name': 'ProcTurboMode', 'value': 'Disabled'}
                    ]
                },
            },
            {
                'interface': 'firmware',
                'step': 'update',
                'args': {
                    'settings': [
                        {
                            'component': 'bios',
                            'url': 'http://127.0.0.1:1/bios-1.1.bin',
                        }
                    ]
                },
            },
        ],
    )
    assert record['last_error'] is None, record
    assert _bmc_bios(cloud, 1)['ProcTurboMode'] == 'Disabled'
    assert (
        cloud.redfish.get(cloud.redfish.system_path(1))['BiosVersion']
        == '1.1.0'
    )
    firmware = cloud.api_call('GET', '/v1/nodes/rf-2/firmware')[1]
    bios = {c['component']: c for c in firmware['firmware']}['bios']
    assert bios['current_version'] == '1.1.0', firmware

    record = _clean(
        cloud, 'rf-2', [{'interface': 'bios', 'step': 'factory_reset'}]
    )
    assert record['last_error'] is None, record
    assert _bmc_bios(cloud, 1)['ProcTurboMode'] == 'Enabled'
    settings = cloud.api_call('GET', '/v1/nodes/rf-2/bios')[1]['bios']
    assert {s['name']: s['value'] for s in settings}[
        'ProcTurboMode'
    ] == 'Enabled'


def test_power_sync_recovers_from_a_bmc_that_stops_answering(
    cloud: Any,
) -> None:
    cloud.baremetal('node', 'power', 'on', 'ipmi-1', parse=False)
    wait_node(
        cloud,
        'ipmi-1',
        lambda n: n['power_state'] == 'power on',
        'powered on',
        60,
    )
    cloud.ipmi.mute()
    try:
        record = wait_node(
            cloud, 'ipmi-1', lambda n: n['maintenance'], 'in maintenance', 90
        )
    finally:
        cloud.ipmi.unmute()
    assert record['fault'] == 'power failure', record
    assert 'max retries exceeded' in record['maintenance_reason']
    record = wait_node(
        cloud,
        'ipmi-1',
        lambda n: not n['maintenance'],
        'out of maintenance',
        60,
    )
    assert record['fault'] is None
    assert record['power_state'] == 'power on'
    history = cloud.api_call('GET', '/v1/nodes/ipmi-1/history')[1]
    assert any(
        'max retries exceeded' in event['event']
        for event in history['history']
    ), history


def test_agent_killed_mid_clean_fails_then_cleans_again(
    cloud: Any, tmp_path_factory: Any
) -> None:
    tmp = tmp_path_factory.mktemp('rf3')
    cloud.baremetal(
        'port',
        'create',
        '52:54:00:12:34:03',
        '--node',
        node(cloud, 'rf-3')['uuid'],
        parse=False,
    )
    # Slow heartbeats: the step's end is seen seconds after it ran, so
    # the agent is surely killed before the cleaning ends.
    agent = start_agent(cloud, tmp, 'rf-3', heartbeat=3)
    cloud.baremetal('node', 'provide', 'rf-3', parse=False)
    wait_node(
        cloud,
        'rf-3',
        lambda n: n['provision_state'] == 'clean wait' and n['clean_step'],
        'running a step on the agent',
    )
    agent.kill()
    killed_at = time.monotonic()
    record = settled(
        cloud, 'rf-3', 'clean failed', timeout=CALLBACK_TIMEOUT + 60
    )
    assert time.monotonic() - killed_at >= CALLBACK_TIMEOUT - 4
    assert 'Timeout reached while cleaning node' in record['last_error']
    assert f'{CALLBACK_TIMEOUT} seconds' in record['last_error']
    assert record['maintenance'] is True
    assert not machines.disk_is_erased(agent.disks[0])

    cloud.baremetal('node', 'maintenance', 'unset', 'rf-3', parse=False)
    manage(cloud, 'rf-3')
    agent = start_agent(cloud, tmp, 'rf-3')
    cloud.baremetal('node', 'provide', 'rf-3', parse=False)
    record = settled(cloud, 'rf-3', 'available')
    assert record['last_error'] is None, record
    assert machines.disk_is_erased(agent.disks[0])
