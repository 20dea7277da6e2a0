"""http_basic against password guessing: no 500 for long passwords, the
same bcrypt work for unknown users as for known ones, and throttling per
source and per user (bcrypt calls are counted, not timed)."""

import bcrypt
import pytest
import webob
import webob.exc

from lite_common.tests.test_auth import _basic
from lite_common.tests.test_auth import _hash
from lite_common.wsgi import auth
from lite_common.wsgi import basic_guard


class Counting:
    """bcrypt.checkpw, counted."""

    def __init__(self) -> None:
        self.calls = 0
        self.real = bcrypt.checkpw

    def __call__(self, password: bytes, hashed: bytes) -> bool:
        self.calls += 1
        return self.real(password, hashed)


@pytest.fixture
def checkpw(monkeypatch):
    counting = Counting()
    monkeypatch.setattr(auth.bcrypt, 'checkpw', counting)
    return counting


@pytest.fixture
def app(tmp_path):
    path = tmp_path / 'htpasswd'
    path.write_text(f'admin:{_hash("secret")}\nbob:{_hash("x" * 72)}\n')

    def ok(environ, start_response):
        return webob.Response(body=b'ok')(environ, start_response)

    return auth.BasicAuth(ok, str(path), admin_users=['admin'])


def _status(app, user, password, addr='192.0.2.1'):
    req = webob.Request.blank('/', headers={
        'Authorization': _basic(user, password)},
        environ={'REMOTE_ADDR': addr})
    try:
        response = req.get_response(app)
    except webob.exc.HTTPException as exc:
        return exc.code, exc.headers
    return response.status_int, response.headers


def test_a_password_over_72_bytes_is_a_401_not_a_500(app):
    assert _status(app, 'admin', 'y' * 73)[0] == 401
    assert _status(app, 'admin', 'é' * 40)[0] == 401     # 80 bytes
    # 72 bytes exactly is a password like any other.
    assert _status(app, 'bob', 'x' * 72)[0] == 200
    # Longer ones never match the first 72 bytes (bcrypt's limit).
    assert _status(app, 'bob', 'x' * 73)[0] == 401


def test_unknown_users_cost_the_same_bcrypt_work(app, checkpw):
    assert _status(app, 'nobody', 'guess')[0] == 401
    assert checkpw.calls == 1
    assert _status(app, 'admin', 'guess')[0] == 401
    assert checkpw.calls == 2


def test_a_source_that_keeps_failing_is_throttled(app, checkpw):
    for attempt in range(basic_guard.SOURCE_FAILURES):
        assert _status(app, f'user{attempt}', 'guess')[0] == 401
    calls = checkpw.calls
    status, headers = _status(app, 'admin', 'secret')
    assert status == 429 and int(headers['Retry-After']) >= 1
    assert checkpw.calls == calls      # no bcrypt spent on it
    # Other sources are not affected.
    assert _status(app, 'admin', 'secret', addr='192.0.2.2')[0] == 200


def test_a_guessed_user_is_throttled_but_its_known_password_works(
        app, checkpw):
    assert _status(app, 'admin', 'secret', addr='192.0.2.9')[0] == 200
    for attempt in range(basic_guard.USER_FAILURES):
        addr = f'198.51.100.{attempt}'
        assert _status(app, 'admin', f'guess{attempt}', addr=addr)[0] == 401
    calls = checkpw.calls
    assert _status(app, 'admin', 'another', addr='203.0.113.1')[0] == 429
    assert checkpw.calls == calls
    # Its owner, whose password this process has verified before, gets in.
    assert _status(app, 'admin', 'secret', addr='203.0.113.2')[0] == 200


def test_throttling_expires(monkeypatch):
    now = [1000.0]
    guard = basic_guard.Guard(clock=lambda: now[0])
    for _ in range(basic_guard.SOURCE_FAILURES):
        guard.failed('192.0.2.1', 'u')
    assert guard.retry_after('192.0.2.1', 'v') > 0
    now[0] += basic_guard.WINDOW + 1
    assert guard.retry_after('192.0.2.1', 'v') == 0


def test_the_tables_are_bounded():
    guard = basic_guard.Guard()
    for number in range(basic_guard.MAX_ENTRIES + 500):
        guard.failed(f'10.{number // 65536}.{number // 256 % 256}.'
                     f'{number % 256}', f'user{number}')
    assert len(guard.sources) <= basic_guard.MAX_ENTRIES
    assert len(guard.users) <= basic_guard.MAX_ENTRIES
