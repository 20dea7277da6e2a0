"""Options of nova-lite-compute: the virt driver and its resources."""

from oslo_config import cfg

compute_opts = [
    cfg.StrOpt(
        'compute_driver',
        default='local',
        help='Virt driver, by entry point name in the '
        'nova_lite.virt_drivers namespace: "fake" keeps instances in '
        'memory; "local" gives every instance a disk file under '
        '<state_path>/instances/<uuid>/; "ironic" serves the nodes of a '
        'Bare Metal API as whole machines (see the [ironic] options).',
    ),
    cfg.IntOpt(
        'reserved_host_memory_mb',
        default=0,
        min=0,
        help='Memory (MiB) kept back for the host itself.',
    ),
    cfg.IntOpt(
        'reserved_host_disk_mb',
        default=0,
        min=0,
        help='Disk (MiB) kept back for the host itself.',
    ),
    cfg.IntOpt(
        'resource_update_interval',
        default=60,
        min=1,
        help='Seconds between full resource reports of a compute node.',
    ),
    cfg.IntOpt(
        'cleanup_interval',
        default=60,
        min=1,
        help='Seconds between the housekeeping passes a compute agent '
        'makes while it runs (the same pass runs at start-up): it '
        'destroys local copies of instances evacuated away once their '
        'evacuation is done (never before, and never of an instance '
        'placed on this host again), reaps copies of deleted instances '
        '(see running_deleted_instance_action) and resumes evacuations '
        'to this host that a crash interrupted. A host that comes back '
        'without a restart converges within this time.',
    ),
    cfg.StrOpt(
        'running_deleted_instance_action',
        default='reap',
        choices=[
            ('reap', 'destroy the copy (guest and disks)'),
            ('log', 'log it and keep the copy'),
            ('noop', 'do nothing'),
        ],
        help='What the housekeeping pass does with a local copy of an '
        'instance whose database records are all deleted (deleted while '
        'this host was down, or during a move). An instance the '
        'database does not know at all is never touched: it is named in '
        'a warning.',
    ),
    cfg.IntOpt(
        'shelved_offload_time',
        default=0,
        min=-1,
        help='Seconds a shelved server keeps its guest and disk on its '
        'host before they are removed (offloaded) and its resources '
        'freed: 0 offloads at once when shelving, -1 never (only '
        '"openstack server shelve offload" does). Checked on every '
        'housekeeping pass (cleanup_interval).',
    ),
    cfg.IntOpt(
        'rescue_timeout',
        default=0,
        min=0,
        help='Seconds after which a rescued server (status RESCUE) is '
        'unrescued by its compute agent, as if "openstack server '
        'unrescue" had been run (an "unrescue" action with no user in '
        'its event list); 0 never. Counted from the rescue; checked on '
        'every housekeeping pass (cleanup_interval).',
    ),
    cfg.BoolOpt(
        'force_config_drive',
        default=False,
        help='Give every server a config drive, whether its create '
        'request asked for one ("config_drive": true) or not. Only the '
        'ironic driver builds config drives (the Bare Metal service '
        'writes them from their documents: meta_data, user_data, '
        'network_data); the other drivers have none.',
    ),
]

driver_group = cfg.OptGroup(
    'virt_resources',
    title='Capacity reported by the fake and local drivers',
    help='The fake and local drivers boot no real guests; they report '
    'this capacity so that scheduling behaves as on real hosts.',
)

driver_opts = [
    cfg.IntOpt('vcpus', default=16, min=1, help='vCPUs of the host.'),
    cfg.IntOpt(
        'memory_mb', default=32768, min=1, help='Memory of the host, MiB.'
    ),
    cfg.IntOpt(
        'local_gb', default=1000, min=1, help='Local disk of the host, GiB.'
    ),
    cfg.StrOpt(
        'hypervisor_hostname',
        help='Node name the driver reports; default: the host option.',
    ),
    cfg.FloatOpt(
        'spawn_seconds',
        default=0.0,
        min=0.0,
        help='Seconds the fake and local drivers take to create '
        'an instance, as a real hypervisor takes to fetch an '
        'image and start a guest. For demonstrations and tests '
        'of operations that overlap a slow build; 0 on '
        'production-like setups.',
    ),
    cfg.StrOpt(
        'spawn_hold_file',
        help='With spawn_seconds: a build lasts as long as this '
        'file exists (at most spawn_seconds) instead of exactly '
        'spawn_seconds, so that a test or a demonstration decides '
        'when a slow build ends by removing the file.',
    ),
    cfg.StrOpt(
        'snapshot_image_format',
        default='qcow2',
        choices=[
            (
                'qcow2',
                'the disk converted with qemu-img (Debian package '
                'qemu-utils): its unwritten parts take no room',
            ),
            ('raw', 'the disk as it is, every byte of its size'),
        ],
        help='Format of the images the local driver uploads for '
        'createImage, createBackup and shelve (upstream: '
        '[libvirt]snapshot_image_format). The fake driver uploads a '
        'small raw image naming the server.',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(compute_opts)
    conf.register_group(driver_group)
    conf.register_opts(driver_opts, group=driver_group)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [(None, compute_opts), (driver_group.name, driver_opts)]
