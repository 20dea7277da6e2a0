"""nova-lite-manage: database and operator commands."""

import sys
from typing import Any
from typing import cast

from oslo_config import cfg

from nova_lite.cmd import common
from nova_lite.cmd import manage_compute
from nova_lite.cmd import manage_online
from nova_lite.db import api as db_api
from nova_lite.db import migration


def _db_sync(conf: cfg.ConfigOpts) -> int:
    db_api.configure(conf, command=True)
    migration.db_sync(db_api.get_engine(), conf.command.version or 'head')
    print(f'Database is at {migration.db_version(db_api.get_engine())}')
    return 0


def _db_version(conf: cfg.ConfigOpts) -> int:
    db_api.configure(conf, command=True)
    print(migration.db_version(db_api.get_engine()) or 'None (empty)')
    return 0


def _add_commands(subparsers: Any) -> None:
    db = subparsers.add_parser('db', help='Database schema commands.')
    db_sub = db.add_subparsers(dest='action')
    sync = db_sub.add_parser('sync', help='Upgrade the schema.')
    sync.add_argument('version', nargs='?', help='Target revision.')
    sync.set_defaults(func=_db_sync)
    version = db_sub.add_parser('version', help='Print the revision.')
    version.set_defaults(func=_db_version)
    manage_online.add_commands(db_sub)
    manage_compute.add_commands(subparsers)


def main() -> int:
    conf = cfg.CONF
    conf.register_cli_opt(
        cfg.SubCommandOpt('command', title='Commands', handler=_add_commands)
    )
    common.load_config(sys.argv[1:], 'nova-lite-manage', conf)
    func = getattr(conf.command, 'func', None)
    if func is None:
        print(
            'usage: nova-lite-manage db '
            '{sync,version,online_data_migrations} | compute '
            '{identity {show,verify},rename,forget-evacuations,list,'
            'release HOST}',
            file=sys.stderr,
        )
        return 2

    def body() -> int:
        return cast(int, func(conf))

    return common.run_daemon('nova-lite-manage', body)
