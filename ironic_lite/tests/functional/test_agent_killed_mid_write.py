"""An agent killed while it writes the image: its heartbeats said how
far the write was (``driver_internal_info.agent_status_message``), and
the deployment ends in ``deploy failed`` at
``[conductor]deploy_callback_timeout`` and never in ``active``, and the
node can be undeployed and cleaned.

The agent downloads the image itself (``[deploy]image_download_source =
http``) from a server that sends half of it and then waits, so that the
agent is certainly in the middle of writing when it is killed.
"""

import hashlib
import random

import pytest

from ironic_lite.tests.functional import agent_stack as stack
from ironic_lite.tests.half_image_server import HalfImageServer

SIZE = 8 * stack.MIB
CALLBACK_TIMEOUT = 6


@pytest.fixture(scope='module')
def api_url(tmp_path_factory):
    cache = tmp_path_factory.mktemp('image-cache')
    with stack.serving(
        {
            'enabled_deploy_interfaces': ['fake', 'agent'],
            'conductor.clean_step_poll_interval': 1,
            'conductor.deploy_callback_timeout': CALLBACK_TIMEOUT,
            'api.ramdisk_heartbeat_timeout': 2,
            'deploy.image_cache_dir': str(cache),
            'deploy.image_download_source': 'http',
        }
    ) as url:
        yield url


def test_an_agent_killed_mid_write_fails_the_deployment(
    api_url, agents, tmp_path
):
    mac = '52:54:00:00:03:01'
    disk = stack.make_disk(tmp_path / 'sda.img', SIZE)
    uuid = stack.create_node(api_url, mac)
    stack.manageable(api_url, uuid)
    log = tmp_path / 'agent.log'
    agents.append(stack.Agent(api_url, mac, disk, log))
    stack.provision(api_url, uuid, 'provide')
    assert stack.wait(api_url, uuid, stack.state('available'))

    data = random.Random(11).randbytes(4 * stack.MIB)
    with HalfImageServer(data, hold=True) as server:
        stack.patch_node(
            api_url,
            uuid,
            'add',
            '/instance_info',
            {
                'image_source': server.url(),
                'image_checksum': hashlib.sha256(data).hexdigest(),
                'image_disk_format': 'raw',
            },
        )
        stack.provision(api_url, uuid, 'active')
        assert server.half_sent.wait(60), 'the agent never downloaded'
        # Half of the image is written: the heartbeats say so.
        node = stack.wait(
            api_url,
            uuid,
            lambda n: (
                '(50%)'
                in n['driver_internal_info'].get('agent_status_message', '')
            ),
            timeout=30,
        )
        message = node['driver_internal_info']['agent_status_message']
        assert message == (
            f'prepare_image of image {server.url()}: 2.0 MiB of 4.0 MiB (50%)'
        ), message
        assert node['provision_state'] == 'wait call-back', node
        agents.pop().kill()
        node = stack.settled(api_url, uuid, timeout=CALLBACK_TIMEOUT + 60)
    assert node['provision_state'] == 'deploy failed', node
    assert 'Timeout reached while waiting for callback' in node['last_error']
    assert 'deploy.write_image' in node['last_error'], node
    # Part of the image may be on the disk; never all of it.
    assert disk.read_bytes()[: len(data)] != data

    # With its agent back, the node is undeployed and cleaned.
    agents.append(stack.Agent(api_url, mac, disk, log))
    stack.provision(api_url, uuid, 'deleted')
    node = stack.wait(api_url, uuid, stack.state('available'), timeout=60)
    assert node['last_error'] is None, node
    assert 'agent_status_message' not in node['driver_internal_info'], node
    assert disk.read_bytes() == bytes(SIZE)
