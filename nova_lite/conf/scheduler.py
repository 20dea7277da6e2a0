"""Scheduling options: allocation ratios, moves to the same host."""

from oslo_config import cfg

scheduler_opts: list[cfg.Opt] = [
    cfg.FloatOpt(
        'cpu_allocation_ratio', default=4.0, min=0.0,
        help='Virtual CPUs that may be allocated per physical CPU.'),
    cfg.FloatOpt(
        'ram_allocation_ratio', default=1.0, min=0.0,
        help='Virtual memory that may be allocated per MiB of host '
        'memory.'),
    cfg.FloatOpt(
        'disk_allocation_ratio', default=1.0, min=0.0,
        help='Virtual disk that may be allocated per GiB of host disk.'),
    cfg.BoolOpt(
        'allow_resize_to_same_host', default=False,
        help='Allow a resize to choose the host the server already runs '
        'on (as upstream Nova). A cold migration (same flavor) always '
        'goes to another host. Useful on single-host deployments.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(scheduler_opts)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [(None, scheduler_opts)]
