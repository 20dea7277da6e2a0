"""[neutron] options read by the ``flat`` network interface (upstream
Ironic's names, so that an operator's configuration carries over).

ironic_lite talks to no network service: the network named here is
recorded and logged, not looked up (see doc/source/admin/networking.rst).
"""

from oslo_config import cfg

group = cfg.OptGroup('neutron', title='Networking')

opts: list[cfg.Opt] = [
    cfg.StrOpt(
        'cleaning_network',
        mutable=True,
        help="UUID or name of the network nodes clean on (a node's "
        'driver_info cleaning_network overrides it). The flat network '
        'interface requires one: without it, validating the node and '
        'attaching a VIF fail with "UUID or name of cleaning_network is '
        'not set", as upstream.',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(cfg.OptGroup(group.name, title=group.title))
    conf.register_opts(opts, group=group.name)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [(group.name, opts)]
