"""Database trouble is waited out where that is safe, and is a 503 or
DatabaseUnavailable past its bound, never a 500 (issue 29: with a
MariaDB user limited to 6 connections, 40 parallel provide calls gave
13 x 500 and 14 failed cleanings).

Real MariaDB behind :class:`~lite_common.tests.db_proxy.DatabaseProxy`
(connections cut, refused, limited), real SQLite for the rest.
"""

import logging
import threading
import time
import uuid

from oslo_config import cfg
from oslo_db import exception as db_exc
from oslo_messaging.rpc import dispatcher
import pytest
import sqlalchemy as sa
import webob

from ironic_lite.api import errors as baremetal_errors
from lite_common import context as lite_context
from lite_common import db as lite_db
from lite_common import db_retry
from lite_common import exception
from lite_common import rpc
from lite_common import service
from lite_common.tests import backends
from lite_common.tests import db_proxy
from lite_common.wsgi import faults
from nova_lite.api import errors as compute_errors


@pytest.fixture
def mysql_name():
    """A new MariaDB database (root on the shared server); dropped."""
    name = f'stacklite_test_{uuid.uuid4().hex[:12]}'
    admin = sa.create_engine(
        f'{backends.MYSQL_SERVER}/',
        isolation_level='AUTOCOMMIT',
        poolclass=sa.pool.NullPool,
    )
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE {name}')
    yield name
    with admin.connect() as conn:
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS {name}')
    admin.dispose()


@pytest.fixture
def proxy():
    running = db_proxy.DatabaseProxy().start()
    yield running
    running.stop()


def _manager(url, **options):
    conf = cfg.ConfigOpts()
    lite_db.set_defaults(conf)
    conf([])
    conf.set_override('connection', url, group='database')
    conf.set_override('max_retries', 1, group='database')
    for name, value in options.items():
        conf.set_override(name, value, group='database')
    manager = lite_db.make_context_manager()
    lite_db.configure_database(manager, conf)
    return manager


@pytest.fixture
def proxied(mysql_name, proxy):
    """A context manager on the test database, through the proxy, with
    a table ``rows_``."""
    manager = _manager(proxy.url(f'{backends.MYSQL_SERVER}/{mysql_name}'))
    with manager.writer.get_engine().begin() as conn:
        conn.exec_driver_sql(
            'CREATE TABLE rows_ (id INTEGER PRIMARY KEY '
            'AUTO_INCREMENT, tag VARCHAR(32))'
        )
    yield manager
    manager.dispose_pool()
    db_retry.configure(
        db_retry.REQUEST_RETRY_TIMEOUT, db_retry.FLOW_RETRY_TIMEOUT
    )


def _context():
    return lite_context.RequestContext()


def _tags(manager):
    with manager.reader.using(_context()) as session:
        return sorted(
            session.execute(sa.text('SELECT tag FROM rows_')).scalars()
        )


# -- what is transient


def test_connection_and_limit_errors_are_transient_others_are_not(proxy):
    refused = sa.create_engine(
        'mysql+pymysql://root@127.0.0.1:1/x', poolclass=sa.pool.NullPool
    )
    with pytest.raises(sa.exc.OperationalError) as caught:
        refused.connect()
    assert db_retry.is_transient(caught.value)  # 2003
    proxy.limit(0)
    limited = sa.create_engine(
        proxy.url(f'{backends.MYSQL_SERVER}/'), poolclass=sa.pool.NullPool
    )
    with pytest.raises(sa.exc.OperationalError) as caught:
        limited.connect()
    assert '1040' in str(caught.value)
    assert db_retry.is_transient(caught.value)
    assert db_retry.is_transient(db_exc.DBDeadlock())
    assert db_retry.is_transient(sa.exc.TimeoutError('pool full'))
    assert not db_retry.is_transient(db_exc.DBDuplicateEntry())
    assert not db_retry.is_transient(ValueError('1040'))
    assert not db_retry.is_transient(
        exception.DatabaseUnavailable(reason='the end of a wait')
    )


def test_access_denied_is_not_transient():
    engine = sa.create_engine(
        'mysql+pymysql://nosuchuser:x@127.0.0.1/', poolclass=sa.pool.NullPool
    )
    with pytest.raises(sa.exc.OperationalError) as caught:
        engine.connect()
    assert not db_retry.is_transient(caught.value)


# -- the pool


def test_a_refused_connection_is_waited_for(proxied, proxy):
    proxied.dispose_pool()
    proxy.refuse()
    threading.Timer(0.6, proxy.accept).start()
    started = time.monotonic()
    with db_retry.bounded(20):
        assert _tags(proxied) == []
    assert 0.5 < time.monotonic() - started < 10


def test_the_pool_hands_over_a_connection_given_back(proxied, proxy):
    engine = proxied.writer.get_engine()
    proxied.dispose_pool()
    proxy.limit(2)
    held = [engine.connect(), engine.connect()]
    for conn in held:
        conn.exec_driver_sql('SELECT 1')
    threading.Timer(0.5, held[0].close).start()
    started = time.monotonic()
    with db_retry.bounded(20), engine.connect() as third:
        assert third.exec_driver_sql('SELECT 1').scalar() == 1
    # Given back after 0.5 s: taken at once, not at the next attempt.
    assert time.monotonic() - started < 3
    assert proxy.counts.limited >= 1
    held[1].close()


