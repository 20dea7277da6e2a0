"""ironic-lite-dbsync: create or upgrade the ironic_lite schema.

    ironic-lite-dbsync [--config-file FILE] [upgrade|version]

``upgrade`` (the default) applies every migration (running it again is
a no-op); ``version`` prints the revision the database is at. Both read
``[database]connection``.
"""

import sys

from oslo_config import cfg
from oslo_db import exception as db_exc
from oslo_db import options as db_options
from oslo_log import log as logging
import sqlalchemy.exc

from ironic_lite import exception
from ironic_lite.db import api as db_api
from ironic_lite.db import migration
from lite_common import daemon
from lite_common import private
from lite_common.exception import DatabaseUnavailable

LOG = logging.getLogger(__name__)
PROG = 'ironic-lite-dbsync'
PROJECT = 'ironic-lite'

cli_opts = [
    cfg.StrOpt(
        'command',
        positional=True,
        required=False,
        default='upgrade',
        choices=['upgrade', 'version'],
        help='upgrade (the default): apply every migration; '
        'version: print the revision the database is at.',
    ),
]


def _upgrade(conf: cfg.ConfigOpts) -> None:
    engine = db_api.get_engine()
    migration.db_sync(engine)
    print(f'Database is at {migration.db_version(engine)}')


def _version(conf: cfg.ConfigOpts) -> None:
    print(migration.db_version(db_api.get_engine()) or 'None (empty)')


def _failure(exc: Exception) -> str | None:
    """The one line an operator reads for a known failure, else None."""
    if isinstance(exc, exception.ConfigError):
        return f'{PROG}: {exc}'
    cause = daemon.root_cause(exc)
    if isinstance(exc, (db_exc.DBConnectionError, DatabaseUnavailable)):
        return (
            f'{PROG} cannot connect to the database: {cause}. Check '
            f'[database]connection and that the server is up.'
        )
    if isinstance(exc, (db_exc.DBError, sqlalchemy.exc.SQLAlchemyError)):
        return f'{PROG}: database error: {cause}'
    return None


def main(
    argv: list[str] | None = None, conf: cfg.ConfigOpts | None = None
) -> int:
    private.restrict_umask()
    conf = conf if conf is not None else cfg.ConfigOpts()
    conf.register_cli_opts(cli_opts)
    db_options.set_defaults(conf)
    logging.register_options(conf)
    try:
        conf(
            sys.argv[1:] if argv is None else argv, project=PROJECT, prog=PROG
        )
    except cfg.Error as exc:
        print(f'{PROG}: invalid configuration: {exc}', file=sys.stderr)
        return 2
    logging.setup(conf, PROJECT)
    try:
        db_api.configure(conf, command=True)
        (_version if conf.command == 'version' else _upgrade)(conf)
    except Exception as exc:
        message = _failure(exc)
        if message is None:
            raise
        print(message, file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
