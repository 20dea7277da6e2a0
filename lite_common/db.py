"""Database helpers shared by the service families.

Each family (nova_lite, ironic_lite) owns its schema, its alembic tree
and its own enginefacade transaction context made by
:func:`make_context_manager`.
"""

import datetime
import logging as logging_std
from pathlib import Path
from typing import Any

from alembic import command as alembic_command
from alembic import config as alembic_config
from alembic import migration as alembic_migration
import orjson
from oslo_config import cfg
from oslo_db import options as db_options
from oslo_db.sqlalchemy import enginefacade
from oslo_log import log as logging
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy import orm
from sqlalchemy import pool as sa_pool
from sqlalchemy.util import queue as sqla_queue

from lite_common import db_opts
from lite_common import db_retry
from lite_common import timestamps
from lite_common.context import RequestContext

LOG = logging.getLogger(__name__)

# The transactions of a process with a database keep their state on the
# request context: enginefacade's properties (session, connection,
# transaction), grafted here rather than where the context is defined,
# which compute agents import too (see lite_common.context).
enginefacade.transaction_context_provider(RequestContext)

SQLITE_BUSY_TIMEOUT_MS = 30000
#: ``[database]max_pool_size``, ``max_overflow`` and ``pool_timeout`` of
#: both services: at most 15 connections per process (oslo.db's
#: defaults allow 55), so that three bare metal conductors, both APIs
#: and the compute conductor fit a default MariaDB (``max_connections``
#: 151) with room to spare (doc/source/admin/database.rst). The pool is
#: last in, first out: a process under steady load reuses the same few
#: connections and those it stops needing sit unused until the server
#: closes them (``[database]idle_connection_timeout``), instead of all of
#: them being kept alive in turn. Up to ten stay pooled: a conductor's
#: tens of threads each hold one for a moment, and with fewer most of
#: them would be opened and closed again for every transaction (a TLS
#: handshake on MariaDB). A thread that finds all in use waits up to
#: ``pool_timeout`` seconds (unset: POOL_TIMEOUT), then the wait counts
#: as a transient error (:mod:`lite_common.db_retry`).
MAX_POOL_SIZE = 10
MAX_OVERFLOW = 5
POOL_TIMEOUT = 10
# Connections kept open to a SQLite file (more are opened under load).
SQLITE_POOL_SIZE = 8
#: Seconds a connection may sit idle inside an open transaction before
#: the database server ends it (MariaDB ``idle_transaction_timeout``,
#: PostgreSQL ``idle_in_transaction_session_timeout``). Our transactions
#: are milliseconds long; one that stays open is a process frozen in the
#: middle of it (SIGSTOP, a paused VM, a stuck thread), and the row locks
#: it holds would block every other service's writes to those rows for
#: as long as it stays frozen: with the default MariaDB settings, each
#: waiter fails after 50 s and the locks stay for hours. The server
#: rolls the frozen transaction back instead; the frozen process finds
#: its connection closed when it wakes up and its uncommitted work
#: undone (as after a crash), and the pool reconnects.
IDLE_TRANSACTION_TIMEOUT = 30
#: Seconds after which the server closes a connection nobody used
#: (``[database]idle_connection_timeout``, set by
#: :func:`configure_database` for the process).
IDLE_CONNECTION_TIMEOUT = 60


class JSONText(sa.types.TypeDecorator[Any]):
    """JSON kept as text: portable and stable for schema comparison."""

    impl = sa.Text
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Any) -> str | None:
        return None if value is None else orjson.dumps(value).decode()

    def process_result_value(self, value: Any, dialect: Any) -> Any:
        return None if value is None else orjson.loads(value)


def as_dict(row: Any) -> dict[str, Any]:
    """An ORM row as a plain dict keyed by column name."""
    mapper = sa.inspect(type(row))
    return {
        attr.columns[0].name: getattr(row, attr.key)
        for attr in mapper.column_attrs
    }


#: Naive UTC now (:func:`lite_common.timestamps.utcnow`).
utcnow = timestamps.utcnow


class TimestampMixin:
    created_at: orm.Mapped[datetime.datetime] = orm.mapped_column(
        sa.DateTime, default=utcnow, nullable=False
    )
    updated_at: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        sa.DateTime, onupdate=utcnow, nullable=True
    )


