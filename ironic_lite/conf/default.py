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
        'conductors.',
    ),
    cfg.StrOpt(
        'default_portgroup_mode',
        default='active-backup',
        help='Bonding mode of a portgroup created without one (a Linux '
        'bonding mode: balance-rr, active-backup, balance-xor, broadcast, '
        '802.3ad, balance-tlb, balance-alb), as upstream.',
    ),
    cfg.BoolOpt(
        'rbac_service_role_elevated_access',
        default=False,
        help='Give the service role of the project named by '
        'rbac_service_project_name the access of a system member (the '
        'policy rule service_role), as upstream: for services such as '
        'the Compute service that hold project-scoped tokens.',
    ),
    cfg.StrOpt(
        'rbac_service_project_name',
        default='service',
        help='The project whose service role '
        'rbac_service_role_elevated_access elevates.',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(default_opts)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [(None, default_opts)]
