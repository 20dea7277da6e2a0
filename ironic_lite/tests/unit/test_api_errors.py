"""The Bare Metal error body and the status of ironic_lite exceptions."""

import json

import pytest
import webob
import webob.exc

from ironic_lite import exception
from ironic_lite.api import errors
from ironic_lite.api import util


def _inner(status: int, message: str) -> dict:
    content_type, body = errors.baremetal_error(
        status, message, webob.Request.blank('/')
    )
    assert content_type == 'application/json'
    outer = json.loads(body)
    assert list(outer) == ['error_message']
    return json.loads(outer['error_message'])


def test_client_error_body() -> None:
    assert _inner(404, 'Node x could not be found.') == {
        'faultcode': 'Client',
        'faultstring': 'Node x could not be found.',
        'debuginfo': None,
    }


def test_server_error_body() -> None:
    assert _inner(503, 'busy')['faultcode'] == 'Server'


@pytest.mark.parametrize(
    'exc, status',
    [
        (exception.NodeNotFound(node='n'), 404),
        (exception.NodeLocked(node='n', host='h'), 409),
        (exception.DuplicateName(name='n'), 409),
        (
            exception.InvalidStateRequested(action='a', node='n', state='s'),
            400,
        ),
        (exception.NodeInMaintenance(op='provide', node='n'), 400),
        (exception.NoFreeConductorWorker(), 503),
        (exception.NoValidHost(reason='r'), 400),
        (exception.NodeCleaningFailure(node='n', reason='r'), 500),
    ],
)
def test_http_error_follows_code(
    exc: exception.IronicLiteException, status: int
) -> None:
    error = util.http_error(exc)
    assert error.code == status
    assert error.explanation == exc.format_message()


def test_translate_errors_raises_the_http_error() -> None:
    @util.translate_errors
    def handler(req: webob.Request) -> webob.Response:
        raise exception.NodeLocked(node='n1', host='c1')

    with pytest.raises(webob.exc.HTTPConflict) as raised:
        handler(webob.Request.blank('/'))
    assert 'locked by host c1' in raised.value.explanation


def test_an_error_with_a_lone_surrogate_still_renders() -> None:
    """Rendering an error never fails, whatever text it carries."""
    inner = _inner(400, 'Node \ud800 could not be found.')
    assert inner['faultstring'] == 'Node \\ud800 could not be found.'
