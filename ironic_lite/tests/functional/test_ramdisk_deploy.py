"""The ``ramdisk`` deploy interface: the Bare Metal API and the
conductor in process, ironic-lite-agent as a separate process on a disk
file. The node is cleaned by its agent as with the ``agent`` interface,
deployed without any agent and without writing its disk (one step,
``deploy.deploy``), and cleaned again when undeployed."""

import pytest

from ironic_lite.tests.functional import agent_stack as stack

SIZE = 4 * stack.MIB
MARK = b'written before the deployment'


@pytest.fixture(scope='module')
def api_url():
    with stack.serving(
        {
            'enabled_deploy_interfaces': ['fake', 'agent', 'ramdisk'],
            'conductor.clean_step_poll_interval': 1,
            'api.ramdisk_heartbeat_timeout': 2,
        }
    ) as url:
        yield url


def _available(api_url, agents, tmp_path, mac):
    disk = stack.make_disk(tmp_path / 'sda.img', SIZE)
    uuid = stack.create_node(api_url, mac, deploy='ramdisk')
    stack.manageable(api_url, uuid)
    log = tmp_path / 'agent.log'
    agents.append(stack.Agent(api_url, mac, disk, log))
    stack.provision(api_url, uuid, 'provide')
    node = stack.wait(api_url, uuid, stack.state('available'))
    assert node['last_error'] is None, node
    return uuid, disk, log


def _instance_info(api_url, uuid, info):
    stack.patch_node(api_url, uuid, 'add', '/instance_info', info)


def test_a_ramdisk_deploy_boots_without_writing_and_undeploy_cleans(
    api_url, agents, tmp_path
):
    uuid, disk, log = _available(
        api_url, agents, tmp_path, '52:54:00:00:02:01'
    )
    assert stack.steps_run(log) == ['erase_devices_metadata', 'erase_devices']
    with disk.open('r+b') as handle:
        handle.write(MARK)
    _instance_info(
        api_url,
        uuid,
        {
            'kernel': 'http://127.0.0.1:9/live.kernel',
            'ramdisk': 'http://127.0.0.1:9/live.initramfs',
        },
    )
    status, body = stack.call(api_url, 'GET', f'/v1/nodes/{uuid}/validate')
    assert body['deploy']['result'] is True, body
    stack.provision(api_url, uuid, 'active')
    node = stack.settled(api_url, uuid)
    assert node['provision_state'] == 'active', node
    assert node['last_error'] is None
    assert node['power_state'] == 'power on'
    # Nothing written: no prepare_image, the disk as it was.
    assert stack.log_lines(log, 'prepare_image') == []
    assert disk.read_bytes()[: len(MARK)] == MARK
    history = node['driver_internal_info']
    assert 'deploy_steps' not in history, history
    # Undeploying cleans through the agent again.
    stack.provision(api_url, uuid, 'deleted')
    node = stack.wait(api_url, uuid, stack.state('available'), timeout=60)
    assert node['last_error'] is None, node
    assert disk.read_bytes() == bytes(SIZE)
    assert (
        stack.steps_run(log)
        == [
            'erase_devices_metadata',
            'erase_devices',
        ]
        * 2
    )


BAD = [
    ({}, 'instance_info needs boot_iso, or kernel and ramdisk'),
    ({'kernel': 'http://x/k'}, 'instance_info needs boot_iso'),
    ({'boot_iso': 'ftp://x/live.iso'}, 'an http, https or file URL'),
]


def test_a_ramdisk_deploy_without_what_to_boot_is_refused(api_url):
    uuid = stack.create_node(api_url, '52:54:00:00:02:02', deploy='ramdisk')
    stack.manageable(api_url, uuid)
    # (no agent: the node is made available without cleaning)
    stack.patch_node(api_url, uuid, 'replace', '/automated_clean', False)
    stack.provision(api_url, uuid, 'provide')
    stack.wait(api_url, uuid, stack.state('available'))
    for info, words in BAD:
        _instance_info(api_url, uuid, info)
        status, body = stack.call(
            api_url,
            'PUT',
            f'/v1/nodes/{uuid}/states/provision',
            {'target': 'active'},
        )
        assert status == 400, body
        assert words in body['error_message'], body
    _instance_info(api_url, uuid, {'boot_iso': 'https://x/live.iso'})
    status, body = stack.call(
        api_url,
        'PUT',
        f'/v1/nodes/{uuid}/states/provision',
        {'target': 'active', 'configdrive': {'user_data': 'x'}},
    )
    assert status == 400, body
    assert 'writes no config drive' in body['error_message'], body
