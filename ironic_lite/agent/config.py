"""The options of ironic-lite-agent (``[DEFAULT]``, upstream's names
where ironic-python-agent has them)."""

from oslo_config import cfg

OPTS = [
    cfg.StrOpt(
        'api_url',
        default='http://127.0.0.1:6385',
        help='URL of the Bare Metal API the agent looks the machine up '
        "in and heartbeats to (ironic-python-agent's api_url).",
    ),
    cfg.ListOpt(
        'mac_addresses',
        default=[],
        help='MAC addresses of the emulated machine: the lookup finds the '
        'node by its ports with these addresses.',
    ),
    cfg.ListOpt(
        'disk_files',
        default=[],
        help="Files that stand for the machine's block devices; the "
        'clean steps erase them.',
    ),
    cfg.HostAddressOpt(
        'listen_host',
        default='127.0.0.1',
        help='Address the command API listens on.',
    ),
    cfg.PortOpt(
        'listen_port',
        default=9999,
        help='Port the command API listens on (0: any free port).',
    ),
    cfg.HostAddressOpt(
        'advertise_host',
        default=None,
        help='Address the conductor reaches the agent at (the callback '
        'URL of the heartbeats); default: listen_host.',
    ),
    cfg.FloatOpt(
        'heartbeat_interval',
        default=None,
        min=0.1,
        help='Seconds between two heartbeats. Default: as '
        'ironic-python-agent, a random time between 0.3 and 0.6 of the '
        'heartbeat_timeout the lookup hands out.',
    ),
    cfg.FloatOpt(
        'lookup_interval',
        default=2.0,
        min=0.1,
        help='Seconds between two lookups while the node is not found '
        'or not in a state where it may be looked up.',
    ),
    cfg.IntOpt(
        'shred_random_overwrite_iterations',
        default=1,
        min=0,
        help='erase_devices: passes of random data over each disk file '
        "(ironic-python-agent's option).",
    ),
    cfg.StrOpt(
        'rescue_password_file',
        default='/etc/ipa-rescue-config/ipa-rescue-password',
        help='Where rescue.finalize_rescue writes the hash of the rescue '
        "password (ironic-python-agent's path; the directory is made "
        '0700, the file 0600).',
    ),
    cfg.IntOpt(
        'efi_system_partition_size',
        default=550,
        min=32,
        help='MiB of the EFI system partition made for a partition image '
        "deployed in UEFI mode (ironic-python-agent's "
        '[disk_utils]efi_system_partition_size).',
    ),
    cfg.BoolOpt(
        'shred_final_overwrite_with_zeros',
        default=True,
        help='erase_devices: a final pass of zeros over each disk file '
        "(ironic-python-agent's option).",
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_cli_opts(OPTS)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [(None, OPTS)]
