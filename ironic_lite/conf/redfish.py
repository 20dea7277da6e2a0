"""[redfish] options of the redfish hardware type (upstream Ironic's
names and defaults), and the power wait of [conductor]."""

from oslo_config import cfg

group = cfg.OptGroup('redfish', title='Redfish')

opts: list[cfg.Opt] = [
    cfg.IntOpt(
        'connection_attempts',
        default=5,
        min=1,
        help='How many times a request to a BMC is tried when the BMC '
        'does not answer (connection refused, timeout).',
    ),
    cfg.IntOpt(
        'connection_retry_interval',
        default=4,
        min=0,
        help='Seconds between two of those attempts.',
    ),
    cfg.IntOpt(
        'connection_cache_size',
        default=1000,
        min=0,
        help='How many BMC sessions (one per address, user and password) '
        'the conductor keeps open; 0 opens one per request.',
    ),
    cfg.IntOpt(
        'read_timeout',
        default=60,
        min=1,
        help="Seconds to wait for a BMC's answer to one request (a BMC "
        'that accepts connections but does not answer counts as not '
        'answering after this).',
    ),
    cfg.IntOpt(
        'server_side_retries',
        default=10,
        min=0,
        help='How many times sushy repeats a request the BMC answered '
        'with a server error (5xx, a busy BMC).',
    ),
    cfg.IntOpt(
        'server_side_retries_delay',
        default=3,
        min=0,
        help='Seconds between two of those repeats.',
    ),
    cfg.IntOpt(
        'power_state_change_timeout',
        default=60,
        min=1,
        help='Seconds a power change may take before it fails: a BMC '
        'applies it asynchronously, and the conductor polls the '
        'system until it reports the target state.',
    ),
    cfg.IntOpt(
        'raid_config_timeout',
        default=600,
        min=1,
        help='Seconds the redfish RAID interface waits for a BMC that '
        'creates or deletes a volume asynchronously (its task monitor) '
        'before the clean step fails.',
    ),
    cfg.FloatOpt(
        'power_state_poll_interval',
        default=1.0,
        min=0.05,
        help='Seconds between two polls of the power state while a '
        'power change is under way.',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(cfg.OptGroup(group.name, title=group.title))
    conf.register_opts(opts, group=group.name)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [(group.name, opts)]