class SoftDeleteMixin:
    """``deleted`` is 0 while the row lives and its id once deleted.

    Keeping the id (not a boolean) lets unique constraints include
    ``deleted`` so that a name can be reused after a delete.
    """

    deleted_at: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        sa.DateTime, nullable=True
    )
    deleted: orm.Mapped[int] = orm.mapped_column(
        sa.Integer, default=0, nullable=False
    )


def _pool_sqlite_file(engine: sa.engine.Engine) -> None:
    """Keep SQLite file connections open between transactions.

    oslo.db gives SQLite files a NullPool: every transaction would
    open the file again and repeat the PRAGMAs below, which costs more
    than most of our queries. A QueuePool keeps the listeners oslo.db
    attached to the old pool (they travel in its dispatch).
    """
    if engine.url.database in (None, '', ':memory:'):
        return
    old = engine.pool
    if not isinstance(old, sa_pool.NullPool):
        return
    engine.pool = sa_pool.QueuePool(
        old._creator,
        pool_size=SQLITE_POOL_SIZE,
        max_overflow=-1,
        dialect=old._dialect,
        _dispatch=old.dispatch,
    )
    old.dispose()


def _tune_sqlite(engine: sa.engine.Engine) -> None:
    """A pool, WAL, a busy timeout, foreign keys and write-ahead
    transactions.

    Every transaction starts with ``BEGIN IMMEDIATE`` so that two
    threads never both hold a read snapshot and then race to write,
    which SQLite answers with an immediate "database is locked".
    """
    _pool_sqlite_file(engine)

    @event.listens_for(engine, 'connect')
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        cursor = dbapi_conn.cursor()
        cursor.execute('PRAGMA busy_timeout = %d' % SQLITE_BUSY_TIMEOUT_MS)
        cursor.execute('PRAGMA foreign_keys = ON')
        if engine.url.database not in (None, '', ':memory:'):
            cursor.execute('PRAGMA journal_mode = WAL')
            cursor.execute('PRAGMA synchronous = NORMAL')
        cursor.close()

    # oslo.db emits a plain (deferred) BEGIN from its own listener;
    # replace it, keeping its in_transaction marker protocol.
    for listener in list(engine.dispatch.begin):
        if getattr(listener, '__name__', '') == '_sqlite_emit_begin':
            event.remove(engine, 'begin', listener)

    @event.listens_for(engine, 'begin')
    def _on_begin(conn: Any) -> None:
        if 'in_transaction' not in conn.info:
            conn.exec_driver_sql('BEGIN IMMEDIATE')
            conn.info['in_transaction'] = True

    # oslo.db tests a connection before the hooks run: drop it so that
    # every pooled connection is set up by the listeners above.
    engine.dispose()


def idle_transaction_statement(dialect: str, seconds: int) -> str | None:
    """The session setting that makes the server end a transaction left
    idle for ``seconds`` (None: the backend has none)."""
    if dialect == 'mysql':
        return f'SET SESSION idle_transaction_timeout = {int(seconds)}'
    if dialect == 'postgresql':
        return (
            'SET SESSION idle_in_transaction_session_timeout = '
            f'{int(seconds) * 1000}'
        )
    return None


def idle_connection_statement(dialect: str, seconds: int) -> str | None:
    """The session setting that makes the server close the connection
    once unused for ``seconds`` (None: the backend has none)."""
    if dialect == 'mysql':
        return f'SET SESSION wait_timeout = {int(seconds)}'
    if dialect == 'postgresql':
        return f'SET SESSION idle_session_timeout = {int(seconds) * 1000}'
    return None


def _set_on_connect(
    engine: sa.engine.Engine, statement: str | None, missing: str
) -> None:
    """Run ``statement`` on every new connection; a server without the
    setting is logged once (``missing`` says what that costs) and left
    as it is."""
    if statement is None:
        return
    unsupported: list[str] = []

    @event.listens_for(engine, 'connect')
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        if unsupported:
            return
        cursor = dbapi_conn.cursor()
        try:
            cursor.execute(statement)
            # PostgreSQL opened a transaction for it; a rollback would
            # undo the setting.
            dbapi_conn.commit()
        except Exception as exc:  # the DB-API's own error classes
            unsupported.append(str(exc))
            LOG.warning(
                'The database server refused %s (%s): %s',
                statement,
                exc,
                missing,
            )
            dbapi_conn.rollback()
        finally:
            cursor.close()


