"""The route table dispatcher."""

import pytest
import webob
import webob.exc

from lite_common.wsgi import router


def _handler(name, seen):
    def handler(req):
        seen.append((name, req.method, dict(req.urlvars)))
        return webob.Response(body=name.encode())

    return handler


@pytest.fixture
def seen():
    return []


@pytest.fixture
def app(seen):
    return router.Router({
        '/servers': {'GET': _handler('index', seen),
                     'POST': _handler('create', seen)},
        '/servers/detail': {'GET': _handler('detail', seen)},
        '/servers/{server_id}': {'GET': _handler('show', seen),
                                 'DELETE': _handler('delete', seen)},
        '/servers/{server_id}/action': {'POST': _handler('action', seen)},
    })


def _call(app, path, method='GET'):
    return webob.Request.blank(path, method=method).get_response(app)


def test_dispatch_by_path_and_method(app, seen):
    assert _call(app, '/servers').body == b'index'
    assert _call(app, '/servers', 'POST').body == b'create'
    assert _call(app, '/servers/detail').body == b'detail'
    assert [s[0] for s in seen] == ['index', 'create', 'detail']


def test_urlvars_are_passed(app, seen):
    resp = _call(app, '/servers/abc-123', 'DELETE')
    assert resp.body == b'delete'
    assert seen == [('delete', 'DELETE', {'server_id': 'abc-123'})]
    seen.clear()
    _call(app, '/servers/xyz/action', 'POST')
    assert seen == [('action', 'POST', {'server_id': 'xyz'})]


@pytest.mark.parametrize('path', ['/flavors', '/servers/a/b/c', '/'])
def test_unknown_path_is_404(app, seen, path):
    with pytest.raises(webob.exc.HTTPNotFound) as err:
        _call(app, path)
    assert err.value.code == 404
    assert path in err.value.explanation
    assert seen == []


def test_wrong_method_is_405_with_allow(app, seen):
    with pytest.raises(webob.exc.HTTPMethodNotAllowed) as err:
        _call(app, '/servers/abc', 'PUT')
    assert err.value.code == 405
    assert err.value.headers['Allow'] == 'DELETE, GET, HEAD'
    assert 'PUT' in err.value.explanation

    with pytest.raises(webob.exc.HTTPMethodNotAllowed) as err:
        _call(app, '/servers', 'DELETE')
    assert err.value.headers['Allow'] == 'GET, HEAD, POST'

    with pytest.raises(webob.exc.HTTPMethodNotAllowed) as err:
        _call(app, '/servers/abc/action', 'GET')
    assert err.value.headers['Allow'] == 'POST'
    assert seen == []


def test_static_path_is_not_taken_by_a_variable(app, seen):
    """'/servers/detail' with a method it lacks is 405, not 'show'."""
    with pytest.raises(webob.exc.HTTPMethodNotAllowed) as err:
        _call(app, '/servers/detail', 'DELETE')
    assert err.value.headers['Allow'] == 'GET, HEAD'
    assert seen == []


def test_urlvars_are_decoded_from_utf8(app, seen):
    """Routes matches PEP 3333's latin-1 PATH_INFO; handlers get text."""
    _call(app, '/servers/caf%C3%A9%E2%98%83')
    assert seen == [('show', 'GET', {'server_id': 'caf\xe9\u2603'})]


def test_unknown_utf8_path_is_named_in_the_404(app):
    with pytest.raises(webob.exc.HTTPNotFound) as err:
        _call(app, '/%E2%98%83')
    assert err.value.explanation == 'The resource /\u2603 could not be found.'


def test_head_is_answered_as_get_without_a_body(app, seen):
    resp = _call(app, '/servers/abc', 'HEAD')
    assert resp.status_int == 200
    assert resp.body == b''
    assert resp.content_length == len(b'show')
    assert seen == [('show', 'HEAD', {'server_id': 'abc'})]


def test_head_where_there_is_no_get_is_405(app):
    with pytest.raises(webob.exc.HTTPMethodNotAllowed) as err:
        _call(app, '/servers/abc/action', 'HEAD')
    assert err.value.headers['Allow'] == 'POST'
    with pytest.raises(webob.exc.HTTPMethodNotAllowed) as err:
        _call(app, '/servers', 'PUT')
    assert err.value.headers['Allow'] == 'GET, HEAD, POST'