def test_past_the_bound_the_database_is_unavailable(proxied, proxy):
    proxied.dispose_pool()
    proxy.refuse()
    started = time.monotonic()
    with (
        db_retry.bounded(0.5),
        pytest.raises(exception.DatabaseUnavailable) as caught,
    ):
        _tags(proxied)
    assert 0.4 < time.monotonic() - started < 5
    assert 'OperationalError' in str(caught.value)


# -- the decorator


def _insert(manager, tag, between=None):
    with manager.writer.using(_context()) as session:
        session.execute(
            sa.text('INSERT INTO rows_ (tag) VALUES (:t)'), {'t': tag}
        )
        if between is not None:
            between()
        session.execute(sa.text('SELECT COUNT(*) FROM rows_'))


def test_a_transaction_cut_before_its_commit_runs_again(proxied, proxy):
    cuts = []

    def cut_once():
        if not cuts:
            cuts.append(proxy.cut())

    @db_retry.retried
    def insert(context):
        _insert(proxied, 'once', cut_once)

    insert(_context())
    assert cuts == [1]
    assert _tags(proxied) == ['once']  # rolled back, then stored once


def test_after_a_commit_a_lost_connection_is_not_repeated(proxied, proxy):
    attempts = []

    @db_retry.retried
    def insert_twice(context):
        attempts.append(1)
        _insert(proxied, 'stored')  # committed
        _insert(proxied, 'lost', proxy.cut)  # cut before its commit

    with pytest.raises(exception.DatabaseUnavailable) as caught:
        insert_twice(_context())
    assert len(attempts) == 1
    assert caught.value.kwargs['outcome_unknown']
    assert _tags(proxied) == ['stored']


def test_an_idempotent_function_is_repeated_after_a_commit(proxied, proxy):
    attempts = []

    @db_retry.retried(idempotent=True)
    def write_twice(context):
        attempts.append(1)
        with proxied.writer.using(context) as session:
            session.execute(sa.text('DELETE FROM rows_'))
        _insert(proxied, 'again', proxy.cut if len(attempts) == 1 else None)

    write_twice(_context())
    assert len(attempts) == 2
    assert _tags(proxied) == ['again']


def test_inside_a_transaction_only_the_outermost_call_repeats(proxied, proxy):
    inner_runs, outer_runs = [], []

    @db_retry.retried
    def inner(context):
        inner_runs.append(1)
        with proxied.writer.using(context) as session:
            session.execute(sa.text("INSERT INTO rows_ (tag) VALUES ('x')"))
            if len(inner_runs) == 1:
                proxy.cut()
            session.execute(sa.text('SELECT 1'))

    @db_retry.retried
    def outer(context):
        outer_runs.append(1)
        with proxied.writer.using(context):
            inner(context)

    outer(_context())
    assert (len(outer_runs), len(inner_runs)) == (2, 2)
    assert _tags(proxied) == ['x']


def test_other_errors_are_not_retried(tmp_path):
    manager = _manager(f'sqlite:///{tmp_path / "db.sqlite"}')
    runs = []

    @db_retry.retried
    def broken(context):
        runs.append(1)
        with manager.reader.using(context) as session:
            session.execute(sa.text('SELECT * FROM no_such_table'))

    with pytest.raises(db_exc.DBError):
        broken(_context())
    assert runs == [1]


# -- what callers get


def _app_raising(error):
    def app(environ, start_response):
        raise error

    return app


@pytest.mark.parametrize(
    'formatter,key',
    [
        (baremetal_errors.baremetal_error, 'error_message'),
        (compute_errors.compute_error, 'serviceUnavailable'),
    ],
)
def test_database_trouble_is_a_503_with_retry_after(formatter, key):
    for error in (
        exception.DatabaseUnavailable(reason='gone'),
        db_exc.DBConnectionError(),
        sa.exc.TimeoutError('QueuePool limit reached'),
    ):
        app = faults.FaultWrapper(_app_raising(error), formatter)
        response = webob.Request.blank('/v1/nodes').get_response(app)
        assert response.status_int == 503, response.body
        assert response.headers['Retry-After'] == str(faults.RETRY_AFTER)
        assert key in response.json
        assert 'database' in response.text


def test_every_503_says_when_to_come_back():
    app = faults.FaultWrapper(
        _app_raising(
            webob.exc.HTTPServiceUnavailable(explanation='no conductor')
        ),
        baremetal_errors.baremetal_error,
    )
    response = webob.Request.blank('/v1/nodes').get_response(app)
    assert response.status_int == 503
    assert response.headers['Retry-After'] == str(faults.RETRY_AFTER)


