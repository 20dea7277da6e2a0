"""[DEFAULT] availability zone options (upstream Nova's names and
defaults)."""

from oslo_config import cfg

availability_zone_opts: list[cfg.Opt] = [
    cfg.StrOpt(
        'default_availability_zone',
        default='nova',
        help='The availability zone of compute hosts that no host '
        'aggregate with ``availability_zone`` metadata holds.',
    ),
    cfg.StrOpt(
        'internal_service_availability_zone',
        default='internal',
        help='The availability zone shown for the services other than '
        'nova-compute (``os-availability-zone/detail``, '
        '``os-services``).',
    ),
    cfg.StrOpt(
        'default_schedule_zone',
        help='The availability zone a server is scheduled into when its '
        'create request names none; unset, any host may take it.',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(availability_zone_opts)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [(None, availability_zone_opts)]
