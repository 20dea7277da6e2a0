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
    req = webob.Request.blank(
        '/',
        headers={'Authorization': _basic(user, password)},
        environ={'REMOTE_ADDR': addr},
    )
    try:
        response = req.get_response(app)
    except webob.exc.HTTPException as exc:
        return exc.code, exc.headers
    return response.status_int, response.headers


def test_a_password_over_72_bytes_is_a_401_not_a_500(app):
    assert _status(app, 'admin', 'y' * 73)[0] == 401
    assert _status(app, 'admin', 'é' * 40)[0] == 401  # 80 bytes
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
    for attempt in range(basic_guard.SOURCE_ATTEMPTS):
        assert _status(app, f'user{attempt}', 'guess')[0] == 401
    calls = checkpw.calls
    status, headers = _status(app, 'admin', 'secret')
    assert status == 429 and int(headers['Retry-After']) >= 1
    assert checkpw.calls == calls  # no bcrypt spent on it
    # Other sources are not affected.
    assert _status(app, 'admin', 'secret', addr='192.0.2.2')[0] == 200


def test_a_source_guessing_one_user_is_throttled_for_it_sooner(app, checkpw):
    for attempt in range(basic_guard.PAIR_ATTEMPTS):
        assert _status(app, 'admin', f'guess{attempt}')[0] == 401
    assert _status(app, 'admin', 'secret')[0] == 429
    # The same source may still log in as somebody else.
    assert _status(app, 'bob', 'x' * 72)[0] == 200


def test_strangers_guessing_a_user_never_lock_its_owner_out(app, checkpw):
    """Any number of failures for a name, from other addresses, leave
    the owner's first login in this process (no verified password yet)
    and every later one a 200."""
    for attempt in range(50):
        addr = f'198.51.100.{attempt}'
        assert _status(app, 'admin', f'guess{attempt}', addr=addr)[0] == 401
    assert _status(app, 'admin', 'secret', addr='203.0.113.2')[0] == 200
    assert _status(app, 'admin', 'secret', addr='203.0.113.3')[0] == 200


def test_a_verified_password_is_never_throttled(app, checkpw):
    assert _status(app, 'admin', 'secret')[0] == 200
    for attempt in range(basic_guard.SOURCE_ATTEMPTS):
        _status(app, 'admin', f'guess{attempt}')
    assert _status(app, 'admin', 'guess')[0] == 429
    assert _status(app, 'admin', 'secret')[0] == 200


def test_a_successful_check_gives_its_count_back():
    guard = basic_guard.Guard()
    for _ in range(basic_guard.PAIR_ATTEMPTS * 3):
        guard.succeeded(guard.admit('192.0.2.1', 'u'))
    for _ in range(basic_guard.PAIR_ATTEMPTS):
        guard.admit('192.0.2.1', 'u')
    with pytest.raises(basic_guard.Throttled):
        guard.admit('192.0.2.1', 'u')


def test_checks_under_way_count_against_the_limit():
    """A check is counted when admitted: concurrent guessers cannot all
    pass before the first failure is recorded."""
    guard = basic_guard.Guard()
    tickets = [
        guard.admit('192.0.2.1', 'u') for _ in range(basic_guard.PAIR_ATTEMPTS)
    ]
    with pytest.raises(basic_guard.Throttled):
        guard.admit('192.0.2.1', 'u')
    guard.succeeded(tickets[0])
    guard.admit('192.0.2.1', 'u')


def test_throttling_expires():
    now = [1000.0]
    guard = basic_guard.Guard(clock=lambda: now[0])
    for number in range(basic_guard.SOURCE_ATTEMPTS):
        guard.admit('192.0.2.1', f'u{number}')
    with pytest.raises(basic_guard.Throttled) as throttled:
        guard.admit('192.0.2.1', 'v')
    assert throttled.value.retry_after == basic_guard.WINDOW
    now[0] += basic_guard.WINDOW + 1
    guard.admit('192.0.2.1', 'v')


def test_the_tables_are_bounded():
    guard = basic_guard.Guard()
    for number in range(basic_guard.MAX_ENTRIES + 500):
        guard.admit(
            f'10.{number // 65536}.{number // 256 % 256}.{number % 256}',
            f'user{number}',
        )
    assert len(guard.sources) <= basic_guard.MAX_ENTRIES
    assert len(guard.pairs) <= basic_guard.MAX_ENTRIES


PROXIES = basic_guard.parse_networks(['10.0.0.0/8', '192.0.2.10'])


@pytest.mark.parametrize(
    'peer,forwarded,source',
    [
        # No proxy in between: the peer, whatever the client wrote.
        ('203.0.113.5', '198.51.100.1', '203.0.113.5'),
        # A trusted proxy: the address it appended.
        ('10.1.2.3', '198.51.100.1', '198.51.100.1'),
        # What the client wrote itself (first) is not believed.
        ('10.1.2.3', '1.2.3.4, 198.51.100.1', '198.51.100.1'),
        # Two trusted proxies in a row.
        ('192.0.2.10', '198.51.100.1, 10.9.9.9', '198.51.100.1'),
        # A trusted proxy that sent no header.
        ('10.1.2.3', None, '10.1.2.3'),
    ],
)
def test_the_source_behind_trusted_proxies(peer, forwarded, source):
    assert basic_guard.client_address(peer, forwarded, PROXIES) == source


def test_a_bad_trusted_proxy_is_a_clear_error(tmp_path):
    path = tmp_path / 'htpasswd'
    path.write_text(f'admin:{_hash("secret")}\n')
    with pytest.raises(RuntimeError, match='http_basic_trusted_proxies'):
        auth.BasicAuth(
            None, str(path), ['admin'], trusted_proxies=['proxy.example.com']
        )
