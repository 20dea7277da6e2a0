"""[DEFAULT] options of neutron_lite (upstream Neutron's names)."""

from oslo_config import cfg

default_opts: list[cfg.Opt] = [
    cfg.StrOpt(
        'base_mac',
        default='fa:16:3e:00:00:00',
        regex=r'^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$',
        help='The MAC addresses of new ports: the first three octets are '
        "kept, the others random where this has 00 (upstream's option).",
    ),
    cfg.IntOpt(
        'global_physnet_mtu',
        default=1500,
        min=68,
        help='The MTU of networks (the largest a network can have).',
    ),
    cfg.IntOpt(
        'max_fixed_ips_per_port',
        default=5,
        min=1,
        help='The most fixed IPs a port may have.',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(default_opts)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [(None, default_opts)]
