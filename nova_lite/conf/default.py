"""[DEFAULT] options that every nova_lite service reads."""

import socket

from oslo_config import cfg

default_opts = [
    cfg.HostAddressOpt(
        'host',
        default=socket.gethostname(),
        sample_default='<current_hostname>',
        help='Name of this node, as used in the compute RPC topic and in '
        'the service and compute node records. Must be unique among the '
        'compute hosts; changing it later is a rename (see the compute '
        'node identification guide).',
    ),
    cfg.StrOpt(
        'state_path',
        default='/var/lib/nova-lite',
        help='Directory where nova_lite keeps its state: the compute_id '
        'identity file and, with the local driver, instance disks.',
    ),
    cfg.IntOpt(
        'report_interval',
        default=10,
        min=1,
        help='Seconds between service heartbeats.',
    ),
    cfg.IntOpt(
        'service_down_time',
        default=60,
        min=1,
        help='A service whose last heartbeat is older than this many '
        'seconds is down. Must be larger than report_interval.',
    ),
    cfg.IntOpt(
        'reclaim_instance_interval',
        default=0,
        help="Deferred delete (upstream Nova's option). 0: DELETE "
        '/servers/{id} deletes a server at once. Greater than 0: the '
        'server is powered off and kept in SOFT_DELETED (with its disks '
        "and its room on the host, though no longer in its project's "
        'quota usage) until it is restored (action "restore"), deleted '
        'at once (action "forceDelete"), or older than this many '
        'seconds: then the conductor deletes it as a DELETE would. Read '
        'by nova-lite-api and nova-lite-conductor; set it alike on '
        'both.',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(default_opts)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [(None, default_opts)]
