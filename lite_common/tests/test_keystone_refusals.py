"""In Keystone mode, the refusals keystonemiddleware writes itself are
in the API's error format (issue 30: its 401 was Keystone's own JSON
and its 503 webob's HTML page).

Both APIs, whole, on their real servers, behind a real
keystonemiddleware whose Keystone does not answer (a port on 127.0.0.1
that refuses connections).
"""

from collections.abc import Iterator
import http.client
from pathlib import Path
import socket
from typing import Any

import orjson
import pytest

from lite_common.tests import api_servers


@pytest.fixture
def keystone_url() -> Iterator[str]:
    """A Keystone that refuses every connection (bound, not listening)."""
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        yield f'http://127.0.0.1:{sock.getsockname()[1]}/identity'


def authtoken(url: str) -> str:
    return (
        '[keystone_authtoken]\nauth_type = password\n'
        f'auth_url = {url}\nwww_authenticate_uri = {url}\n'
        'username = service\npassword = secret\n'
        'project_name = service\nuser_domain_name = Default\n'
        'project_domain_name = Default\nhttp_request_max_retries = 0\n'
    )


def call(
    port: int, path: str, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], Any]:
    conn = http.client.HTTPConnection('127.0.0.1', port, timeout=30)
    try:
        conn.request('GET', path, headers=headers or {})
        response = conn.getresponse()
        body = response.read()
        assert response.getheader('Content-Type') == 'application/json'
        return (
            response.status,
            dict(response.getheaders()),
            orjson.loads(body),
        )
    finally:
        conn.close()


def compute_fault(document: Any, status: int) -> str:
    (name,) = document
    assert name == {401: 'unauthorized', 503: 'serviceUnavailable'}[status]
    assert document[name]['code'] == status
    message: str = document[name]['message']
    return message


def baremetal_fault(document: Any, status: int) -> str:
    assert list(document) == ['error_message']
    inner = orjson.loads(document['error_message'])
    assert inner['faultcode'] == ('Server' if status >= 500 else 'Client')
    message: str = inner['faultstring']
    return message


CASES = {
    'compute': ('/v2.1/servers', compute_fault),
    'baremetal': ('/v1/nodes', baremetal_fault),
}


@pytest.fixture(params=sorted(CASES))
def api(
    request: Any, tmp_path: Path, keystone_url: str
) -> Iterator[tuple[int, str, Any]]:
    path, fault = CASES[request.param]
    with api_servers.APIS[request.param](
        tmp_path, auth='keystone', extra=authtoken(keystone_url)
    ) as port:
        yield port, path, fault


def test_no_token_is_a_401_in_the_api_format(
    api: Any, keystone_url: str
) -> None:
    port, path, fault = api
    status, headers, document = call(port, path)
    assert status == 401
    assert 'requires authentication' in fault(document, 401)
    assert headers['WWW-Authenticate'] == f'Keystone uri="{keystone_url}"'


def test_keystone_unreachable_is_a_503_in_the_api_format(api: Any) -> None:
    port, path, fault = api
    status, headers, document = call(
        port, path, {'X-Auth-Token': 'gAAAAAB-token'}
    )
    assert status == 503
    assert 'Keystone' in fault(document, 503)
    assert int(headers['Retry-After']) > 0


def test_the_version_document_needs_no_token(api: Any) -> None:
    port, _, _ = api
    assert call(port, '/')[0] == 200


def test_the_image_api_refuses_in_its_own_format(
    tmp_path: Path, keystone_url: str
) -> None:
    with api_servers.compute_api(
        tmp_path, auth='keystone', extra=authtoken(keystone_url)
    ) as port:
        # (a client that accepts JSON, as openstacksdk: Glance's webob
        # answers HTML to one that sends no Accept header)
        status, _, document = call(
            port, '/image/v2/images', {'Accept': 'application/json'}
        )
    assert status == 401
    assert document['code'] == 401
    assert document['title'] == 'Unauthorized'


@pytest.mark.parametrize('name', sorted(CASES))
def test_a_refusal_behind_keystonemiddleware_is_in_the_api_format(
    name: str, tmp_path: Path, keystone_url: str
) -> None:
    """With delay_auth_decision keystonemiddleware lets a request
    without a token through, and the layer behind it refuses it: its
    error too (keystonemiddleware's wsgify rendered it as webob's)."""
    path, fault = CASES[name]
    extra = authtoken(keystone_url) + 'delay_auth_decision = true\n'
    with api_servers.APIS[name](
        tmp_path, auth='keystone', extra=extra
    ) as port:
        status, _, document = call(port, path)
    assert status == 401
    assert fault(document, 401) == 'Authentication required.'
