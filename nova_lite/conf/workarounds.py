"""[workarounds] options."""

from oslo_config import cfg

GROUP = 'workarounds'

workarounds_opts: list[cfg.Opt] = [
    cfg.BoolOpt(
        'destroy_after_evacuate',
        default=True,
        deprecated_for_removal=True,
        deprecated_since='0.2.0',
        deprecated_reason='It has no effect on safety and is kept only so '
        'that configuration files written for upstream Nova still load.',
        help='Has no effect. A compute agent that comes back after its '
        'instances were evacuated destroys exactly the local copies that '
        'an evacuation migration record names (keeping disks on shared '
        'storage) and marks those records completed; it never destroys an '
        'instance because its host field differs, whatever this option '
        'says.',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(workarounds_opts, group=GROUP)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [(GROUP, workarounds_opts)]
