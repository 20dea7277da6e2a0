"""The conductor's image server: real HTTP on loopback."""

from collections.abc import Iterator
import hashlib
import os
from pathlib import Path
import urllib.parse

import pytest
import requests

from ironic_lite.drivers import image_server
from ironic_lite.drivers.image_server import ImageServer
from ironic_lite.tests.unit import make_conf


@pytest.fixture
def server() -> Iterator[ImageServer]:
    started = ImageServer('127.0.0.1', 0, None)
    started.start()
    yield started
    started.stop()


@pytest.fixture
def image(tmp_path: Path) -> Path:
    path = tmp_path / 'image.raw'
    path.write_bytes(bytes(range(256)) * 40)  # 10240 bytes
    return path


def test_a_published_file_is_served_byte_for_byte(server, image):
    url = server.publish(image)
    response = requests.get(url, timeout=10)
    assert response.status_code == 200
    assert response.content == image.read_bytes()
    assert response.headers['Content-Length'] == '10240'
    assert response.headers['Accept-Ranges'] == 'bytes'


def test_the_url_is_base_url_token_and_file_name(server, image):
    url = server.publish(image)
    assert url.startswith(server.base_url + '/')
    token, name = url[len(server.base_url) + 1 :].split('/')
    assert name == 'image.raw'
    assert len(token) >= 32


def test_port_0_takes_a_free_port_and_advertises_it(server):
    parsed = urllib.parse.urlsplit(server.base_url)
    assert parsed.scheme == 'http'
    assert parsed.hostname == '127.0.0.1'
    assert parsed.port and parsed.port > 0


def test_an_advertised_url_is_the_base_url(image):
    server = ImageServer('127.0.0.1', 0, 'http://images.example.org:8088/')
    server.start()
    try:
        url = server.publish(image)
        assert url.startswith('http://images.example.org:8088/')
        assert url.endswith('/image.raw')
    finally:
        server.stop()


def test_unknown_paths_are_404(server, image):
    url = server.publish(image)
    token = url.split('/')[-2]
    for path in (
        '/',
        '/image.raw',
        f'/{token}',
        f'/{token}/other.raw',
        f'/{token}x/image.raw',
        '/no-such-token/image.raw',
        f'/{token}/../image.raw',
    ):
        response = requests.get(server.base_url + path, timeout=10)
        assert response.status_code == 404, path
        assert response.content == b''


def test_an_unpublished_file_in_a_published_directory_is_404(
    server, image, tmp_path
):
    (tmp_path / 'secret').write_bytes(b'not for agents')
    url = server.publish(image)
    sibling = url.rsplit('/', 1)[0] + '/secret'
    assert requests.get(sibling, timeout=10).status_code == 404


def test_unpublish_by_url_makes_it_404(server, image):
    url = server.publish(image)
    server.unpublish(url)
    assert requests.get(url, timeout=10).status_code == 404


def test_unpublish_by_token_makes_it_404(server, image):
    url = server.publish(image)
    server.unpublish(url.split('/')[-2])
    assert requests.get(url, timeout=10).status_code == 404


def test_unpublishing_leaves_other_publications(server, image):
    first = server.publish(image)
    second = server.publish(image)
    server.unpublish(first)
    server.unpublish('never-published')
    assert requests.get(second, timeout=10).status_code == 200


def test_head_answers_the_length_without_a_body(server, image):
    url = server.publish(image)
    response = requests.head(url, timeout=10)
    assert response.status_code == 200
    assert response.headers['Content-Length'] == '10240'
    assert response.content == b''


def test_head_of_an_unpublished_path_is_404(server):
    response = requests.head(server.base_url + '/x/y', timeout=10)
    assert response.status_code == 404


@pytest.mark.parametrize(
    ('header', 'first', 'last'),
    [
        ('bytes=0-99', 0, 99),
        ('bytes=10000-', 10000, 10239),
        ('bytes=-240', 10000, 10239),
        ('bytes=10200-99999', 10200, 10239),
        ('bytes=5-5', 5, 5),
    ],
)
def test_a_single_range_is_206(server, image, header, first, last):
    url = server.publish(image)
    response = requests.get(url, headers={'Range': header}, timeout=10)
    assert response.status_code == 206
    assert response.content == image.read_bytes()[first : last + 1]
    assert response.headers['Content-Range'] == (f'bytes {first}-{last}/10240')
    assert response.headers['Content-Length'] == str(last - first + 1)


