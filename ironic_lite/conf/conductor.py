"""Options of ironic-lite-conductor: cleaning, workers, drivers.

Three groups: ``[conductor]`` (flows and heartbeats), ``[DEFAULT]``
(which hardware types and interfaces the conductor may load) and
``[fake]`` (the behaviour of the fake interfaces).
"""

from oslo_config import cfg
from oslo_config import types

conductor_group = cfg.OptGroup(
    'conductor', title='Bare metal conductor options'
)

#: ``<interface>.<step name>:<priority>``, for example
#: ``deploy.erase_devices:0``.
PRIORITY_OVERRIDE_REGEX = (
    r'^(power|management|deploy)\.[A-Za-z_][A-Za-z0-9_]*:[0-9]+$'
)

conductor_opts: list[cfg.Opt] = [
    cfg.BoolOpt(
        'automated_clean',
        default=True,
        help='Run automated cleaning when a node is made available '
        '("provide") and when an instance is torn down. Disabling it '
        'means the next tenant may find the data of the previous one.',
    ),
    cfg.IntOpt(
        'clean_callback_timeout',
        default=1800,
        min=0,
        help='Seconds a node may stay in "clean wait" while a clean step '
        'runs asynchronously. After that the step is considered lost '
        'and the node goes to "clean failed". 0 disables the timeout.',
    ),
    cfg.IntOpt(
        'deploy_callback_timeout',
        default=1800,
        min=0,
        help='Seconds a node may stay in "wait call-back" while a deploy '
        'step runs asynchronously. After that the step is considered '
        'lost and the node goes to "deploy failed". 0 disables the '
        'timeout.',
    ),
    cfg.IntOpt(
        'rescue_callback_timeout',
        default=1800,
        min=0,
        help='Seconds a node may stay in "rescue wait" for its rescue '
        'ramdisk (the agent rescue interface) to heartbeat. After that '
        'the node is powered off and goes to "rescue failed". 0 disables '
        'the timeout.',
    ),
    cfg.IntOpt(
        'service_callback_timeout',
        default=1800,
        min=0,
        help='Seconds a node may stay in "service wait" while a service '
        'step runs asynchronously. After that the step is considered '
        'lost and the node goes to "service failed". 0 disables the '
        'timeout.',
    ),
    cfg.IntOpt(
        'max_conductor_wait_step_seconds',
        default=30,
        min=0,
        help='The most seconds the reserved service step "wait" waits '
        'for; a longer wait is cut to this, with a warning in the node '
        'history (upstream\'s option). The node waits in "service wait" '
        'without holding a worker or its lock.',
    ),
    cfg.IntOpt(
        'inspect_wait_timeout',
        default=1800,
        min=0,
        help='Seconds a node may stay in "inspect wait" while its '
        'inspection goes on asynchronously; after that it goes to '
        '"inspect failed". 0 disables the timeout.',
    ),
    cfg.IntOpt(
        'clean_step_poll_interval',
        default=2,
        min=1,
        help='Seconds between two checks of a clean step that runs '
        'asynchronously (a node in "clean wait").',
    ),
    cfg.ListOpt(
        'clean_step_priority_override',
        default=[],
        item_type=types.String(regex=PRIORITY_OVERRIDE_REGEX),
        help='Priority overrides of automated clean steps, as a list of '
        '<interface>.<step>:<priority>, for example '
        '"deploy.erase_devices_metadata:10,deploy.erase_devices:0". '
        'Priority 0 removes a step from automated cleaning; it stays '
        'available to manual cleaning. Steps run highest priority '
        'first.',
    ),
    cfg.IntOpt(
        'clean_step_max_attempts',
        default=3,
        min=1,
        help='How many times in all an idempotent clean step may be '
        'started on one node within one cleaning: a step interrupted '
        'because its conductor died, stopped or lost the node runs '
        'again on the conductor that takes the node over only while it '
        'was started fewer times than this; then the node goes to '
        '"clean failed". A step that is not idempotent never runs '
        'twice, whatever this says.',
    ),
    cfg.BoolOpt(
        'node_history',
        default=True,
        help='Record the errors and noteworthy events of each node (a '
        'failed verification, deployment, tear down, power change or '
        'cleaning) in its history (GET /v1/nodes/{node}/history).',
    ),
    cfg.BoolOpt(
        'record_step_flows_in_history',
        default=True,
        help='Record in the history of a node the start and the end of '
        'each cleaning, with its steps.',
    ),
    cfg.IntOpt(
        'node_history_max_entries',
        default=300,
        min=0,
        help='The most history entries kept per node: recording one '
        'more removes the oldest. 0 keeps none.',
    ),
    cfg.IntOpt(
        'workers_pool_size',
        default=100,
        min=3,
        help='Threads that run node operations (deploy, cleaning, '
        'power) concurrently. Requests beyond this are refused with '
        'a retryable error.',
    ),
    cfg.IntOpt(
        'heartbeat_interval',
        default=10,
        min=1,
        help='Seconds between two heartbeats of this conductor in the '
        'database.',
    ),
    cfg.StrOpt(
        'conductor_group',
        default='',
        regex=r'^[a-zA-Z0-9_\-\.]*$',
        max_length=255,
        help='The conductor group this conductor joins (case '
        'insensitive; letters, digits, "_", "-" and "."). It manages '
        'only the nodes whose conductor_group field is the same; the '
        'default, empty group is the group of nodes without one.',
    ),
    cfg.IntOpt(
        'heartbeat_timeout',
        default=60,
        min=1,
        help='A conductor whose last heartbeat is older than this many '
        'seconds is dead: others take over its nodes. Must be larger '
        'than heartbeat_interval.',
    ),
]

