"""Cleaning with the ``agent`` deploy interface: the Bare Metal API and
the conductor in process (served on 127.0.0.1), ironic-lite-agent as a
separate process acting on disk image files."""

from pathlib import Path

import pytest
import requests

from ironic_lite.tests.functional import agent_stack as stack

SIZE = 4 * stack.MIB
#: Seconds a node waits in clean wait without a heartbeat.
CALLBACK_TIMEOUT = 8


@pytest.fixture(scope='module')
def api_url():
    with stack.serving(
        {
            'enabled_deploy_interfaces': ['fake', 'agent'],
            'conductor.clean_callback_timeout': CALLBACK_TIMEOUT,
            'conductor.clean_step_poll_interval': 1,
            'api.ramdisk_heartbeat_timeout': 2,
        }
    ) as url:
        yield url


def _disk(path: Path) -> Path:
    return stack.make_disk(path, SIZE)


def test_agent_cleans_the_disks(api_url, agents, tmp_path):
    mac = '52:54:00:00:00:01'
    disk = _disk(tmp_path / 'sda.img')
    uuid = stack.create_node(api_url, mac)
    stack.manageable(api_url, uuid)
    stack.provision(api_url, uuid, 'provide')
    node = stack.wait(api_url, uuid, stack.state('clean wait'))
    assert node['power_state'] == 'power on'
    assert node['clean_step'] == {}
    agents.append(stack.Agent(api_url, mac, disk, tmp_path / 'agent.log'))
    node = stack.wait(api_url, uuid, stack.state('available'))
    assert node['last_error'] is None
    assert node['power_state'] == 'power off'
    assert disk.read_bytes() == bytes(SIZE)
    # Upstream's order (metadata 99, then the whole disk 10), each step
    # run once although the agent heartbeated while they ran.
    assert stack.steps_run(tmp_path / 'agent.log') == [
        'erase_devices_metadata',
        'erase_devices',
    ]
    history = stack.call(api_url, 'GET', f'/v1/nodes/{uuid}/history')[1]
    assert history is not None
    info = node['driver_internal_info']
    assert 'agent_secret_token' not in info
    assert 'agent_url' not in info
    assert 'clean_steps' not in info


def test_killed_agent_fails_at_the_timeout_then_recovers(
    api_url, agents, tmp_path
):
    mac = '52:54:00:00:00:02'
    disk = _disk(tmp_path / 'sdb.img')
    uuid = stack.create_node(api_url, mac)
    stack.manageable(api_url, uuid)
    stack.provision(api_url, uuid, 'provide')
    agent = stack.Agent(api_url, mac, disk, tmp_path / 'agent1.log')
    agents.append(agent)
    stack.wait(
        api_url,
        uuid,
        lambda n: (
            n['provision_state'] == 'clean wait' and n['clean_step'] != {}
        ),
    )
    agent.kill()
    node = stack.wait(
        api_url,
        uuid,
        stack.state('clean failed'),
        timeout=CALLBACK_TIMEOUT + 30,
    )
    error = node['last_error']
    assert 'Timeout reached while cleaning node' in error, error
    assert 'runs on the agent, which did not heartbeat within' in error
    assert f'{CALLBACK_TIMEOUT} seconds' in error
    assert 'deploy.erase_devices' in error
    # A step ran: in maintenance (upstream's rule, as above).
    assert (node['maintenance'], node['fault']) == (True, 'clean failure')
    status, body = stack.call(
        api_url, 'DELETE', f'/v1/nodes/{uuid}/maintenance'
    )
    assert status == 202, body
    stack.manageable(api_url, uuid)
    stack.provision(api_url, uuid, 'provide')
    agents.append(stack.Agent(api_url, mac, disk, tmp_path / 'agent2.log'))
    node = stack.wait(api_url, uuid, stack.state('available'))
    assert node['last_error'] is None
    assert disk.read_bytes() == bytes(SIZE)


def test_abort_in_clean_wait(api_url, tmp_path):
    uuid = stack.create_node(api_url, '52:54:00:00:00:03')
    stack.manageable(api_url, uuid)
    stack.provision(api_url, uuid, 'provide')
    stack.wait(api_url, uuid, stack.state('clean wait'))
    stack.provision(api_url, uuid, 'abort')
    node = stack.wait(api_url, uuid, stack.state('clean failed'))
    assert 'aborted by request' in node['last_error']
    assert node['maintenance'] is False


def test_no_agent_fails_at_the_timeout(api_url, tmp_path):
    uuid = stack.create_node(api_url, '52:54:00:00:00:04')
    stack.manageable(api_url, uuid)
    stack.provision(api_url, uuid, 'provide')
    node = stack.wait(
        api_url,
        uuid,
        stack.state('clean failed'),
        timeout=CALLBACK_TIMEOUT + 30,
    )
    assert 'its agent did not heartbeat within' in node['last_error']
    # No step ran: not in maintenance (upstream's rule, as below).
    assert (node['maintenance'], node['fault']) == (False, None)


def test_a_failing_agent_step_fails_the_node(api_url, agents, tmp_path):
    mac = '52:54:00:00:00:05'
    uuid = stack.create_node(api_url, mac)
    stack.manageable(api_url, uuid)
    stack.provision(api_url, uuid, 'provide')
    agents.append(
        stack.Agent(
            api_url, mac, tmp_path / 'no-such-disk.img', tmp_path / 'agent.log'
        )
    )
    node = stack.wait(api_url, uuid, stack.state('clean failed'))
    error = node['last_error']
    assert error.startswith(
        'Clean step deploy.erase_devices_metadata '
        f'failed on node {uuid}: the agent reported: '
        'disk file(s) not found'
    ), error
    assert node['maintenance'] is True
    assert node['fault'] == 'clean failure'
    assert stack.steps_run(tmp_path / 'agent.log') == [
        'erase_devices_metadata'
    ]


def test_a_lookup_answer_that_never_arrived_does_not_wedge_the_node(
    api_url, agents, tmp_path
):
    """A token made for a lookup whose agent gave up waiting (a read
    timeout) is made again once the heartbeat timeout passed without a
    heartbeat: the agent's next lookups get one and cleaning goes on."""
    mac = '52:54:00:00:00:06'
    disk = _disk(tmp_path / 'sdf.img')
    uuid = stack.create_node(api_url, mac)
    stack.manageable(api_url, uuid)
    stack.provision(api_url, uuid, 'provide')
    stack.wait(api_url, uuid, stack.state('clean wait'))
    lost = requests.get(
        f'{api_url}/v1/lookup',
        params={'addresses': mac},
        headers=stack.HEADERS,
        timeout=30,
    ).json()
    assert lost['config']['agent_token'] not in (None, '******'), lost
    agents.append(stack.Agent(api_url, mac, disk, tmp_path / 'agent.log'))
    node = stack.wait(api_url, uuid, stack.state('available'))
    assert node['last_error'] is None
    assert disk.read_bytes() == bytes(SIZE)
    log = (tmp_path / 'agent.log').read_text()
    assert 'another agent has it' in log  # until the token was made again
