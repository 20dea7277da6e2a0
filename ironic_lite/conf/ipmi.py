"""[ipmi] options of the ipmi hardware type (pyghmi, IPMI 2.0 over
UDP). ``command_retry_timeout`` and ``min_command_interval`` are
upstream Ironic's names and defaults; the others are this driver's
(upstream waits with ``[conductor]power_state_change_timeout`` and
``soft_power_off_timeout``, whose defaults these keep)."""

from oslo_config import cfg

group = cfg.OptGroup('ipmi', title='IPMI')

opts: list[cfg.Opt] = [
    cfg.IntOpt(
        'command_retry_timeout',
        default=60,
        min=0,
        help='Seconds an IPMI operation the BMC does not answer is '
        'tried again for (0: tried once; otherwise tried at least '
        'twice). A BMC that answers with an error (credentials refused, '
        'command refused) is not retried.',
    ),
    cfg.IntOpt(
        'min_command_interval',
        default=5,
        min=0,
        help='Seconds between two attempts of an IPMI operation the BMC '
        'did not answer.',
    ),
    cfg.IntOpt(
        'operation_timeout',
        default=60,
        min=1,
        help='The most seconds one IPMI operation (the login and its '
        'commands) may take; a BMC that keeps a login half open no '
        'longer holds the conductor after this.',
    ),
    cfg.IntOpt(
        'power_state_change_timeout',
        default=30,
        min=1,
        help='Seconds a power on, power off or reboot may take before '
        'it fails: the conductor polls the chassis until it reports '
        'the target state.',
    ),
    cfg.IntOpt(
        'soft_power_off_timeout',
        default=600,
        min=1,
        help='Seconds a soft power off (an ACPI shutdown the operating '
        'system carries out) may take before it fails.',
    ),
    cfg.FloatOpt(
        'power_state_poll_interval',
        default=1.0,
        min=0.05,
        help='Seconds between two reads of the power state while a '
        'power change is under way.',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(cfg.OptGroup(group.name, title=group.title))
    conf.register_opts(opts, group=group.name)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [(group.name, opts)]
