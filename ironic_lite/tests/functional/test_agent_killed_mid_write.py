"""An agent killed while it writes the image: the deployment ends in
``deploy failed`` at ``[conductor]deploy_callback_timeout`` and never in
``active``, and the node can be undeployed and cleaned.

The agent downloads the image itself (``[deploy]image_download_source =
http``) from a server that sends half of it and then waits, so that the
agent is certainly in the middle of writing when it is killed.
"""

import hashlib
import http.server
import random
import threading

import pytest

from ironic_lite.tests.functional import agent_stack as stack

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


class _HalfServer(http.server.ThreadingHTTPServer):
    """Announces the whole image, sends half of it, then holds the
    connection until released."""

    data = b''
    half_sent = threading.Event()
    release = threading.Event()


class _HalfHandler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (http.server's name)
        server = self.server
        self.send_response(200)
        self.send_header('Content-Length', str(len(server.data)))
        self.end_headers()
        self.wfile.write(server.data[: len(server.data) // 2])
        self.wfile.flush()
        server.half_sent.set()
        server.release.wait(60)
        self.close_connection = True

    def log_message(self, *args):
        pass


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
    server = _HalfServer(('127.0.0.1', 0), _HalfHandler)
    server.data = data
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        stack.patch_node(
            api_url,
            uuid,
            'add',
            '/instance_info',
            {
                'image_source': f'http://127.0.0.1:{server.server_port}'
                '/image.raw',
                'image_checksum': hashlib.sha256(data).hexdigest(),
                'image_disk_format': 'raw',
            },
        )
        stack.provision(api_url, uuid, 'active')
        assert server.half_sent.wait(60), 'the agent never downloaded'
        agents.pop().kill()
        node = stack.settled(api_url, uuid, timeout=CALLBACK_TIMEOUT + 60)
    finally:
        server.release.set()
        server.shutdown()
        server.server_close()
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
    assert disk.read_bytes() == bytes(SIZE)