def _bound_idle_transactions(engine: sa.engine.Engine) -> None:
    """Every new connection gets :data:`IDLE_TRANSACTION_TIMEOUT` (MySQL
    has no such setting)."""
    if IDLE_TRANSACTION_TIMEOUT:
        _set_on_connect(
            engine,
            idle_transaction_statement(
                engine.dialect.name, IDLE_TRANSACTION_TIMEOUT
            ),
            'a process frozen inside a transaction holds its row locks '
            'until it wakes up',
        )


def _bound_idle_connections(engine: sa.engine.Engine) -> None:
    """Every new connection gets :data:`IDLE_CONNECTION_TIMEOUT`."""
    if IDLE_CONNECTION_TIMEOUT:
        _set_on_connect(
            engine,
            idle_connection_statement(
                engine.dialect.name, IDLE_CONNECTION_TIMEOUT
            ),
            'unused pooled connections stay open',
        )


class WaitingQueuePool(sa_pool.QueuePool):
    """A queue pool that waits out a refused connection (the server's or
    the user's connection limit reached, the server restarting) for the
    thread's bound (:func:`lite_common.db_retry.until_connected`),
    taking a connection another thread gives back meanwhile."""

    # It logs as SQLAlchemy's own pools (the services quiet sqlalchemy.*;
    # a logger of this module would log every checkout in debug mode).
    __module__ = 'sqlalchemy.pool.impl'

    def _do_get(self) -> Any:
        return db_retry.until_connected(super()._do_get, self._returned)

    def _returned(self, seconds: float) -> Any:
        try:
            return self._pool.get(True, seconds)
        except sqla_queue.Empty:
            return None


