"""[conductor] options."""

from oslo_config import cfg

conductor_group = cfg.OptGroup('conductor', title='Conductor options')

conductor_opts: list[cfg.Opt] = [
    cfg.IntOpt(
        'build_workers', default=8, min=1,
        help='Threads that schedule instance builds concurrently.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(conductor_group)
    conf.register_opts(conductor_opts, group=conductor_group)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [(conductor_group.name, conductor_opts)]
