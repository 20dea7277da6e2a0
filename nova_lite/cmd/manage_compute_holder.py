"""nova-lite-manage compute list | release HOST: which process holds
each compute host name.

``compute list`` shows every compute service, whether it is up, and the
agent process holding its host name (``pid N on MACHINE``, incarnation).
``compute release HOST`` lets the host name go, so that a new
nova-lite-compute may take it at once instead of waiting until the
holder's heartbeat is older than ``service_down_time``: for a process
known to be dead (its machine is off). A process of that name that
still runs destroys nothing more and stops at its next heartbeat (exit
status 78). Both need ``[database]connection`` (a controller's
configuration).
"""

import sys
from typing import Any

from oslo_config import cfg

from lite_common import context as lite_context
from lite_common import db as lite_db
from nova_lite import exception
from nova_lite.db import api as db_api
from nova_lite.db import service_identity
from nova_lite.db import services as services_db
from nova_lite.objects import service as service_obj

NAME = 'nova-lite-manage'


def _describe(row: dict[str, Any], down_time: float) -> str:
    seen = row['last_seen_up']
    age = (
        'never'
        if seen is None
        else f'{max((lite_db.utcnow() - seen).total_seconds(), 0.0):.0f} s ago'
    )
    state = 'up' if service_obj.is_up(row, int(down_time)) else 'down'
    holder = (
        f'held by {row["process"]} (incarnation {row["incarnation"]})'
        if row.get('incarnation')
        else 'not held (stopped cleanly, released, or never started '
        'by this release)'
    )
    return f'{row["host"]}: {state}, last heartbeat {age}, {holder}'


def list_hosts(conf: cfg.ConfigOpts) -> int:
    db_api.configure(conf, command=True)
    rows = services_db.service_get_all(
        lite_context.get_admin_context(), binary=service_obj.COMPUTE_BINARY
    )
    for row in rows:
        print(_describe(row, conf.service_down_time))
    if not rows:
        print('No compute agent has registered.')
    return 0


def release(conf: cfg.ConfigOpts) -> int:
    db_api.configure(conf, command=True)
    host = conf.command.release_host
    try:
        before = service_identity.release(
            lite_context.get_admin_context(), host, service_obj.COMPUTE_BINARY
        )
    except exception.ServiceNotFound:
        print(
            f'{NAME}: no compute agent has registered as {host}',
            file=sys.stderr,
        )
        return 1
    print(
        f'Released compute host name {host} (it was '
        f'{_describe(before, conf.service_down_time)}).'
    )
    if before['incarnation']:
        print(
            'If that process still runs, it destroys nothing more and '
            'stops at its next heartbeat. A new nova-lite-compute may '
            f'now start as {host}.'
        )
    return 0


def add_commands(sub: Any) -> None:
    """``compute list`` and ``compute release HOST``."""
    sub.add_parser(
        'list',
        help='Every compute host, whether it is up and the agent '
        'process holding its name.',
    ).set_defaults(func=list_hosts)
    rel = sub.add_parser(
        'release',
        help='Let a compute host name go whose agent process '
        'is known to be dead, so that a new agent may take it at once.',
    )
    rel.add_argument(
        'release_host', metavar='HOST', help='The compute host name.'
    )
    rel.set_defaults(func=release)
