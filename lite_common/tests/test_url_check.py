"""URLs that are not UTF-8 are a 400 in the API's format."""

import json

import pytest
import webob

from lite_common.wsgi import faults
from lite_common.wsgi import url_check


def _formatter(status, message, req):
    return 'application/json', json.dumps(
        {'fault': {'code': status, 'message': message}}
    ).encode()


def _ok(environ, start_response):
    return webob.Response(body=b'ok')(environ, start_response)


@pytest.mark.parametrize(
    'path, query, bad',
    [
        ('/v2.1/servers/s1', 'limit=1', False),
        ('/v2.1/servers/\xe2\x98\x83', 'name=%E2%98%83', False),
        ('/v2.1/servers/\xff', '', True),
        ('/v2.1/servers', 'name=%FF', True),
        ('/v2.1/servers', '%C3=1', True),
        ('/v2.1/servers', 'name=\xff', True),
        (
            '/v2.1/servers/\u2603',
            '',
            True,
        ),  # not PEP 3333: webob cannot read it
        ('/v2.1/servers/a\x00b', '', True),  # NUL: PostgreSQL cannot hold it
        ('/v2.1/servers', 'name=a%00b', True),
    ],
)
def test_undecodable(path, query, bad):
    environ = {'PATH_INFO': path, 'QUERY_STRING': query}
    assert url_check.undecodable(environ) is bad


def test_a_bad_url_is_400_in_the_given_format():
    app = url_check.check_url(_ok, _formatter)
    resp = webob.Request.blank('/servers/%FF').get_response(app)
    assert resp.status_int == 400
    assert resp.json == {'fault': {'code': 400, 'message': url_check.MESSAGE}}
    assert (
        webob.Request.blank('/servers/%E2%98%83').get_response(app).body
        == b'ok'
    )


def test_fault_wrapper_logs_an_undecodable_path_without_failing():
    """The 500 of an unexpected error is rendered whatever the path."""

    def broken(environ, start_response):
        raise RuntimeError('boom')

    app = faults.FaultWrapper(broken, _formatter)
    resp = webob.Request.blank('/servers/%FF').get_response(app)
    assert resp.status_int == 500
    assert 'Unexpected API Error' in resp.json['fault']['message']


def test_url_text_never_fails():
    assert faults.url_text('/a/\xe2\x98\x83') == '/a/\u2603'
    assert faults.url_text('/a/\xff') == '/a/\\xff'
    assert faults.url_text('/a/\u2603') == '/a/\u2603'
