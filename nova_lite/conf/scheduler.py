"""Scheduling options: allocation ratios, moves to the same host, the
attempts of a move ([scheduler])."""

from oslo_config import cfg

scheduler_opts: list[cfg.Opt] = [
    cfg.FloatOpt(
        'cpu_allocation_ratio',
        default=4.0,
        min=0.0,
        help='Virtual CPUs that may be allocated per physical CPU.',
    ),
    cfg.FloatOpt(
        'ram_allocation_ratio',
        default=1.0,
        min=0.0,
        help='Virtual memory that may be allocated per MiB of host memory.',
    ),
    cfg.FloatOpt(
        'disk_allocation_ratio',
        default=1.0,
        min=0.0,
        help='Virtual disk that may be allocated per GiB of host disk.',
    ),
    cfg.BoolOpt(
        'allow_resize_to_same_host',
        default=False,
        help='Allow a resize to choose the host the server already runs '
        'on (as upstream Nova). A cold migration (same flavor) always '
        'goes to another host. Useful on single-host deployments.',
    ),
]


scheduler_group = cfg.OptGroup(
    'scheduler', title="Scheduler options (upstream Nova's [scheduler])"
)

scheduler_group_opts: list[cfg.Opt] = [
    cfg.IntOpt(
        'max_attempts',
        default=3,
        min=1,
        help='Hosts a cold migration or resize may try: when the '
        'destination the scheduler chose refuses at its claim (another '
        "request took the room meanwhile, or the server group's policy "
        'no longer allows the host), another destination is chosen, '
        'without the hosts that refused, until this many have been '
        'tried; then the move ends in error and the server stays on its '
        'source. A destination asked for by name is never replaced.',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(scheduler_opts)
    conf.register_group(scheduler_group)
    conf.register_opts(scheduler_group_opts, group=scheduler_group)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [(None, scheduler_opts), ('scheduler', scheduler_group_opts)]
