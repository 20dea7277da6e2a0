"""[database] options of both services beside oslo.db's own.

How long a transient database error is waited out
(:mod:`lite_common.db_retry`) and how long an unused connection stays
open. The pool sizes are oslo.db's options, with stacklite's defaults
(:func:`lite_common.db.set_defaults`); doc/source/admin/database.rst
says how to size them against the server's ``max_connections``.
"""

from oslo_config import cfg

from lite_common import db_retry

GROUP = 'database'

database_opts: list[cfg.Opt] = [
    cfg.FloatOpt(
        'request_retry_timeout',
        default=db_retry.REQUEST_RETRY_TIMEOUT,
        min=0,
        help='Seconds an API request keeps retrying a transient database '
        'error (a connection lost or refused, the connection limit of the '
        'server or of the database user reached, no free connection in '
        'the pool, a deadlock) before it is answered 503 with '
        'Retry-After. A request is only repeated where that is safe: '
        'while none of its changes can have been stored.',
    ),
    cfg.FloatOpt(
        'flow_retry_timeout',
        default=db_retry.FLOW_RETRY_TIMEOUT,
        min=0,
        help='Seconds a conductor (its flows, periodic tasks and answers '
        'to RPC calls) keeps retrying a transient database error before '
        'the work fails. A cleaning, deploy or build waits for the '
        'database this long, then fails with an error that says '
        '"database" (recorded once the database is back).',
    ),
    cfg.IntOpt(
        'idle_connection_timeout',
        default=60,
        min=0,
        help='Seconds after which the database server closes a pooled '
        'connection nobody used (MariaDB/MySQL wait_timeout, PostgreSQL '
        'idle_session_timeout, set on each connection): a process keeps '
        "open only the connections its load needs. 0 keeps the server's "
        'setting.',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(database_opts, group=GROUP)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [(GROUP, database_opts)]