def test_a_lost_commit_says_so_in_the_503():
    error = exception.DatabaseUnavailable(reason='lost', outcome_unknown=True)
    app = faults.FaultWrapper(
        _app_raising(error), compute_errors.compute_error
    )
    body = webob.Request.blank('/v2.1/servers').get_response(app).json
    assert (
        'may or may not have been stored'
        in (body['serviceUnavailable']['message'])
    )


def test_a_request_waits_for_the_request_bound():
    seen = []

    def app(environ, start_response):
        seen.append(db_retry._bound())
        return webob.Response()(environ, start_response)

    db_retry.configure(1.5, 99.0)
    try:
        webob.Request.blank('/').get_response(
            faults.FaultWrapper(app, compute_errors.compute_error)
        )
        assert seen == [1.5]
        assert db_retry._bound() == 99.0
    finally:
        db_retry.configure(
            db_retry.REQUEST_RETRY_TIMEOUT, db_retry.FLOW_RETRY_TIMEOUT
        )


class _Endpoint:
    def __init__(self):
        self.bounds = []

    def work(self, context):
        self.bounds.append(db_retry._bound())
        raise db_exc.DBConnectionError()


def test_an_rpc_call_answers_database_unavailable_within_its_patience():
    serializer = rpc.RequestContextSerializer()
    with db_retry.calling(10):
        sent = serializer.serialize_context(_context())
    assert sent[rpc.DB_PATIENCE_KEY] == 5
    received = serializer.deserialize_context(sent)
    endpoint = _Endpoint()
    proxy = service._EndpointProxy(endpoint, service._no_context)
    with pytest.raises(dispatcher.ExpectedException) as caught:
        proxy.work(received)
    assert isinstance(caught.value.exc_info[1], exception.DatabaseUnavailable)
    # A cast carries no patience: its work waits for the flow bound.
    cast = serializer.deserialize_context(
        serializer.serialize_context(_context())
    )
    with pytest.raises(dispatcher.ExpectedException):
        proxy.work(cast)
    assert endpoint.bounds == [5, db_retry.FLOW_RETRY_TIMEOUT]


def test_an_idempotent_call_does_not_make_its_caller_unsafe(proxied, proxy):
    attempts = []

    @db_retry.retried(idempotent=True)
    def clear(context):
        with proxied.writer.using(context) as session:
            session.execute(sa.text('DELETE FROM rows_'))

    @db_retry.retried
    def clear_then_insert(context):
        attempts.append(1)
        clear(context)
        _insert(proxied, 'new', proxy.cut if len(attempts) == 1 else None)

    clear_then_insert(_context())
    assert len(attempts) == 2
    assert _tags(proxied) == ['new']


def test_a_conductor_is_asked_again_while_it_stored_nothing():
    answers = [
        exception.DatabaseUnavailable(reason='away'),
        exception.DatabaseUnavailable(reason='away'),
        'saved',
    ]

    def call():
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    with db_retry.bounded(20):
        assert db_retry.until_available('Instance.save', call) == 'saved'
    unknown = exception.DatabaseUnavailable(
        reason='lost', outcome_unknown=True
    )

    def lost():
        raise unknown

    with pytest.raises(exception.DatabaseUnavailable) as caught:
        db_retry.until_available('Instance.save', lost)
    assert caught.value is unknown


def test_past_its_bound_an_agent_gets_the_conductors_answer():
    away = exception.DatabaseUnavailable(reason='away')

    def call():
        raise away

    with (
        db_retry.bounded(0.3),
        pytest.raises(exception.DatabaseUnavailable) as caught,
    ):
        db_retry.until_available('Instance.save', call)
    assert caught.value is away


class _Writer:
    def __init__(self, manager):
        self.manager = manager

    def write_then_fail(self, context):
        _insert(self.manager, 'stored')
        raise db_exc.DBConnectionError()


def test_an_rpc_answer_after_a_stored_change_says_so(proxied):
    proxy = service._EndpointProxy(_Writer(proxied), service._no_context)
    with pytest.raises(dispatcher.ExpectedException) as caught:
        proxy.write_then_fail(_context())
    answer = caught.value.exc_info[1]
    assert answer.kwargs['outcome_unknown'], answer


def test_a_compare_and_swap_is_rechecked_after_an_unseen_commit(
    proxied, proxy
):
    seen = []

    @db_retry.retried(rechecks=True)
    def swap(context):
        seen.append(db_retry.rechecking())
        _insert(proxied, 'swapped')
        if len(seen) == 1:
            _insert(proxied, 'lost', proxy.cut)

    swap(_context())
    assert seen == [False, True]
    assert not db_retry.rechecking()


def test_a_connection_lost_as_it_is_given_back_is_a_warning(
    proxied, proxy, caplog
):
    conn = proxied.writer.get_engine().raw_connection()
    cursor = conn.cursor()
    cursor.execute('SELECT 1')  # a transaction is open
    cursor.close()
    proxy.cut()
    with caplog.at_level(logging.WARNING):
        conn.close()  # the pool's rollback fails
    lost = [r for r in caplog.records if 'given back' in r.getMessage()]
    assert lost and all(
        r.levelname == 'WARNING' and not r.exc_info for r in lost
    ), caplog.records
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
