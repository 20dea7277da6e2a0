"""A process frozen inside a transaction does not block the others for
long: the database server ends its transaction after
IDLE_TRANSACTION_TIMEOUT seconds (model test seed 21103: a conductor
paused while it updated a service row made the API's force-down of that
service wait 50 s and fail with a 500). Real MariaDB and PostgreSQL."""

import time

from oslo_db import exception as db_exc
import pytest

from lite_common import db as lite_db
from lite_common.tests.backends import db_url  # noqa: F401

TIMEOUT = 2


@pytest.fixture
def manager(db_url, monkeypatch):  # noqa: F811
    if db_url.startswith('sqlite'):
        pytest.skip('SQLite has one writer and no server to end it')
    monkeypatch.setattr(lite_db, 'IDLE_TRANSACTION_TIMEOUT', TIMEOUT)
    manager = lite_db.make_context_manager()
    manager.configure(connection=db_url)
    engine = manager.writer.get_engine()
    with engine.begin() as conn:
        conn.exec_driver_sql(
            'CREATE TABLE rows_ (id INTEGER PRIMARY KEY, n INTEGER)'
        )
        conn.exec_driver_sql('INSERT INTO rows_ VALUES (1, 0)')
    yield manager
    manager.dispose_pool()


def test_a_frozen_transaction_is_ended_and_the_waiter_goes_on(manager):
    engine = manager.writer.get_engine()
    frozen = engine.connect()
    transaction = frozen.begin()
    frozen.exec_driver_sql('UPDATE rows_ SET n = 1 WHERE id = 1')
    # "Frozen": the transaction stays open, the process does nothing.
    started = time.monotonic()
    with engine.begin() as conn:
        conn.exec_driver_sql('UPDATE rows_ SET n = 2 WHERE id = 1')
    waited = time.monotonic() - started
    assert TIMEOUT - 0.5 <= waited < TIMEOUT + 10, waited
    # The frozen process wakes up to a closed connection: its update
    # was rolled back, never half applied.
    with pytest.raises(db_exc.DBConnectionError):
        frozen.exec_driver_sql('UPDATE rows_ SET n = 3 WHERE id = 1')
        transaction.commit()
    frozen.invalidate()
    with engine.connect() as conn:
        assert (
            conn.exec_driver_sql('SELECT n FROM rows_ WHERE id = 1').scalar()
            == 2
        )


def test_short_transactions_are_not_touched(manager):
    engine = manager.writer.get_engine()
    for _ in range(3):
        with engine.begin() as conn:
            conn.exec_driver_sql('UPDATE rows_ SET n = n + 1 WHERE id = 1')
            time.sleep(TIMEOUT / 4)
    with engine.connect() as conn:
        assert (
            conn.exec_driver_sql('SELECT n FROM rows_ WHERE id = 1').scalar()
            == 3
        )


def test_the_setting_per_backend():
    assert lite_db.idle_transaction_statement('mysql', 30) == (
        'SET SESSION idle_transaction_timeout = 30'
    )
    assert lite_db.idle_transaction_statement('postgresql', 30) == (
        'SET SESSION idle_in_transaction_session_timeout = 30000'
    )
    assert lite_db.idle_transaction_statement('sqlite', 30) is None
