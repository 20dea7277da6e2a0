"""What a request writes to the log cannot forge a line, and a log line
never carries the identity of an earlier request on the same thread."""

import logging

from oslo_context import context as oslo_context
import webob

from lite_common import context as lite_context
from lite_common.tests.test_auth import _basic
from lite_common.wsgi import auth
from lite_common.wsgi import request_log
from lite_common.wsgi import text


class Capture(logging.Handler):
    """Records each message with the context current when it was
    logged (what oslo.log's formatter puts in the line)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[tuple[str, object]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append((record.getMessage(), oslo_context.get_current()))


def _captured(name: str) -> Capture:
    handler = Capture()
    logger = logging.getLogger(name)
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    return handler


def _ok(environ, start_response):
    return webob.Response(body=b'ok')(environ, start_response)


def test_control_characters_in_a_path_cannot_forge_a_line():
    capture = _captured('lite_common.wsgi.request_log')
    app = request_log.RequestLog(_ok)
    forged = (
        '/v2.1/servers\n2026-11-24 12:00:00.000 1 INFO fake '
        '[-] admin logged in\r\x1b[2J'
    )
    webob.Request.blank('/', environ={'PATH_INFO': forged}).get_response(app)
    [(line, _)] = [entry for entry in capture.lines if 'servers' in entry[0]]
    assert '\n' not in line and '\r' not in line and '\x1b' not in line
    assert '\\n2026-11-24' in line and '\\x1b[2J' in line


def test_printable_escapes_every_control_character():
    assert text.printable('a\x00b\x7fc\x85d\u2028e\tf') == (
        'a\\x00b\\x7fc\\x85d\\u2028e\\tf'
    )
    assert text.printable('plain ü') == 'plain ü'


def test_a_failed_login_is_not_logged_as_the_previous_user(tmp_path):
    from lite_common.tests.test_auth import _hash

    path = tmp_path / 'htpasswd'
    path.write_text(f'admin:{_hash("admin-secret")}\n')
    capture = _captured('lite_common.wsgi.auth')

    def protected(environ, start_response):
        lite_context.RequestContext.from_environ(environ)  # as upstream
        return _ok(environ, start_response)

    app = request_log.RequestLog(
        auth.BasicAuth(protected, str(path), admin_users=['admin'])
    )
    first = webob.Request.blank(
        '/', headers={'Authorization': _basic('admin', 'admin-secret')}
    )
    assert first.get_response(app).status_int == 200
    assert oslo_context.get_current().user_id == 'admin'

    second = webob.Request.blank(
        '/', headers={'Authorization': _basic('admin\nforged', 'wrong')}
    )
    try:
        second.get_response(app)
    except webob.exc.HTTPUnauthorized:
        pass
    [(line, ctx)] = [entry for entry in capture.lines if 'failed' in entry[0]]
    assert ctx is not None and ctx.user_id is None
    assert ctx.request_id == second.environ['openstack.request_id']
    assert '\n' not in line and 'admin\\nforged' in line
