"""Transient database errors: which they are, waiting them out, and how
long.

A database restart, a connection killed on the server, a server or user
connection limit reached (MariaDB 1040, 1203, 1226), a pool with no
free connection, a deadlock: each says "not now", not "never". Each
service therefore retries them with backoff, for as long as its caller
may wait:

- an API request (:func:`serving_request`, entered by the fault
  wrapper) for ``[database]request_retry_timeout`` seconds, then the
  client gets a 503 with ``Retry-After``;
- a conductor's answer to an RPC call for half the caller's RPC
  timeout (:func:`calling`: the caller's patience travels in the RPC
  context, and :mod:`lite_common.service` applies it), then the caller
  gets DatabaseUnavailable: from the API, a 503;
- everything else (a conductor's flows and periodic tasks, RPC casts)
  for ``[database]flow_retry_timeout`` seconds, then
  :class:`~lite_common.exception.DatabaseUnavailable`: a flow fails
  with a message that says "database".

Two layers wait, under one deadline per thread (the first failure
starts it, nested waits share it):

- a pool whose new connection is refused tries again, and hands out a
  connection another thread gives back meanwhile
  (:func:`until_connected`, :class:`lite_common.db.WaitingQueuePool`):
  nothing was sent yet, every caller benefits;
- a database function decorated with :func:`retried` runs again after a
  transient error, when that is safe: no change was committed by the
  attempt (every committed write is counted per thread by the listeners
  of :func:`track_commits`) or the function says its second run is
  harmless (``idempotent=True``: its writes are conditional or write
  the same values again). A function called inside its caller's
  transaction is not run again (its caller's transaction is broken:
  the caller's own decorator retries the whole).

When the connection is lost during the commit of a change, whether it
was stored is unknown: a function that is not idempotent is then not
run again, and its caller gets DatabaseUnavailable saying so
(``outcome_unknown``). The same count tells an RPC endpoint and an API
request whether they stored something before the trouble
(:func:`commit_count`), and a compute agent sends its conductor a call
again only when it stored nothing (:func:`until_available`).

A compute agent, which has no database, runs this module too (its RPC
server and client): oslo.db and SQLAlchemy are therefore not imported
here, and their errors are recognised once the process has imported
them (:func:`_library_errors`: a process that never did meets none).
"""

from collections.abc import Callable
from collections.abc import Iterator
import contextlib
import functools
import random
import re
import sys
import threading
import time
from typing import TYPE_CHECKING
from typing import Any
from typing import NamedTuple
from typing import ParamSpec
from typing import TypeVar
from typing import overload

from oslo_log import log as logging

from lite_common import exception

if TYPE_CHECKING:
    import sqlalchemy as sa

LOG = logging.getLogger(__name__)

P = ParamSpec('P')
R = TypeVar('R')

#: MariaDB/MySQL error codes that mean "try again": too many
#: connections (1040), server shutting down (1053), user connection
#: limits (1203, 1226), lock wait timeout (1205), deadlock (1213),
#: connection killed (1927), cannot connect (2002, 2003), server gone or
#: connection lost (2006, 2013, 2055), disconnected for inactivity
#: (4031).
MYSQL_CODES = frozenset(
    {
        1040,
        1053,
        1203,
        1205,
        1213,
        1226,
        1927,
        2002,
        2003,
        2006,
        2013,
        2055,
        4031,
    }
)
#: PostgreSQL SQLSTATEs of the same: too many connections, the server
#: shutting down or starting, serialization failure, deadlock (the
#: connection exceptions, class 08, are matched by prefix).
POSTGRESQL_CODES = frozenset(
    {'53300', '57P01', '57P02', '57P03', '40001', '40P01'}
)
#: Seconds between attempts: the first, doubled each time up to the
#: last, each drawn at random below (so that waiting threads spread).
FIRST_DELAY = 0.05
MAX_DELAY = 2.0
#: Defaults of the bounds (the options of :mod:`lite_common.db_opts`).
REQUEST_RETRY_TIMEOUT = 5.0
FLOW_RETRY_TIMEOUT = 300.0


class _Bounds:
    request: float = REQUEST_RETRY_TIMEOUT
    flow: float = FLOW_RETRY_TIMEOUT


class _ThreadState(threading.local):
    #: Seconds this thread's work may wait (None: the flow bound).
    bound: float | None = None
    #: The timeout of the RPC call this thread is sending.
    calling: float | None = None
    #: When the current wait ends (monotonic; None: no wait yet).
    deadline: float | None = None
    #: The running function runs again after an unseen commit.
    rechecking: bool = False
    #: Committed write transactions of this thread, but those of
    #: functions marked idempotent (see :func:`commit_count`).
    commits: int = 0

    def __init__(self) -> None:
        #: Connections (by id) with a write not yet committed.
        self.writing: set[int] = set()


