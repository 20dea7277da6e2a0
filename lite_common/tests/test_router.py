"""The route table dispatcher."""

import pytest
import webob
import webob.exc

from lite_common.wsgi import microversion
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
    return router.Router(
        {
            '/servers': {
                'GET': _handler('index', seen),
                'POST': _handler('create', seen),
            },
            '/servers/detail': {'GET': _handler('detail', seen)},
            '/servers/{server_id}': {
                'GET': _handler('show', seen),
                'DELETE': _handler('delete', seen),
            },
            '/servers/{server_id}/action': {'POST': _handler('action', seen)},
        }
    )


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


def _versioned_app(seen):
    return router.Router(
        {
            '/things': {
                'GET': router.Versioned(_handler('list', seen), since='1.5'),
                'POST': router.Versioned(
                    _handler('create', seen), since='1.5', until='1.9'
                ),
            },
            '/things/old': {
                'GET': router.Versioned(_handler('old', seen), until='1.2')
            },
            '/other': {'GET': router.Versioned(_handler('other', seen))},
        }
    )


def _at(app, path, version, method='GET'):
    req = webob.Request.blank(path, method=method)
    if version is not None:
        req.environ[microversion.ENV_KEY] = microversion.APIVersion.parse(
            version
        )
    return req.get_response(app)


@pytest.mark.parametrize(
    'method,path,version',
    [
        ('GET', '/things', '1.5'),
        ('GET', '/things', '1.99'),
        ('HEAD', '/things', '1.5'),
        ('POST', '/things', '1.5'),
        ('POST', '/things', '1.9'),
        ('GET', '/things/old', '1.1'),
        ('GET', '/things/old', '1.2'),
        ('GET', '/other', '1.1'),
    ],
)
def test_a_versioned_route_serves_its_range(seen, method, path, version):
    assert _at(_versioned_app(seen), path, version, method).status_int == 200
    assert len(seen) == 1


@pytest.mark.parametrize(
    'method,path,version',
    [
        ('GET', '/things', '1.4'),
        ('HEAD', '/things', '1.1'),
        ('POST', '/things', '1.4'),
        ('POST', '/things', '1.10'),
        ('GET', '/things/old', '1.3'),
    ],
)
def test_a_versioned_route_is_not_found_outside_its_range(
    seen, method, path, version
):
    with pytest.raises(webob.exc.HTTPNotFound) as err:
        _at(_versioned_app(seen), path, version, method)
    assert err.value.explanation == (
        f'The resource {path} could not be found.'
    )
    assert seen == []


def test_a_versioned_route_without_microversions_is_served(seen):
    """An application without the microversion middleware."""
    assert _at(_versioned_app(seen), '/things', None).status_int == 200


def test_versioned_gives_a_plain_handler_no_bounds():
    def handler(req):
        return webob.Response()

    assert router.versioned(handler) == router.Versioned(handler)
    route = router.Versioned(handler, since='2.3')
    assert router.versioned(route) is route


def test_a_handler_may_answer_outside_its_range_itself(seen):
    """Upstream's 405 or 406 below a version, or its policy check first:
    the range is for the document only."""
    app = router.Router(
        {
            '/things': {
                'GET': router.Versioned(
                    _handler('list', seen), since='1.5', answers_outside=True
                )
            }
        }
    )
    assert _at(app, '/things', '1.1').body == b'list'


class _DomainError(Exception):
    pass


def _translate(handler):
    def translated(req):
        try:
            return handler(req)
        except _DomainError as exc:
            raise webob.exc.HTTPConflict(explanation=str(exc)) from None

    return translated


def _raising(req):
    raise _DomainError('busy')


@pytest.mark.parametrize(
    'route',
    [_raising, router.Versioned(_raising, since='2.1')],
    ids=['plain', 'versioned'],
)
def test_every_handler_runs_behind_the_translation(route):
    """No handler can forget the API's error translation: the router
    wraps each of the table's, plain or versioned."""
    app = router.Router({'/things': {'POST': route}}, _translate)
    req = webob.Request.blank('/things', method='POST')
    req.environ[microversion.ENV_KEY] = microversion.APIVersion(2, 5)
    with pytest.raises(webob.exc.HTTPConflict, match='busy'):
        app(req.environ, lambda *a: None)
