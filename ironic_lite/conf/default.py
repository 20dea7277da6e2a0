"""[DEFAULT] options that every ironic_lite service reads."""

import socket

from oslo_config import cfg

default_opts: list[cfg.Opt] = [
    cfg.HostAddressOpt(
        'host',
        default=socket.gethostname(),
        sample_default='<current_hostname>',
        help='Name of this conductor: its RPC server name on the '
        'ironic-lite.conductor topic, its row in the conductors table and '
        'the holder named in node locks. Must be unique among the '
        'conductors.'),
    cfg.StrOpt(
        'default_portgroup_mode', default='active-backup',
        help='Bonding mode of a portgroup created without one (a Linux '
        'bonding mode: balance-rr, active-backup, balance-xor, broadcast, '
        '802.3ad, balance-tlb, balance-alb), as upstream.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(default_opts)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [(None, default_opts)]