_BOUNDS = _Bounds()
_STATE = _ThreadState()


def configure(request_timeout: float, flow_timeout: float) -> None:
    """Set the bounds of this process (see the module docstring)."""
    _BOUNDS.request = request_timeout
    _BOUNDS.flow = flow_timeout


@contextlib.contextmanager
def bounded(seconds: float) -> Iterator[None]:
    """Transient errors of this thread's database calls are waited out
    for ``seconds`` at most within the block."""
    previous = _STATE.bound
    _STATE.bound = seconds
    try:
        yield
    finally:
        _STATE.bound = previous


def serving_request() -> contextlib.AbstractContextManager[None]:
    """The bound of an API request (:data:`_Bounds.request`)."""
    return bounded(_BOUNDS.request)


@contextlib.contextmanager
def calling(timeout: float | None) -> Iterator[None]:
    """This thread sends an RPC call and waits ``timeout`` seconds for
    the answer (see :func:`call_patience`; None: unknown)."""
    previous = _STATE.calling
    _STATE.calling = timeout
    try:
        yield
    finally:
        _STATE.calling = previous


def call_patience() -> float | None:
    """How long the server of the RPC call this thread is sending may
    wait for the database: half the call's timeout, so that it answers
    DatabaseUnavailable before the caller gives up on it (None: no call
    is being sent, a cast)."""
    return None if _STATE.calling is None else _STATE.calling / 2


def _bound() -> float:
    return _BOUNDS.flow if _STATE.bound is None else _STATE.bound


