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
from pathlib import Path
import socket
from typing import Any

import orjson
import pytest

from lite_common.tests import api_servers

#: Requests waitress cannot parse, as a fuzzer sent them.
MALFORMED = {
    'lower-case method': b'get /v1 HTTP/1.1\r\nHost: x\r\n\r\n',
    'raw space in the path': b'GET /v1/a b HTTP/1.1\r\nHost: x\r\n\r\n',
    'non-ASCII byte in the path': b'GET /v1/\xff HTTP/1.1\r\nHost: x\r\n\r\n',
    'non-ASCII UTF-8 in the path': (
        b'GET /v1/\xc3\xa9 HTTP/1.1\r\nHost: x\r\n\r\n'
    ),
    'ESC in a header value': (
        b'GET /v1 HTTP/1.1\r\nHost: x\r\nX-Name: a\x1b[31mb\r\n\r\n'
    ),
    'garbage request line': b'\x00\x16\x03\x01garbage\r\nHost: x\r\n\r\n',
    'header line without a colon': (
        b'GET /v1 HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n'
    ),
    'request line with garbage after the version': (
        b'GET /v1 HTTP/1.1 extra\r\nHost: x\r\n\r\n'
    ),
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


#: API -> how to read the message of its 400.
MESSAGES = {'compute': compute_message, 'baremetal': baremetal_message}


@pytest.fixture(params=sorted(api_servers.APIS))
def api(
    request: Any, tmp_path: Path
) -> Iterator[tuple[int, Callable[[bytes], str]]]:
    """An API on its real server: its port and its 400 parser."""
    with api_servers.APIS[request.param](tmp_path) as port:
        yield port, MESSAGES[request.param]


def served(port: int) -> Answer:
    return exchange(
        port, b'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'
    )


def _server_records(
    caplog: pytest.LogCaptureFixture,
) -> list[logging.LogRecord]:
    """What the server logged (not threads a test before this one left
    in this worker process: they logged a WARNING of their own once)."""
    return [
        r
        for r in caplog.records
        if r.name.startswith(('lite_common.wsgi', 'waitress'))
    ]


def _warnings(records: list[logging.LogRecord]) -> list[logging.LogRecord]:
    """The server's own warnings (waitress's "Task queue depth is 1",
    logged when a request waits for a thread on a busy machine, aside)."""
    return [
        r
        for r in records
        if r.levelno == logging.WARNING
        and r.name.startswith('lite_common.wsgi')
    ]


@pytest.mark.parametrize('raw', MALFORMED.values(), ids=list(MALFORMED))
def test_a_malformed_request_is_a_400_in_the_api_error_format(
    api: tuple[int, Callable[[bytes], str]],
    raw: bytes,
    caplog: pytest.LogCaptureFixture,
) -> None:
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
    records = _server_records(caplog)
    assert [
        r for r in records if r.levelno >= logging.ERROR or r.exc_info
    ] == []
    warnings = _warnings(records)
    assert len(warnings) == 1, [r.getMessage() for r in warnings]
    assert 'could not read' in warnings[0].getMessage()
    assert '\x1b' not in warnings[0].getMessage()


def test_many_malformed_requests_leave_the_server_serving(
    api: tuple[int, Callable[[bytes], str]], caplog: pytest.LogCaptureFixture
) -> None:
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
    records = _server_records(caplog)
    assert [
        r for r in records if r.levelno >= logging.ERROR or r.exc_info
    ] == []
    assert len(_warnings(records)) == len(MALFORMED)
