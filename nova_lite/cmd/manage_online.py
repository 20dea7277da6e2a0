"""nova-lite-manage db online_data_migrations: fill what old records lack.

Each migration (nova_lite.db.links) fixes rows in batches of at most
``--max-count`` with a fixed number of statements per batch. Without
``--max-count`` batches of 50 run until nothing is left; with it, at most
that many rows per migration are fixed and the exit code tells whether
more remain, as upstream's command does:

* 0: nothing (more) to do;
* 1: rows were fixed and more remain (run again).
"""

from typing import Any

from oslo_config import cfg

from lite_common import context as lite_context
from lite_common.context import RequestContext
from nova_lite.db import api as db_api
from nova_lite.db import links

DEFAULT_BATCH = 50


def _run_one(
    context: RequestContext, func: Any, max_count: int | None
) -> tuple[int, int, bool]:
    """(found, done, more may remain) for one migration."""
    if max_count is None:
        done = links.fill_all(context, func, DEFAULT_BATCH)
        return done, done, False
    found, done = func(context, max_count)
    return found, done, found >= max_count


def online_data_migrations(conf: cfg.ConfigOpts) -> int:
    db_api.configure(conf, command=True)
    context = lite_context.get_admin_context()
    max_count = conf.command.max_count
    if max_count is not None and max_count < 1:
        print('--max-count must be at least 1')
        return 2
    more = False
    rows = []
    for name, func in links.ONLINE_MIGRATIONS.items():
        found, done, remaining = _run_one(context, func, max_count)
        more = more or remaining
        rows.append((name, found, done))
    width = max(len(name) for name, _f, _d in rows)
    print(f'{"Migration":<{width}}  Total Needed  Completed')
    for name, found, done in rows:
        print(f'{name:<{width}}  {found:>12}  {done:>9}')
    if more:
        print('More rows may need migrating: run the command again.')
        return 1
    return 0


def add_commands(db_sub: Any) -> None:
    online = db_sub.add_parser(
        'online_data_migrations',
        help='Fill integer links that old records lack (compute_id, '
        'service_id, dest_compute_id).',
    )
    online.add_argument(
        '--max-count',
        dest='max_count',
        type=int,
        help='Fix at most this many rows per migration.',
    )
    online.set_defaults(func=online_data_migrations)