# -- which errors are transient


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc``, the DB-API error it wraps (oslo.db's inner exception,
    SQLAlchemy's ``orig``) and its causes, a few levels deep."""
    seen: list[BaseException] = []
    pending: list[BaseException | None] = [exc]
    while pending and len(seen) < 8:
        current = pending.pop(0)
        if current is None or any(current is s for s in seen):
            continue
        seen.append(current)
        yield current
        pending += [
            getattr(current, 'inner_exception', None),
            getattr(current, 'orig', None),
            current.__cause__,
            current.__context__,
        ]


def _dbapi_transient(exc: BaseException) -> bool:
    """A DB-API (driver) error that says "try again"."""
    args = getattr(exc, 'args', ())
    if args and isinstance(args[0], int):  # PyMySQL, mysqlclient
        return args[0] in MYSQL_CODES
    pgcode: Any = getattr(exc, 'pgcode', _NOTHING)  # psycopg2
    if pgcode is not _NOTHING:
        if pgcode is None:
            # No SQLSTATE: the connection itself failed.
            return type(exc).__name__ == 'OperationalError'
        return pgcode in POSTGRESQL_CODES or pgcode.startswith('08')
    text = str(exc)
    return type(exc).__name__ == 'OperationalError' and (
        'database is locked' in text
    )  # SQLite, busy


_NOTHING = object()


class _LibraryErrors(NamedTuple):
    #: Errors that say "try again" by their class.
    transient: tuple[type[BaseException], ...] = ()
    #: SQLAlchemy's DB-API error: transient when its connection was
    #: invalidated.
    dbapi: tuple[type[BaseException], ...] = ()
    #: The libraries' wrappers of a driver's error.
    wrappers: tuple[type[BaseException], ...] = ()


def _library_errors() -> _LibraryErrors:
    """The error classes of oslo.db and SQLAlchemy, of those this
    process has imported: a process that never imported one (a compute
    agent) cannot meet its errors, and is not made to import it to tell
    so."""
    transient: list[type[BaseException]] = []
    dbapi: list[type[BaseException]] = []
    wrappers: list[type[BaseException]] = []
    if 'oslo_db.exception' in sys.modules:
        from oslo_db import exception as db_exc

        transient += [db_exc.DBConnectionError, db_exc.DBDeadlock]
        wrappers.append(db_exc.DBError)
    if 'sqlalchemy.exc' in sys.modules:
        from sqlalchemy import exc as sa_exc

        transient.append(sa_exc.TimeoutError)
        dbapi.append(sa_exc.DBAPIError)
        wrappers.append(sa_exc.SQLAlchemyError)
    return _LibraryErrors(tuple(transient), tuple(dbapi), tuple(wrappers))


def is_transient(exc: BaseException) -> bool:
    """Whether ``exc`` (or what it wraps) is a database error that may
    go away by itself: see the module docstring. DatabaseUnavailable is
    not (it is the end of a wait)."""
    if isinstance(exc, exception.DatabaseUnavailable):
        return False
    errors = _library_errors()
    for cause in _causes(exc):
        if isinstance(cause, errors.transient):
            return True
        if isinstance(cause, errors.dbapi) and getattr(
            cause, 'connection_invalidated', False
        ):
            return True
        if _dbapi_transient(cause):
            return True
    return False


#: SQLAlchemy's pointer to its documentation, which ends its messages.
_BACKGROUND = re.compile(r'\(Background on this error at: [^)]*\)')


def _driver_error(exc: BaseException) -> BaseException:
    """The driver's own error under ``exc`` (its message has neither the
    statement nor its parameters, which may hold secrets), else
    ``exc``."""
    wrappers = _library_errors().wrappers
    for cause in _causes(exc):
        if not isinstance(cause, wrappers):
            return cause
    return exc


def unavailable(exc: BaseException) -> exception.DatabaseUnavailable:
    """The DatabaseUnavailable that ends a wait for ``exc`` (its message
    may become a node's ``last_error``)."""
    cause = _driver_error(exc)
    text = ' '.join(_BACKGROUND.sub('', str(cause)).split())[:300]
    return exception.DatabaseUnavailable(
        reason=f'{type(cause).__name__}: {text}'
    )


# -- waiting


def _delay(what: str, exc: BaseException, attempt: int) -> float:
    """Seconds to wait before attempt ``attempt + 1`` of ``what`` after
    the transient ``exc`` (inside :func:`_waiting`).

    :raises DatabaseUnavailable: the thread's deadline has passed.
    """
    remaining = (_STATE.deadline or 0.0) - time.monotonic()
    if remaining <= 0:
        LOG.warning(
            'Database call %(what)s: gave up after %(n)d attempts (%(err)s)',
            {'what': what, 'n': attempt, 'err': exc},
        )
        if isinstance(exc, exception.DatabaseUnavailable):
            raise exc
        raise unavailable(exc) from exc
    if attempt == 1:
        LOG.warning(
            'Database call %(what)s failed (%(err)s); trying again '
            'for up to %(left).0f s',
            {'what': what, 'err': exc, 'left': remaining},
        )
    else:
        LOG.debug(
            'Database call %(what)s: attempt %(n)d failed: %(err)s',
            {'what': what, 'n': attempt, 'err': exc},
        )
    ceiling = min(MAX_DELAY, FIRST_DELAY * 2 ** (attempt - 1))
    return min(remaining, random.uniform(ceiling / 2, ceiling))


@contextlib.contextmanager
def _waiting() -> Iterator[None]:
    """The thread's deadline for the block: started here unless an
    outer wait of the thread started it (one bound for nested waits)."""
    if _STATE.deadline is not None:
        yield
        return
    _STATE.deadline = time.monotonic() + _bound()
    try:
        yield
    finally:
        _STATE.deadline = None


def _sleep(seconds: float) -> None:
    time.sleep(seconds)


def _attempts(
    what: str,
    call: Callable[[], R],
    may_repeat: Callable[[BaseException], None],
    pause: Callable[[float], R | None] = _sleep,
    retryable: Callable[[BaseException], bool] = is_transient,
) -> R:
    """``call()`` until it returns or fails other than ``retryable``, or
    the deadline passes; ``may_repeat(exc)`` raises when a retryable
    ``exc`` must not lead to another attempt. ``pause(seconds)`` waits
    between attempts, and may return a result instead of waiting."""
    attempt = 0
    with contextlib.ExitStack() as waits:
        while True:
            try:
                return call()
            except Exception as exc:
                if not retryable(exc):
                    raise
                may_repeat(exc)
                if not attempt:
                    waits.enter_context(_waiting())
                attempt += 1
                result = pause(_delay(what, exc, attempt))
                if result is not None:
                    return result


def _always(_exc: BaseException) -> None:
    """Any transient error may be retried."""


def _not_a_pool_timeout(exc: BaseException) -> None:
    """A pool that stayed full for its whole timeout is not waited for
    again here (a caller's :func:`retried` may): only a pool, of a
    process that imported SQLAlchemy, waits for a connection."""
    from sqlalchemy import exc as sa_exc

    if isinstance(exc, sa_exc.TimeoutError):
        raise exc


def until_connected(
    checkout: Callable[[], R], returned: Callable[[float], R | None]
) -> R:
    """A pool's ``checkout()``, again after a refused connection, taking
    a connection another thread gives back meanwhile
    (``returned(seconds)``: one, or None after that long). A new
    connection has sent nothing: this is always safe."""
    return _attempts('connect', checkout, _not_a_pool_timeout, returned)


def _stored_nothing(exc: BaseException) -> bool:
    return isinstance(exc, exception.DatabaseUnavailable) and not (
        exc.kwargs.get('outcome_unknown')
    )


def until_available(what: str, call: Callable[[], R]) -> R:
    """``call()``, an RPC call to a conductor, again while it answers
    DatabaseUnavailable for a change it did not store, for this thread's
    bound: a compute agent's flow waits for its conductor's database as
    the conductor's own flows do (the agent has no database of its
    own)."""
    return _attempts(what, call, _always, retryable=_stored_nothing)


# -- what an attempt committed


def track_commits(engine: 'sa.engine.Engine') -> None:
    """Count this engine's committed write transactions per thread."""
    from sqlalchemy import event

    @event.listens_for(engine, 'before_cursor_execute')
    def _before(conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if _writes(statement):
            _STATE.writing.add(id(conn))

    @event.listens_for(engine, 'commit')
    def _commit(conn: Any) -> None:
        if id(conn) in _STATE.writing:
            _STATE.writing.discard(id(conn))
            _STATE.commits += 1

    @event.listens_for(engine, 'rollback')
    def _rollback(conn: Any) -> None:
        _STATE.writing.discard(id(conn))


#: Statements that change nothing (SELECT ... FOR UPDATE only locks).
_READS = (
    'SELECT',
    'SHOW',
    'BEGIN',
    'SET',
    'SAVEPOINT',
    'RELEASE',
    'ROLLBACK',
    'PRAGMA',
    'EXPLAIN',
)


def commit_count() -> int:
    """How many write transactions this thread has committed (those of
    functions marked idempotent excepted): compare two counts to know
    whether work in between stored anything."""
    return _STATE.commits


def _writes(statement: str) -> bool:
    return not statement.lstrip()[:9].upper().startswith(_READS)


# -- the decorator


def _in_transaction(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether the call's context (its first argument, or ``context``)
    is inside an enginefacade transaction on this thread."""
    context = kwargs.get('context', args[0] if args else None)
    scopes = getattr(context, '_enginefacade_context', None)
    return scopes is not None and hasattr(scopes, 'current')


def rechecking() -> bool:
    """Whether the running function runs again after an attempt whose
    commit went unseen (see ``retried(rechecks=True)``): a
    compare-and-swap that finds its own change in place has succeeded."""
    return _STATE.rechecking


def _unknown_outcome(
    what: str, exc: BaseException
) -> exception.DatabaseUnavailable:
    LOG.warning(
        'Database call %(what)s failed (%(err)s) after it '
        'committed a change: not running it again',
        {'what': what, 'err': exc},
    )
    return exception.DatabaseUnavailable(
        reason='the connection failed after a change was sent to be '
        f'committed: it may or may not be stored ({what}: '
        f'{type(exc).__name__})',
        outcome_unknown=True,
    )


def _run(
    func: Callable[P, R],
    idempotent: bool,
    rechecks: bool,
    *args: P.args,
    **kwargs: P.kwargs,
) -> R:
    if _in_transaction(args, kwargs):
        return func(*args, **kwargs)
    commits = 0
    recheck = False

    def attempt() -> R:
        nonlocal commits
        commits = _STATE.commits
        previous = _STATE.rechecking
        _STATE.rechecking = previous or recheck  # an outer one's too
        try:
            return func(*args, **kwargs)
        finally:
            _STATE.rechecking = previous

    def may_repeat(exc: BaseException) -> None:
        nonlocal recheck
        if _STATE.commits == commits or idempotent:
            return
        if not rechecks:
            raise _unknown_outcome(func.__qualname__, exc) from exc
        recheck = True

    result = _attempts(func.__qualname__, attempt, may_repeat)
    if idempotent:
        # Running it again is harmless: its writes do not make its
        # caller's retry unsafe.
        _STATE.commits = commits
    return result


@overload
def retried(func: Callable[P, R]) -> Callable[P, R]: ...


@overload
def retried(
    *, idempotent: bool = False, rechecks: bool = False
) -> Callable[[Callable[P, R]], Callable[P, R]]: ...


def retried(
    func: Callable[P, R] | None = None,
    *,
    idempotent: bool = False,
    rechecks: bool = False,
) -> Any:
    """Decorate a database function ``func(context, ...)`` that is one
    or more whole transactions: run it again after a transient error
    (see the module docstring). ``idempotent``: a second run is harmless
    even after a first whose commit went unseen. ``rechecks``: the
    function is a compare-and-swap that, run again after such a first
    run (:func:`rechecking`), succeeds when it finds its own change in
    place instead of reporting the conflict."""

    def decorate(inner: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(inner)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            return _run(inner, idempotent, rechecks, *args, **kwargs)

        wrapper.__db_retried__ = True  # type: ignore[attr-defined]
        return wrapper

    return decorate if func is None else decorate(func)
