"""Strict JSON request bodies: stored as sent, or a 400/413."""

import io
from typing import Any

import pytest
import webob
import webob.exc

from lite_common.wsgi import json_body


def _nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth - 1):
        value = [value]
    return value


def _request(body: bytes, chunked: bool = False) -> webob.Request:
    req = webob.Request.blank(
        '/v1/nodes', method='POST', content_type='application/json'
    )
    if chunked:
        req.environ['wsgi.input'] = io.BytesIO(body)
        req.environ['wsgi.input_terminated'] = True
        req.environ.pop('CONTENT_LENGTH', None)
    else:
        req.body = body
    return req


@pytest.mark.parametrize(
    'text, value',
    [
        ('{"a": 1}', {'a': 1}),
        (
            '[18446744073709551615, -9223372036854775808]',
            [2**64 - 1, -(2**63)],
        ),
        ('1.5e308', 1.5e308),
        ('"\\ud83d\\ude00"', '\U0001f600'),
        ('{"a": ' + '[' * 99 + ']' * 99 + '}', {'a': _nested(99)}),
    ],
    ids=[
        'object',
        'int64-bounds',
        'large-float',
        'surrogate-pair',
        'depth-100',
    ],
)
def test_valid_documents_are_kept_as_sent(text: str, value: Any) -> None:
    assert json_body.loads(text.encode()) == value


@pytest.mark.parametrize(
    'text, reason',
    [
        ('NaN', 'NaN is not a valid JSON number'),
        ('{"a": [Infinity]}', 'Infinity is not a valid JSON number'),
        ('-Infinity', '-Infinity is not a valid JSON number'),
        ('1e999', 'out of range'),
        ('18446744073709551616', 'does not fit in 64 bits'),
        ('-9223372036854775809', 'does not fit in 64 bits'),
        ('"\\ud800"', 'lone UTF-16 surrogates'),
        ('{"\\udc00": 1}', 'lone UTF-16 surrogates'),
        ('"a\\u0000"', 'NUL characters'),
        ('{"\\u0000": 1}', 'NUL characters'),
        ('[' * 101 + ']' * 101, 'nested deeper than 100 levels'),
        ('[' * 100000 + ']' * 100000, 'nested deeper than 100 levels'),
    ],
    ids=[
        'nan',
        'infinity',
        'minus-infinity',
        'double-overflow',
        'above-u64',
        'below-i64',
        'lone-surrogate',
        'lone-surrogate-key',
        'nul',
        'nul-key',
        'depth-101',
        'depth-100000',
    ],
)
def test_values_that_cannot_be_stored_are_400(text: str, reason: str) -> None:
    with pytest.raises(webob.exc.HTTPBadRequest) as raised:
        json_body.read(_request(text.encode()))
    assert reason in raised.value.explanation
    assert raised.value.explanation.startswith('Invalid request body: ')


@pytest.mark.parametrize(
    'body',
    [b'{"a": ', b'hello', b'{"a": "\xff"}'],
    ids=['truncated', 'not-json', 'not-utf8'],
)
def test_malformed_json_is_400(body: bytes) -> None:
    with pytest.raises(webob.exc.HTTPBadRequest) as raised:
        json_body.read(_request(body))
    assert raised.value.explanation.startswith('Malformed request body: ')


@pytest.mark.parametrize('body', [b'', b'  \n'])
def test_empty_body(body: bytes) -> None:
    with pytest.raises(webob.exc.HTTPBadRequest) as raised:
        json_body.read(_request(body))
    assert 'body is empty' in raised.value.explanation
    assert json_body.read(_request(body), optional=True) == {}


def test_too_large_by_content_length_is_413() -> None:
    req = _request(b'{}')
    req.content_length = json_body.MAX_BODY + 1
    with pytest.raises(webob.exc.HTTPRequestEntityTooLarge):
        json_body.read(req)


def test_too_large_chunked_is_413() -> None:
    body = b'"' + b'x' * json_body.MAX_BODY + b'"'
    with pytest.raises(webob.exc.HTTPRequestEntityTooLarge):
        json_body.read(_request(body, chunked=True))


def test_chunked_body_is_read() -> None:
    assert json_body.read(_request(b'{"a": 1}', chunked=True)) == {'a': 1}


def test_a_lower_limit_can_be_given() -> None:
    assert json_body.read(_request(b'{"a": 1}'), max_body=8) == {'a': 1}
    with pytest.raises(webob.exc.HTTPRequestEntityTooLarge) as raised:
        json_body.read(_request(b'{"a": 10}'), max_body=8)
    assert 'the limit is 8 bytes' in raised.value.explanation
    with pytest.raises(webob.exc.HTTPRequestEntityTooLarge):
        json_body.read(_request(b'{"a": 10}', chunked=True), max_body=8)


@pytest.mark.parametrize(
    'content_type',
    [
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/xml',
        None,
    ],
    ids=['text', 'form', 'multipart', 'xml', 'none'],
)
def test_a_body_not_declared_json_is_415(content_type) -> None:
    req = webob.Request.blank('/v1/nodes', method='POST', body=b'{"a": 1}')
    if content_type is None:
        req.environ.pop('CONTENT_TYPE', None)
    else:
        req.content_type = content_type
    with pytest.raises(webob.exc.HTTPUnsupportedMediaType) as raised:
        json_body.read(req)
    assert 'Unsupported Content-Type' in raised.value.explanation


@pytest.mark.parametrize(
    'content_type',
    [
        'application/json',
        'application/json; charset=UTF-8',
        'application/vnd.openstack.compute+json',
        'application/openstack-images-v2.1-json-patch',
    ],
)
def test_json_types_are_read(content_type) -> None:
    req = webob.Request.blank('/v1/nodes', method='POST', body=b'{"a": 1}')
    req.content_type = content_type
    assert json_body.read(req) == {'a': 1}