power_sync_opts: list[cfg.Opt] = [
    cfg.IntOpt(
        'sync_power_state_interval',
        default=120,
        min=0,
        help='Interval between syncing the node power state to the '
        'database, in seconds. Set to 0 to disable syncing.',
    ),
    cfg.BoolOpt(
        'force_power_state_during_sync',
        default=True,
        mutable=True,
        help='During sync_power_state, should the hardware power state be '
        'set to the state recorded in the database (True) or should the '
        'database be updated based on the hardware state (False).',
    ),
    cfg.IntOpt(
        'power_state_sync_max_retries',
        default=3,
        min=0,
        help='During sync_power_state failures, limit the number of times '
        'the conductor tries syncing the hardware node power state with '
        'the node power state in DB; then the node goes into maintenance '
        'with fault "power failure".',
    ),
    cfg.IntOpt(
        'sync_power_state_workers',
        default=8,
        min=1,
        help='The maximum number of worker threads that can be started '
        'simultaneously to sync nodes power states from the periodic '
        'task.',
    ),
    cfg.IntOpt(
        'periodic_max_workers',
        default=8,
        min=1,
        help='Maximum number of worker threads that can be started '
        'simultaneously by a periodic task.',
    ),
    cfg.IntOpt(
        'power_failure_recovery_interval',
        default=300,
        min=0,
        help='Interval (in seconds) between checking the power state for '
        'nodes previously put into maintenance mode due to power '
        'synchronization failure. A node is automatically moved out of '
        'maintenance mode once its power state is retrieved successfully. '
        'Set to 0 to disable this check.',
    ),
]
conductor_opts.extend(power_sync_opts)

driver_opts: list[cfg.Opt] = [
    cfg.ListOpt(
        'enabled_hardware_types',
        default=['fake-hardware'],
        help='Hardware types this conductor loads, by entry point name '
        'in the ironic_lite.hardware.types namespace. Nodes of other '
        'hardware types are refused.',
    ),
]

#: interface type -> the implementations enabled by default.
ENABLED_BY_DEFAULT = {
    'power': ['fake'],
    'management': ['fake'],
    'deploy': ['fake'],
    'boot': ['fake'],
    'network': ['noop'],
    'bios': ['fake', 'no-bios'],
    'console': ['fake', 'no-console'],
    'firmware': ['fake', 'no-firmware'],
    'inspect': ['fake', 'no-inspect'],
    'raid': ['fake', 'no-raid'],
    'rescue': ['fake', 'no-rescue'],
    'storage': ['noop', 'fake'],
    'vendor': ['fake', 'no-vendor'],
}
#: interface type -> its default_<type>_interface when not set (as
#: upstream: volumes are attached only where an operator asks for it).
DEFAULT_BY_DEFAULT = {'storage': 'noop'}

for _kind, _names in ENABLED_BY_DEFAULT.items():
    driver_opts.append(
        cfg.ListOpt(
            f'enabled_{_kind}_interfaces',
            default=_names,
            help=f'{_kind.capitalize()} interfaces this conductor loads '
            f'(entry points in ironic_lite.hardware.interfaces.{_kind}).',
        )
    )
    driver_opts.append(
        cfg.StrOpt(
            f'default_{_kind}_interface',
            default=DEFAULT_BY_DEFAULT.get(_kind),
            help=f'The {_kind} interface of a node that names none. Unset: '
            f'the first one its hardware type supports that is also '
            f'enabled. It must be enabled and usable with every enabled '
            f'hardware type, or the conductor does not start.',
        )
    )

fake_group = cfg.OptGroup(
    'fake',
    title='Fake hardware',
    help='The fake interfaces drive no hardware; these delays make them '
    'behave like slow hardware, for tests and demonstrations.',
)

fake_opts: list[cfg.Opt] = [
    cfg.FloatOpt(
        'power_delay',
        default=0.0,
        min=0.0,
        help='Seconds the fake power interface takes for a power change.',
    ),
    cfg.FloatOpt(
        'step_delay',
        default=0.0,
        min=0.0,
        help='Seconds each synchronous fake clean step takes.',
    ),
    cfg.StrOpt(
        'run_log',
        help='A file every fake clean step run is recorded in, as JSON '
        'lines (node, step, conductor, start and end times): several '
        'conductors may share it. For tests; unset records nothing.',
    ),
    cfg.IntOpt(
        'run_log_max_bytes',
        default=64 * 1024 * 1024,
        min=1024,
        help='The fake run log stops growing at this size.',
    ),
    cfg.BoolOpt(
        'asynchronous_inspection',
        default=False,
        help='Whether the fake inspect interface inspects asynchronously: '
        'the node then waits in "inspect wait" until the inspection is '
        "aborted or [conductor]inspect_wait_timeout passes (upstream's "
        'fake inspects at once). For tests and demonstrations of the '
        'inspect wait state.',
    ),
    cfg.StrOpt(
        'gate_dir',
        help='The directory the fake clean step wait_for_gate watches: '
        'the step ends when the file named by its "gate" argument '
        'appears there. For tests.',
    ),
]


def _private_copy(group: cfg.OptGroup) -> cfg.OptGroup:
    # ConfigOpts.register_group keeps a shallow copy of the group, whose
    # option table (overrides included) is shared with every other
    # ConfigOpts registering the same object: give each its own.
    return cfg.OptGroup(group.name, title=group.title, help=group.help)


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(_private_copy(conductor_group))
    conf.register_opts(conductor_opts, group=conductor_group.name)
    conf.register_opts(driver_opts)
    conf.register_group(_private_copy(fake_group))
    conf.register_opts(fake_opts, group=fake_group.name)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [
        (None, driver_opts),
        (conductor_group.name, conductor_opts),
        (fake_group.name, fake_opts),
    ]
