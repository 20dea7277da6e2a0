"""The schema command of a service (``ironic-lite-dbsync``,
``neutron-lite-db-manage``): ``upgrade`` (the default) applies every
migration, running it again is a no-op; ``version`` prints the revision
the database is at. A known failure is one line on stderr and exit 1.
"""

from collections.abc import Callable
import dataclasses
import sys

from oslo_config import cfg
from oslo_db import exception as db_exc
from oslo_db import options as db_options
from oslo_log import log as logging
import sqlalchemy as sa
import sqlalchemy.exc

from lite_common import daemon
from lite_common import private
from lite_common.exception import DatabaseUnavailable

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


@dataclasses.dataclass(frozen=True)
class Schema:
    """What the command needs of a service."""

    prog: str
    project: str
    #: ``configure(conf, command=True)``: point the service's database
    #: context at ``[database]connection``.
    configure: Callable[..., None]
    get_engine: Callable[[], sa.engine.Engine]
    db_sync: Callable[[sa.engine.Engine], None]
    db_version: Callable[[sa.engine.Engine], str | None]
    #: The service's exception for a bad configuration.
    config_error: type[Exception]


def _failure(schema: Schema, exc: Exception) -> str | None:
    """The one line an operator reads for a known failure, else None."""
    prog = schema.prog
    if isinstance(exc, schema.config_error):
        return f'{prog}: {exc}'
    cause = daemon.root_cause(exc)
    if isinstance(exc, (db_exc.DBConnectionError, DatabaseUnavailable)):
        return (
            f'{prog} cannot connect to the database: {cause}. Check '
            f'[database]connection and that the server is up.'
        )
    if isinstance(exc, (db_exc.DBError, sqlalchemy.exc.SQLAlchemyError)):
        return f'{prog}: database error: {cause}'
    return None


def main(
    schema: Schema,
    argv: list[str] | None = None,
    conf: cfg.ConfigOpts | None = None,
) -> int:
    private.restrict_umask()
    conf = conf if conf is not None else cfg.ConfigOpts()
    conf.register_cli_opts(cli_opts)
    db_options.set_defaults(conf)
    logging.register_options(conf)
    try:
        conf(
            sys.argv[1:] if argv is None else argv,
            project=schema.project,
            prog=schema.prog,
        )
    except cfg.Error as exc:
        print(f'{schema.prog}: invalid configuration: {exc}', file=sys.stderr)
        return 2
    logging.setup(conf, schema.project)
    try:
        schema.configure(conf, command=True)
        engine = schema.get_engine()
        if conf.command == 'version':
            print(schema.db_version(engine) or 'None (empty)')
        else:
            schema.db_sync(engine)
            print(f'Database is at {schema.db_version(engine)}')
    except Exception as exc:
        message = _failure(schema, exc)
        if message is None:
            raise
        print(message, file=sys.stderr)
        return 1
    return 0
