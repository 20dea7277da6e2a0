"""The ``agent`` rescue interface: the Bare Metal API and the conductor
in process, ironic-lite-agent as a separate process. A deployed node is
rescued (``rescue wait`` until its agent heartbeats, which gets the
password's hash and writes it where ironic-python-agent does) and
unrescued (back to ``active``, its disk untouched); an agent that never
comes fails the rescue at ``[conductor]rescue_callback_timeout``; an
abort in ``rescue wait`` fails it at once."""

import os
import random
import stat

import bcrypt
import pytest

from ironic_lite.tests.functional import agent_stack as stack

SIZE = 4 * stack.MIB
RESCUE_TIMEOUT = 4


@pytest.fixture(scope='module')
def api_url():
    with stack.serving(
        {
            'enabled_deploy_interfaces': ['fake', 'agent'],
            'enabled_rescue_interfaces': ['fake', 'no-rescue', 'agent'],
            'conductor.clean_step_poll_interval': 1,
            'conductor.rescue_callback_timeout': RESCUE_TIMEOUT,
            'api.ramdisk_heartbeat_timeout': 2,
        }
    ) as url:
        yield url


def _active(api_url, agents, tmp_path, mac):
    """A node with the agent deploy and rescue interfaces, cleaned and
    deployed with a raw image by its agent (which keeps running)."""
    disk = stack.make_disk(tmp_path / 'sda.img', SIZE)
    uuid = stack.create_node(api_url, mac)
    stack.patch_node(api_url, uuid, 'replace', '/rescue_interface', 'agent')
    stack.manageable(api_url, uuid)
    agents.append(stack.Agent(api_url, mac, disk, tmp_path / 'agent.log'))
    stack.provision(api_url, uuid, 'provide')
    stack.wait(api_url, uuid, stack.state('available'))
    data = random.Random(5).randbytes(stack.MIB)
    (tmp_path / 'image.raw').write_bytes(data)
    stack.patch_node(
        api_url,
        uuid,
        'add',
        '/instance_info',
        {'image_source': f'file://{tmp_path / "image.raw"}'},
    )
    stack.provision(api_url, uuid, 'active')
    node = stack.settled(api_url, uuid)
    assert node['provision_state'] == 'active', node
    assert disk.read_bytes()[: len(data)] == data
    return uuid, disk, data


def test_rescue_through_the_agent_and_unrescue(api_url, agents, tmp_path):
    uuid, disk, data = _active(api_url, agents, tmp_path, '52:54:00:00:04:01')
    agent = agents[-1]
    stack.provision(api_url, uuid, 'rescue', rescue_password='s3cret pass')
    node = stack.settled(api_url, uuid)
    assert node['provision_state'] == 'rescue', node
    assert node['last_error'] is None
    assert node['power_state'] == 'power on'
    written = agent.rescue_password_file.read_text().strip()
    # A crypt(3) hash of the password, never the password itself.
    assert 's3cret' not in written
    assert bcrypt.checkpw(b's3cret pass', written.encode())
    assert stat.S_IMODE(os.stat(agent.rescue_password_file).st_mode) == 0o600
    info = node['driver_internal_info']
    assert 'agent_secret_token' not in info, info
    assert 'rescue_password' not in node['instance_info'] or (
        node['instance_info']['rescue_password'] == '******'
    )

    stack.provision(api_url, uuid, 'unrescue')
    node = stack.settled(api_url, uuid)
    assert node['provision_state'] == 'active', node
    assert node['power_state'] == 'power on'
    assert 'rescue_password' not in node['instance_info']
    assert disk.read_bytes()[: len(data)] == data


def test_no_agent_fails_the_rescue_at_the_timeout(api_url, agents, tmp_path):
    uuid, _disk, _data = _active(
        api_url, agents, tmp_path, '52:54:00:00:04:02'
    )
    agents.pop().kill()
    stack.provision(api_url, uuid, 'rescue', rescue_password='pw')
    stack.wait(api_url, uuid, stack.state('rescue wait'))
    node = stack.settled(api_url, uuid, timeout=RESCUE_TIMEOUT + 30)
    assert node['provision_state'] == 'rescue failed', node
    assert (
        'Timeout reached while waiting for rescue ramdisk'
        in (node['last_error'])
    )
    assert node['power_state'] == 'power off'
    # The node goes back to its instance.
    stack.provision(api_url, uuid, 'unrescue')
    node = stack.settled(api_url, uuid)
    assert node['provision_state'] == 'active', node


def test_abort_in_rescue_wait(api_url, agents, tmp_path):
    uuid, _disk, _data = _active(
        api_url, agents, tmp_path, '52:54:00:00:04:03'
    )
    agents.pop().kill()
    stack.provision(api_url, uuid, 'rescue', rescue_password='pw')
    stack.wait(api_url, uuid, stack.state('rescue wait'))
    stack.provision(api_url, uuid, 'abort')
    node = stack.settled(api_url, uuid)
    assert node['provision_state'] == 'rescue failed', node
    assert 'was aborted' in node['last_error']
    assert node['power_state'] == 'power off'