class _LostOnReturn(logging_std.Filter):
    """SQLAlchemy logs a connection lost while it was given back to the
    pool (its rollback failed) at ERROR with a traceback; after a
    database restart that is every pooled connection, and the pool
    simply replaces it. A warning of one line instead."""

    def filter(self, record: logging_std.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if (
            str(record.msg).startswith('Exception during reset')
            and exc is not None
            and db_retry.is_transient(exc)
        ):
            record.levelno, record.levelname = (logging_std.WARNING, 'WARNING')
            record.msg = (
                'A pooled connection was lost as it was given '
                'back (it will be replaced): %s'
            )
            record.args = (exc,)
            record.exc_info = record.exc_text = None
        return True


def _quiet_lost_on_return() -> None:
    """Install :class:`_LostOnReturn` on the pool's logger (once)."""
    logger = logging_std.getLogger(
        f'{WaitingQueuePool.__module__}.{WaitingQueuePool.__name__}'
    )
    if not any(isinstance(f, _LostOnReturn) for f in logger.filters):
        logger.addFilter(_LostOnReturn())


def _waiting_lifo_pool(engine: sa.engine.Engine) -> None:
    """The engine's pool as a :class:`WaitingQueuePool`, last in first
    out; its settings and listeners (in its dispatch) are kept."""
    old = engine.pool
    if not isinstance(old, sa_pool.QueuePool):
        return
    _quiet_lost_on_return()
    engine.pool = WaitingQueuePool(
        old._creator,
        pool_size=old.size(),
        max_overflow=old._max_overflow,
        timeout=old._timeout,
        recycle=old._recycle,
        pre_ping=old._pre_ping,
        use_lifo=True,
        reset_on_return=old._reset_on_return,
        echo=old.echo,
        logging_name=old._orig_logging_name,
        dialect=old._dialect,
        _dispatch=old.dispatch,
    )
    old.dispose()


def make_context_manager() -> Any:
    """A new enginefacade transaction context for one schema.

    ``thread_checkin`` is off: it makes every connection check-in a
    ``time.sleep(0)`` so that eventlet green threads take turns; with
    native threads it only hands the GIL away in the middle of a
    request. Every engine counts its committed writes for
    :func:`lite_common.db_retry.retried`.
    """
    manager = enginefacade.transaction_context()
    manager.configure(thread_checkin=False)

    def _on_engine_create(engine: sa.engine.Engine) -> None:
        if engine.dialect.name == 'sqlite':
            _tune_sqlite(engine)
        else:
            _waiting_lifo_pool(engine)
            _bound_idle_transactions(engine)
            _bound_idle_connections(engine)
            # oslo.db tested a connection before these hooks: drop it so
            # that every pooled connection gets the settings above.
            engine.dispose()
        db_retry.track_commits(engine)

    manager.append_on_engine_create(_on_engine_create)
    return manager


def alembic_cfg(script_location: Path, url: str) -> alembic_config.Config:
    config = alembic_config.Config()
    config.set_main_option('script_location', str(script_location))
    config.set_main_option('sqlalchemy.url', url.replace('%', '%%'))
    return config


def upgrade(
    script_location: Path, engine: sa.engine.Engine, revision: str = 'head'
) -> None:
    """Apply the alembic migrations up to ``revision``."""
    config = alembic_cfg(script_location, engine.url.render_as_string(False))
    with engine.begin() as connection:
        config.attributes['connection'] = connection
        alembic_command.upgrade(config, revision)


def current_version(engine: sa.engine.Engine) -> str | None:
    """The alembic revision the database is at, None when empty."""
    with engine.connect() as connection:
        context = alembic_migration.MigrationContext.configure(connection)
        return context.get_current_revision()


def run_alembic_env(metadata: sa.MetaData) -> None:
    """The body of a family's alembic ``env.py``: migrate online on the
    connection handed over in ``config.attributes['connection']`` (how
    db sync calls alembic) or on ``sqlalchemy.url``."""
    from alembic import context

    config = context.config

    def migrate(connection: sa.Connection) -> None:
        context.configure(
            connection=connection,
            target_metadata=metadata,
            render_as_batch=True,
        )
        with context.begin_transaction():
            context.run_migrations()

    connection = config.attributes.get('connection')
    if connection is not None:
        migrate(connection)
        return
    url = config.get_main_option('sqlalchemy.url')
    if not url:
        raise RuntimeError('alembic: no connection and no sqlalchemy.url')
    with sa.create_engine(url).begin() as connection:
        migrate(connection)


def configure_database(
    context_manager: Any, conf: Any, command: bool = False
) -> None:
    """Point ``context_manager`` at ``[database]connection`` (which the
    caller has checked is set) with its pool and retry options.

    ``command``: a command an operator runs and waits for (dbsync,
    manage, status): its transient database errors are waited out for
    ``[database]request_retry_timeout`` seconds, as an API request's,
    not for the flow bound of a daemon (minutes), so that a server
    that is down is a clear error within seconds."""
    global IDLE_CONNECTION_TIMEOUT
    db_opts.register_opts(conf)  # for tools that register oslo.db's only
    database = conf.database
    IDLE_CONNECTION_TIMEOUT = database.idle_connection_timeout
    db_retry.configure(
        database.request_retry_timeout,
        database.request_retry_timeout
        if command
        else database.flow_retry_timeout,
    )
    pool: dict[str, Any] = {}
    if not database.connection.startswith('sqlite'):
        # A SQLite file gets a pool of its own (_pool_sqlite_file).
        pool = {
            'max_pool_size': database.max_pool_size,
            'max_overflow': database.max_overflow,
            'pool_timeout': database.pool_timeout or POOL_TIMEOUT,
        }
    context_manager.configure(
        connection=database.connection,
        max_retries=database.max_retries,
        retry_interval=database.retry_interval,
        connection_recycle_time=database.connection_recycle_time,
        **pool,
    )


#: oslo.db's pool options with stacklite's defaults (see MAX_POOL_SIZE).
#: Not ``pool_timeout``: oslo.db's enginefacade also reads the global
#: configuration's options, and SQLite (no queue pool) refuses a pool
#: timeout; unset, it is POOL_TIMEOUT (configure_database).
_POOL_DEFAULTS = {'max_pool_size': MAX_POOL_SIZE, 'max_overflow': MAX_OVERFLOW}


def set_defaults(conf: cfg.ConfigOpts) -> None:
    """Register oslo.db's options and ours (:mod:`lite_common.db_opts`)
    on ``conf``, with stacklite's defaults."""
    db_options.set_defaults(conf, **_POOL_DEFAULTS)
    db_opts.register_opts(conf)


def set_sample_defaults() -> None:
    """The same defaults for oslo-config-generator (an
    ``oslo.config.opts.defaults`` entry point: it changes the option
    objects that oslo.db lists, in the generator's process only)."""
    cfg.set_defaults(db_options.database_opts, **_POOL_DEFAULTS)
