"""The image a node's agent writes, made ready by the conductor
(drivers/deploy_images.py) against an Image service that speaks Glance
v2 over real HTTP (a small server of this test: records and data), with
the conductor's real cache and image server."""

import hashlib
import http.server
import json
import threading

import pytest
import requests

from ironic_lite import exception
from ironic_lite.drivers import deploy_images
from ironic_lite.drivers import image_server
from ironic_lite.drivers import image_service
from ironic_lite.drivers import instance_image
from ironic_lite.tests.unit import make_conf

DATA = bytes(range(256)) * 4096  # 1 MiB
QCOW2 = b'QFI\xfb' + bytes(1020)
IMAGES = {
    'raw-1': {
        'status': 'active',
        'disk_format': 'raw',
        'os_hash_algo': 'sha512',
        'os_hash_value': hashlib.sha512(DATA).hexdigest(),
        'checksum': hashlib.md5(DATA).hexdigest(),  # noqa: S324
        'size': len(DATA),
    },
    'queued-1': {'status': 'queued', 'disk_format': 'raw'},
    'vmdk-1': {
        'status': 'active',
        'disk_format': 'vmdk',
        'checksum': 'a' * 32,
    },
}


class _Glance(http.server.ThreadingHTTPServer):
    daemon_threads = True
    downloads = 0


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _Glance

    def do_GET(self):  # noqa: N802 (http.server's name)
        parts = self.path.strip('/').split('/')
        record = IMAGES.get(parts[2]) if len(parts) >= 3 else None
        if parts[:2] != ['v2', 'images'] or record is None:
            self.send_response(404)
            self.send_header('Content-Length', '0')
            self.end_headers()
            return
        if parts[3:] == ['file']:
            self.server.downloads += 1
            body = DATA
        else:
            body = json.dumps({'id': parts[2], **record}).encode()
        self.send_response(200)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def glance():
    server = _Glance(('127.0.0.1', 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def conf(glance, tmp_path):
    conf = make_conf(
        glance__auth_type='none',
        glance__endpoint_override=f'http://127.0.0.1:{glance.server_port}',
        deploy__image_cache_dir=str(tmp_path / 'cache'),
    )
    yield conf
    image_server.stop_shared(conf)


def _stage(conf, node, **info):
    source = instance_image.parse(node, info)
    return deploy_images.stage(
        conf, image_service.ImageService(conf), node, source
    )


def test_an_image_service_image_is_served_to_the_agent(conf, glance):
    staged = _stage(conf, 'node-1', image_source='raw-1')
    info = staged.image_info
    assert (info['id'], info['disk_format']) == ('raw-1', 'raw')
    assert info['os_hash_algo'] == 'sha512'
    assert info['os_hash_value'] == IMAGES['raw-1']['os_hash_value']
    (url,) = info['urls']
    assert requests.get(url, timeout=10).content == DATA
    deploy_images.release('node-1')
    assert requests.get(url, timeout=10).status_code == 404
    deploy_images.release('node-1')  # (again: nothing)


def test_one_download_for_several_deployments(conf, glance):
    urls = {
        _stage(conf, f'node-{n}', image_source='raw-1').image_info['urls'][0]
        for n in range(3)
    }
    assert len(urls) == 3  # one published path per deployment
    assert glance.downloads == 1


@pytest.mark.parametrize(
    ('image', 'error', 'words'),
    [
        ('queued-1', exception.ImageUnacceptable, 'status is queued'),
        ('vmdk-1', exception.ImageUnacceptable, 'disk_format vmdk'),
        ('missing-1', exception.ImageNotFound, 'missing-1'),
    ],
)
def test_an_image_that_cannot_be_deployed_is_refused(
    conf, glance, image, error, words
):
    with pytest.raises(error) as caught:
        _stage(conf, 'node-1', image_source=image)
    assert words in str(caught.value)
    assert glance.downloads == 0


def test_a_file_without_hash_is_hashed_and_its_format_recognised(
    conf, tmp_path
):
    path = tmp_path / 'image.qcow2'
    path.write_bytes(QCOW2)
    staged = _stage(conf, 'node-1', image_source=f'file://{path}')
    info = staged.image_info
    assert info['disk_format'] == 'qcow2'
    assert info['os_hash_algo'] == 'sha256'
    assert info['os_hash_value'] == hashlib.sha256(QCOW2).hexdigest()


def test_a_missing_file_is_refused(conf, tmp_path):
    with pytest.raises(exception.ImageUnacceptable, match='is not a file'):
        _stage(conf, 'node-1', image_source=f'file://{tmp_path}/none.raw')


def test_an_http_image_goes_to_the_agent_as_it_is_when_asked(tmp_path):
    conf = make_conf(
        deploy__image_download_source='http',
        deploy__image_cache_dir=str(tmp_path / 'cache'),
    )
    staged = _stage(
        conf,
        'node-1',
        image_source='https://images.example/disk.qcow2',
        image_checksum='b' * 64,
        image_disk_format='qcow2',
    )
    assert staged.image_info['urls'] == ['https://images.example/disk.qcow2']
    assert staged.url is None and staged.cached is None
    assert not (tmp_path / 'cache').exists()


def test_no_image_service_configured_says_what_to_set(tmp_path):
    conf = make_conf(
        glance__auth_type='none',
        deploy__image_cache_dir=str(tmp_path / 'cache'),
    )
    with pytest.raises(exception.ConfigError, match='endpoint_override'):
        _stage(conf, 'node-1', image_source='raw-1')
