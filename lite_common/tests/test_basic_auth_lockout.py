"""Strangers guessing a user's password never lock its owner out.

A real API server (waitress, the guarded channel) with http_basic, and
real connections from distinct loopback addresses (the whole of
127.0.0.0/8 is local on Linux): guessers hammer the ``admin`` user with
wrong passwords, concurrently, while its owner logs in from an address
of its own throughout, starting once the guessers have failed ten
times (before this process has verified the password). Every owner request must
be a 200; each guessing address gets at most its limit of bcrypt checks
(a 401 each), however many of its requests run at once.
"""

import base64
import collections
import http.client
import threading
import time

import bcrypt
import pytest
import webob

from lite_common.wsgi import auth
from lite_common.wsgi import basic_guard
from lite_common.wsgi import server

OWNER = '127.0.0.2'
GUESSERS = [f'127.0.0.{number}' for number in range(10, 18)]
#: Requests per guessing thread: bounded, whatever the timing.
GUESSES = 12
#: Failed checks before the owner's first login (more than any limit
#: per user name would allow).
FAILED_FIRST = 10


def _basic(user: str, password: str) -> str:
    token = base64.b64encode(f'{user}:{password}'.encode()).decode()
    return f'Basic {token}'


@pytest.fixture
def api(tmp_path, request):
    hashed = bcrypt.hashpw(b'secret', bcrypt.gensalt(rounds=6)).decode()
    path = tmp_path / 'htpasswd'
    path.write_text(f'admin:{hashed}\n')

    def ok(environ, start_response):
        return webob.Response(body=b'ok')(environ, start_response)

    def app(environ, start_response):
        try:
            return guarded(environ, start_response)
        except webob.exc.HTTPException as exc:
            return exc(environ, start_response)

    guarded = auth.BasicAuth(
        ok, str(path), ['admin'], trusted_proxies=getattr(request, 'param', [])
    )
    api = server.APIServer('lockout-test', app, '127.0.0.1', 0)
    api.start()
    yield api
    api.stop()


def _get(
    port: int, source: str, password: str, forwarded_for: str | None = None
) -> int:
    conn = http.client.HTTPConnection(
        '127.0.0.1', port, timeout=30, source_address=(source, 0)
    )
    headers = {'Authorization': _basic('admin', password)}
    if forwarded_for:
        headers['X-Forwarded-For'] = forwarded_for
    try:
        conn.request('GET', '/', headers=headers)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def _campaign(port: int, guess, own) -> tuple[dict, list[int]]:
    """Guessers (``guess(number, attempt)``) with two threads each, and
    the owner (``own()``) throughout; their statuses."""
    guessed: dict[int, collections.Counter] = collections.defaultdict(
        collections.Counter
    )
    owner: list[int] = []
    done = threading.Event()
    begun = threading.Event()
    lock = threading.Lock()

    def guesser(number: int, thread: int) -> None:
        for attempt in range(GUESSES):
            status = guess(number, f'{thread}-{attempt}')
            with lock:
                guessed[number][status] += 1
                if sum(c[401] for c in guessed.values()) >= FAILED_FIRST:
                    begun.set()
            time.sleep(0.05)

    def owner_loop() -> None:
        begun.wait(30)  # the guessers failed more than any limit
        deadline = time.monotonic() + 30
        while not done.is_set() and time.monotonic() < deadline:
            owner.append(own())
            time.sleep(0.05)

    threads = [
        threading.Thread(target=guesser, args=(number, thread))
        for number in range(len(GUESSERS))
        for thread in range(2)
    ]
    watcher = threading.Thread(target=owner_loop)
    watcher.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    done.set()
    watcher.join(60)
    return guessed, owner


def test_concurrent_guessers_never_lock_the_owner_out(api):
    port = api.bind_addr[1]
    guessed, owner = _campaign(
        port,
        lambda number, attempt: _get(
            port, GUESSERS[number], f'guess{attempt}'
        ),
        lambda: _get(port, OWNER, 'secret'),
    )
    assert len(owner) >= 5 and set(owner) == {200}, owner
    for statuses in guessed.values():
        assert set(statuses) <= {401, 429}, statuses
        # Two threads at once from one address: still its limit of
        # bcrypt checks, and the rest refused without one.
        assert statuses[401] == basic_guard.PAIR_ATTEMPTS, statuses
        assert statuses[429] == 2 * GUESSES - basic_guard.PAIR_ATTEMPTS


@pytest.mark.parametrize('api', [['127.0.0.1']], indirect=True)
def test_behind_a_proxy_the_guessers_and_the_owner_are_told_apart(api):
    """Everybody comes through one trusted proxy (127.0.0.1) that names
    the client in X-Forwarded-For; a guesser's own X-Forwarded-For
    entry (first) is not believed."""
    port = api.bind_addr[1]
    guessed, owner = _campaign(
        port,
        lambda number, attempt: _get(
            port,
            '127.0.0.1',
            f'guess{attempt}',
            forwarded_for=f'{OWNER}, 198.51.100.{number}',
        ),
        lambda: _get(port, '127.0.0.1', 'secret', forwarded_for=OWNER),
    )
    assert len(owner) >= 5 and set(owner) == {200}, owner
    for statuses in guessed.values():
        assert statuses[401] == basic_guard.PAIR_ATTEMPTS, statuses
