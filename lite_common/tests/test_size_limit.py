"""Request bodies above the limit are a 413, as oslo.middleware's."""

import io

import pytest
import webob
import webob.exc

from lite_common.wsgi import size_limit


def _echo(environ, start_response):
    body = webob.Request(environ).body_file.read()
    return webob.Response(body=body)(environ, start_response)


def _request(body, chunked=False):
    req = webob.Request.blank('/servers', method='POST')
    if chunked:
        req.environ['wsgi.input'] = io.BytesIO(body)
        req.environ['wsgi.input_terminated'] = True
        req.environ.pop('CONTENT_LENGTH', None)
    else:
        req.body = body
    return req


def test_default_is_upstream_default():
    assert size_limit.DEFAULT_MAX_REQUEST_BODY_SIZE == 114688


@pytest.mark.parametrize('chunked', [False, True])
def test_a_body_at_the_limit_passes(chunked):
    app = size_limit.limit_body_size(_echo, 10)
    assert _request(b'x' * 10, chunked).call_application(app)[2] == [b'x' * 10]


def test_a_larger_content_length_is_413_before_the_app():
    app = size_limit.limit_body_size(_echo, 10)
    with pytest.raises(webob.exc.HTTPRequestEntityTooLarge) as raised:
        _request(b'x' * 11).call_application(app)
    assert raised.value.explanation == (
        'Request is too large. Larger than max_request_body_size (10).'
    )


def test_a_larger_chunked_body_is_413_while_read():
    app = size_limit.limit_body_size(_echo, 10)
    with pytest.raises(webob.exc.HTTPRequestEntityTooLarge) as raised:
        _request(b'x' * 11, chunked=True).call_application(app)
    assert raised.value.explanation == ('Request is too large. Larger than 10')
