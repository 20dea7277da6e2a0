"""A request the server cannot parse is a 400 in the API's error format.

Both APIs on their real servers (waitress behind the connection guard,
the whole application, 127.0.0.1, an ephemeral port), driven over raw
sockets: a client that sends a lower-case method, a space, a non-ASCII
byte or a control character where HTTP forbids it gets a 400 it can
parse, the server writes one warning and no traceback, and goes on
serving (issue 30: such requests got no answer and an ERROR with a
traceback each).
"""

from collections.abc import Callable
from collections.abc import Iterator
import dataclasses
import http.client
import logging
import socket
import tempfile
from typing import Any

import orjson
from oslo_config import cfg
from oslo_config import fixture as config_fixture
import pytest

from ironic_lite import conf as ironic_conf
from ironic_lite.cmd import api as ironic_api
from lite_common.wsgi import server
from nova_lite import conf as nova_conf
from nova_lite import service as nova_service

#: Requests waitress cannot parse, as a fuzzer sent them.
MALFORMED = {
    'lower-case method': b'get /v1 HTTP/1.1\r\nHost: x\r\n\r\n',
    'raw space in the path': b'GET /v1/a b HTTP/1.1\r\nHost: x\r\n\r\n',
    'non-ASCII byte in the path': b'GET /v1/\xff HTTP/1.1\r\nHost: x\r\n\r\n',
    'non-ASCII UTF-8 in the path': (b'GET /v1/\xc3\xa9 HTTP/1.1\r\n'
                                    b'Host: x\r\n\r\n'),
    'ESC in a header value': (b'GET /v1 HTTP/1.1\r\nHost: x\r\n'
                              b'X-Name: a\x1b[31mb\r\n\r\n'),
    'garbage request line': b'\x00\x16\x03\x01garbage\r\nHost: x\r\n\r\n',
    'header line without a colon': (b'GET /v1 HTTP/1.1\r\nHost: x\r\n'
                                    b'no colon here\r\n\r\n'),
    'request line with garbage after the version': (
        b'GET /v1 HTTP/1.1 extra\r\nHost: x\r\n\r\n'),
    'bare LF in a header': b'GET /v1 HTTP/1.1\r\nHost: x\nX-A: b\r\n\r\n',
}


@dataclasses.dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes


def exchange(port: int, raw: bytes) -> Answer:
    """Send ``raw``, read until the server closes (5 s at most)."""
    with socket.create_connection(('127.0.0.1', port), timeout=5) as sock:
        sock.sendall(raw)
        data = b''
        while chunk := sock.recv(65536):
            data += chunk
    assert data, 'no answer: the server closed the connection'
    head, _, body = data.partition(b'\r\n\r\n')
    status_line, *lines = head.decode('latin-1').split('\r\n')
    headers = {}
    for line in lines:
        name, _, value = line.partition(':')
        headers[name.strip().lower()] = value.strip()
    return Answer(int(status_line.split()[1]), headers, body)


def compute_message(body: bytes) -> str:
    document = orjson.loads(body)
    assert list(document) == ['badRequest']
    assert document['badRequest']['code'] == 400
    message: str = document['badRequest']['message']
    return message


def baremetal_message(body: bytes) -> str:
    document = orjson.loads(body)
    assert list(document) == ['error_message']
    inner = orjson.loads(document['error_message'])
    assert inner['faultcode'] == 'Client'
    message: str = inner['faultstring']
    return message


def _settings(conf: cfg.ConfigOpts, tmp: str, host_option: str) -> None:
    conf([], default_config_files=[], default_config_dirs=[])
    conf.set_override('auth_strategy', 'noauth')
    conf.set_override('connection', f'sqlite:///{tmp}/api.sqlite',
                      group='database')
    conf.set_override(host_option, '127.0.0.1', group='api')
    conf.set_override('port', 0, group='api')


def compute_server(tmp: str) -> Iterator[server.APIServer]:
    # The Compute API reads the global configuration.
    nova_conf.register_all(cfg.CONF)
    fixture = config_fixture.Config(cfg.CONF)
    fixture.setUp()
    try:
        _settings(cfg.CONF, tmp, 'host')
        yield nova_service.api_server(cfg.CONF)
    finally:
        fixture.cleanUp()


def baremetal_server(tmp: str) -> Iterator[server.APIServer]:
    conf = cfg.ConfigOpts()
    ironic_conf.register_all(conf)
    _settings(conf, tmp, 'host_ip')
    yield ironic_api.api_server(conf)


APIS: dict[str, tuple[Callable[[str], Iterator[server.APIServer]],
                      Callable[[bytes], str]]] = {
    'compute': (compute_server, compute_message),
    'baremetal': (baremetal_server, baremetal_message),
}


@pytest.fixture(params=sorted(APIS))
def api(request: Any) -> Iterator[tuple[int, Callable[[bytes], str]]]:
    """An API on its real server: its port and its 400 parser."""
    make, message = APIS[request.param]
    with tempfile.TemporaryDirectory() as tmp:
        for running in make(tmp):
            running.start()
            try:
                yield running.bind_addr[1], message
            finally:
                running.stop()


def served(port: int) -> Answer:
    return exchange(port, b'GET / HTTP/1.1\r\nHost: x\r\n'
                          b'Connection: close\r\n\r\n')


@pytest.mark.parametrize('raw', MALFORMED.values(), ids=list(MALFORMED))
def test_a_malformed_request_is_a_400_in_the_api_error_format(
        api: tuple[int, Callable[[bytes], str]], raw: bytes,
        caplog: pytest.LogCaptureFixture) -> None:
    port, message = api
    caplog.set_level(logging.INFO)
    answer = exchange(port, raw)
    assert answer.status == 400, answer
    assert answer.headers['content-type'] == 'application/json'
    assert answer.headers['connection'] == 'close'
    assert int(answer.headers['content-length']) == len(answer.body)
    text = message(answer.body)
    assert text.startswith('Bad Request: ')
    assert '\x1b' not in text
    assert served(port).status == 200
    assert [r for r in caplog.records if r.levelno >= logging.ERROR
            or r.exc_info] == []
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1, [r.getMessage() for r in warnings]
    assert 'could not read' in warnings[0].getMessage()
    assert '\x1b' not in warnings[0].getMessage()


def test_many_malformed_requests_leave_the_server_serving(
        api: tuple[int, Callable[[bytes], str]],
        caplog: pytest.LogCaptureFixture) -> None:
    """Every malformed request in a row, then well-formed ones (on new
    connections and on a kept-alive one)."""
    port, message = api
    caplog.set_level(logging.INFO)
    for raw in MALFORMED.values():
        assert exchange(port, raw).status == 400
    kept_alive = http.client.HTTPConnection('127.0.0.1', port, timeout=5)
    try:
        for _ in range(3):
            kept_alive.request('GET', '/')
            response = kept_alive.getresponse()
            response.read()
            assert response.status == 200
    finally:
        kept_alive.close()
    assert served(port).status == 200
    assert [r for r in caplog.records if r.levelno >= logging.ERROR
            or r.exc_info] == []
    assert len([r for r in caplog.records
                if r.levelno == logging.WARNING]) == len(MALFORMED)