@pytest.mark.parametrize('header', ['bytes=10240-', 'bytes=99999-100000'])
def test_a_range_past_the_end_is_416(server, image, header):
    url = server.publish(image)
    response = requests.get(url, headers={'Range': header}, timeout=10)
    assert response.status_code == 416
    assert response.headers['Content-Range'] == 'bytes */10240'


@pytest.mark.parametrize(
    'header', ['bytes=0-1,5-6', 'items=0-5', 'bytes=9-2', 'nonsense']
)
def test_other_ranges_are_ignored_and_the_whole_file_sent(
    server, image, header
):
    url = server.publish(image)
    response = requests.get(url, headers={'Range': header}, timeout=10)
    assert response.status_code == 200
    assert response.content == image.read_bytes()


def test_a_20_mib_file_is_streamed_whole(server, tmp_path):
    path = tmp_path / 'big.img'
    with path.open('wb') as out:
        for _ in range(20):
            out.write(os.urandom(1024 * 1024))
    expected = hashlib.sha256(path.read_bytes()).hexdigest()
    url = server.publish(path)
    digest = hashlib.sha256()
    received = 0
    with requests.get(url, stream=True, timeout=30) as response:
        assert response.status_code == 200
        assert response.headers['Content-Length'] == str(20 * 1024 * 1024)
        for chunk in response.iter_content(256 * 1024):
            digest.update(chunk)
            received += len(chunk)
    assert received == 20 * 1024 * 1024
    assert digest.hexdigest() == expected


def test_one_connection_serves_several_requests(server, image):
    url = server.publish(image)
    with requests.Session() as session:
        for _ in range(3):
            assert session.get(url, timeout=10).content == image.read_bytes()
        assert session.get(url + 'x', timeout=10).status_code == 404
        assert session.head(url, timeout=10).status_code == 200


def test_a_published_file_deleted_since_is_404(server, image):
    url = server.publish(image)
    image.unlink()
    assert requests.get(url, timeout=10).status_code == 404


def test_an_empty_file_is_served(server, tmp_path):
    path = tmp_path / 'empty'
    path.write_bytes(b'')
    response = requests.get(server.publish(path), timeout=10)
    assert response.status_code == 200
    assert response.content == b''


def test_base_url_needs_a_started_server_without_an_advertised_url():
    with pytest.raises(RuntimeError, match='not started'):
        _ = ImageServer('127.0.0.1', 0, None).base_url


def test_a_taken_port_is_a_clear_error(server):
    port = urllib.parse.urlsplit(server.base_url).port
    assert port is not None
    other = ImageServer('127.0.0.1', port, None)
    with pytest.raises(RuntimeError, match='cannot listen'):
        other.start()


def test_the_shared_cache_and_server_are_built_once_from_the_config(
    tmp_path, image
):
    conf = make_conf(
        deploy__image_cache_dir=str(tmp_path / 'cache'),
        deploy__image_cache_size=1,
    )
    try:
        cache, server = image_server.shared(conf)
        assert image_server.shared(conf) == (cache, server)
        assert cache.directory == tmp_path / 'cache'
        assert cache.max_bytes == 1024 * 1024
        url = server.publish(image)
        assert url.startswith('http://127.0.0.1:')
        assert requests.get(url, timeout=10).content == image.read_bytes()
    finally:
        image_server.stop_shared()
    assert requests_fail(url)
    fresh, _server = image_server.shared(conf)
    image_server.stop_shared()
    assert fresh is not cache


def requests_fail(url: str) -> bool:
    try:
        requests.get(url, timeout=5)
    except requests.ConnectionError:
        return True
    return False


def test_parse_range_of_an_empty_file_is_unsatisfiable():
    with pytest.raises(ValueError):
        image_server.parse_range('bytes=0-', 0)
    with pytest.raises(ValueError):
        image_server.parse_range('bytes=-0', 10)
    assert image_server.parse_range(None, 0) is None
