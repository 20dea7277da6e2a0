"""ironic-lite-manage: operator commands on the conductors.

    ironic-lite-manage [--config-file FILE] conductor list
    ironic-lite-manage [--config-file FILE] conductor release HOST

``conductor list`` shows every conductor host name, whether it is
alive, and which process holds it (``pid N on MACHINE`` and its
incarnation). ``conductor release HOST`` lets the host name go, so that
a new ``ironic-lite-conductor`` may take it at once instead of waiting
for the holder's heartbeat to be older than
``[conductor]heartbeat_timeout``: for a process known to be dead (its
machine is off). Should that process still run, it is fenced at once:
it writes nothing more under its node locks and stops at its next
heartbeat; only a step it is running may still act on its hardware
until its next checkpoint. Both read ``[database]connection``.
"""

import sys
from typing import Any

from oslo_config import cfg

from ironic_lite import exception
from ironic_lite.cmd import common
from ironic_lite.db import api as db_api
from ironic_lite.db import conductors as db_conductors
from lite_common import context as lite_context
from lite_common import db as lite_db

NAME = 'ironic-lite-manage'


def _age(row: dict[str, Any]) -> str:
    seconds = (lite_db.utcnow() - row['heartbeat_at']).total_seconds()
    return f'{max(seconds, 0.0):.0f} s'


def _describe(row: dict[str, Any], timeout: float) -> str:
    fresh = (lite_db.utcnow() - row['heartbeat_at']).total_seconds() < timeout
    holder = (
        f'held by {row["process"]} (incarnation {row["incarnation"]})'
        if row['incarnation']
        else 'not held (stopped cleanly or released)'
    )
    state = (
        'alive'
        if fresh and row['online']
        else ('stopping' if fresh else 'dead')
    )
    return (
        f'{row["hostname"]}: {state}, last heartbeat {_age(row)} ago, {holder}'
    )


def _list(conf: cfg.ConfigOpts) -> int:
    rows = db_conductors.conductor_list(lite_context.get_admin_context())
    for row in rows:
        print(_describe(row, conf.conductor.heartbeat_timeout))
    if not rows:
        print('No conductor has registered.')
    return 0


def _release(conf: cfg.ConfigOpts) -> int:
    host = conf.command.host
    try:
        before = db_conductors.release(lite_context.get_admin_context(), host)
    except exception.ConductorNotFound:
        print(
            f'{NAME}: no conductor has registered as {host}', file=sys.stderr
        )
        return 1
    print(
        f'Released conductor host name {host} (it was '
        f'{_describe(before, conf.conductor.heartbeat_timeout)}).'
    )
    if before['incarnation']:
        print(
            'If that process still runs, it writes nothing more under '
            'its node locks and stops at its next heartbeat. A new '
            f'ironic-lite-conductor may now start as {host}.'
        )
    return 0


def _add_commands(subparsers: Any) -> None:
    conductor = subparsers.add_parser(
        'conductor',
        help='The conductors and the processes holding their host names.',
    )
    actions = conductor.add_subparsers(dest='action')
    listing = actions.add_parser(
        'list',
        help='Every conductor, its state and the process holding its name.',
    )
    listing.set_defaults(func=_list)
    release = actions.add_parser(
        'release', help='Let a host name go (its process is known dead).'
    )
    release.add_argument('host', help='The conductor host name.')
    release.set_defaults(func=_release)


def main() -> int:
    conf = cfg.CONF
    conf.register_cli_opt(
        cfg.SubCommandOpt('command', title='Commands', handler=_add_commands)
    )
    common.load_config(sys.argv[1:], NAME, conf)
    func = getattr(conf.command, 'func', None)
    if func is None:
        print(
            f'usage: {NAME} conductor {{list,release HOST}}', file=sys.stderr
        )
        return 2

    def body() -> int:
        db_api.configure(conf, command=True)
        return int(func(conf))

    return common.run_daemon(NAME, body)


if __name__ == '__main__':
    sys.exit(main())
