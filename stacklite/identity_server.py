"""The Keystone process of the all-in-one (started by
:mod:`stacklite.identity`, never by hand).

Upstream Keystone keeps its configuration in the global ``cfg.CONF``
(``keystone.conf.CONF`` and several modules read ``cfg.CONF`` itself)
and its managers in a process-wide registry that can be filled once, so
it cannot share a process with nova_lite, whose services read the same
global (``[database]`` alone would clash). It gets a process of its
own, which does what ``keystone-manage db_sync``, ``fernet_setup``,
``credential_setup`` and ``bootstrap`` do, through the same Python
functions, then serves Keystone's WSGI application with the project's
own waitress server (:class:`lite_common.wsgi.server.APIServer`) on the
socket the parent bound.

The protocol with the parent: the bootstrap plan arrives as one JSON
line on stdin (no password on a command line or in a file besides the
parent's own 0600 one); ``{"ready": true}`` goes back on stdout once
Keystone answers; end of stdin (the parent stopped it, or died) or
SIGTERM stops it.
"""

import argparse
import json
import signal
import socket
import sys
import time
from typing import Any

from lite_common import backend
from lite_common.context import RequestContext

backend.select_threading()

from oslo_log import log as logging  # noqa: E402

from lite_common import private  # noqa: E402

LOG = logging.getLogger(__name__)


def one_sqlite_writer_at_a_time() -> None:
    """Keystone's transactions on SQLite take the write lock when they
    begin (``BEGIN IMMEDIATE``), waiting up to 30 s for it.

    Keystone reads, then writes, in one transaction (a login reads the
    user, then writes its ``last_active_at``). SQLite lets two such
    transactions read at once, then fails the second writer at once
    with "database is locked" (no busy timeout helps a lock upgrade),
    which Keystone answers with a 500. Taken at the start, the lock is
    waited for. Installed on every engine of this process, which runs
    Keystone and nothing else.
    """
    import sqlite3

    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    def on_connect(dbapi_connection: Any, record: Any) -> None:
        if isinstance(dbapi_connection, sqlite3.Connection):
            dbapi_connection.execute('PRAGMA busy_timeout = 30000')

    def immediate(
        connection: Any,
        cursor: Any,
        statement: str,
        parameters: Any,
        context: RequestContext,
        executemany: bool,
    ) -> tuple[str, Any]:
        # oslo.db turns the driver's own transactions off on SQLite and
        # begins each with a plain BEGIN.
        if (
            connection.dialect.name == 'sqlite'
            and statement.strip().upper() == 'BEGIN'
        ):
            statement = 'BEGIN IMMEDIATE'
        return statement, parameters

    event.listen(Engine, 'connect', on_connect)
    event.listen(Engine, 'before_cursor_execute', immediate, retval=True)


def configure(config_file: str) -> Any:
    """Keystone's ``keystone.server.configure`` without reading our
    command line (it parses ``sys.argv``)."""
    from keystone.common import sql
    import keystone.conf

    keystone.conf.configure()
    sql.initialize()
    keystone.conf.set_config_defaults()
    conf = keystone.conf.CONF
    conf([], project='keystone', default_config_files=[config_file])
    keystone.conf.setup_logging()
    return conf


def _set_up_key_repositories(conf: Any) -> None:
    """``keystone-manage fernet_setup`` and ``credential_setup``: a
    0700 directory with 0600 keys, created once."""
    from keystone.common import fernet_utils
    from keystone.credential.providers import fernet as credential_fernet

    for group, max_active in (
        ('fernet_tokens', conf.fernet_tokens.max_active_keys),
        ('credential', credential_fernet.MAX_ACTIVE_KEYS),
    ):
        keys = fernet_utils.FernetUtils(
            getattr(conf, group).key_repository, max_active, group
        )
        keys.create_key_directory()
        if keys.validate_key_repository(requires_write=True):
            keys.initialize_key_repository()


def application() -> Any:
    """Keystone's WSGI application, as ``initialize_application`` builds
    it, on the managers the bootstrap loaded."""
    from keystone.common import profiler
    from keystone.server.flask import application
    from keystone.server.flask import core

    app = application.application_factory('public')
    profiler.setup('public')
    _load_policy()
    return core.setup_app_middleware(app)


def _load_policy() -> None:
    """Keystone makes its policy enforcer on the first request, and
    publishes it before it has registered its rules: a request of
    another thread in that moment is judged by no rules and refused
    (a 403 to an administrator). Made here, before any request."""
    from keystone.common.rbac_enforcer import policy

    # (policy.get_enforcer() would parse the configuration again, for
    # keystone's command-line tools.)
    policy._ENFORCER._enforcer.load_rules()


def _serve(app: Any, fd: int) -> Any:
    from lite_common.wsgi import server

    sock = socket.socket(fileno=fd)
    host, port = sock.getsockname()[:2]
    api = server.APIServer(
        'keystone', app, host, port, server.Settings(threads=8), sock=sock
    )
    api.start()
    return api


def _start(conf: Any, plan: dict[str, Any], fd: int) -> Any:
    from keystone.common.sql import upgrades

    from stacklite import identity_bootstrap

    steps = [
        ('database', upgrades.offline_sync_database_to_version),
        ('keys', lambda: _set_up_key_repositories(conf)),
        ('bootstrap', lambda: identity_bootstrap.apply(plan)),
        ('application', application),
    ]
    timings = []
    result = None
    for name, step in steps:
        started = time.monotonic()
        result = step()
        timings.append(f'{name} {time.monotonic() - started:.2f} s')
    LOG.info('keystone set up: %s', ', '.join(timings))
    return _serve(result, fd)


def _stop_on_sigterm(signum: int, frame: Any) -> None:
    raise SystemExit(0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog='stacklite-identity-server')
    parser.add_argument('--config-file', required=True)
    parser.add_argument(
        '--fd',
        type=int,
        required=True,
        help='The listening socket, bound by the parent.',
    )
    args = parser.parse_args(argv)
    private.restrict_umask()
    # Ctrl-C in the terminal is the parent's to handle: it stops us.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    plan = json.loads(sys.stdin.readline())
    one_sqlite_writer_at_a_time()
    conf = configure(args.config_file)
    try:
        api = _start(conf, plan, args.fd)
    except Exception as exc:
        LOG.exception('keystone cannot start')
        print(f'keystone cannot start: {exc}', file=sys.stderr, flush=True)
        return 1
    try:
        print(json.dumps({'ready': True}), flush=True)
        sys.stdin.read()
    finally:
        api.stop()
    return 0


if __name__ == '__main__':
    sys.exit(main())
