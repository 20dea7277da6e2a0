"""[quotas]: the default limits of every project (upstream Neutron's
names and defaults); ``-1`` is no limit. A project's own limits
(``PUT /v2.0/quotas/{project}``) override them."""

from oslo_config import cfg

#: resource -> upstream's default limit.
DEFAULTS = {
    'network': 100,
    'subnet': 100,
    'port': 500,
    'security_group': 10,
    'security_group_rule': 100,
}

quota_opts: list[cfg.Opt] = [
    cfg.IntOpt(
        f'quota_{resource}',
        default=limit,
        min=-1,
        help=f'{resource.replace("_", " ").capitalize()}s a project may '
        'have (-1: no limit).',
    )
    for resource, limit in DEFAULTS.items()
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(quota_opts, group='quotas')


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [('quotas', quota_opts)]
