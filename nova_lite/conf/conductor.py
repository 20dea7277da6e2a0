"""[conductor] options."""

from oslo_config import cfg

conductor_group = cfg.OptGroup('conductor', title='Conductor options')

conductor_opts: list[cfg.Opt] = [
    cfg.IntOpt(
        'build_workers',
        default=8,
        min=1,
        help='Threads that schedule instance builds concurrently.',
    ),
    cfg.IntOpt(
        'move_recovery_interval',
        default=60,
        min=1,
        help="Seconds between the conductor's passes over moves that "
        'stalled before a compute agent took them (a conductor died with '
        'the request, or the message was lost): such a move is driven '
        'again (destination chosen and asked); so is a build that waited '
        'too long to be scheduled.',
    ),
    cfg.IntOpt(
        'move_stall_timeout',
        default=180,
        min=1,
        help='Seconds a move may wait for the conductor (evacuation '
        '"accepted", or cold migration "pre-migrating", with no '
        'destination claimed) before a recovery pass drives it again. '
        'Driving a move twice is safe (the destination is chosen and '
        'claimed by compare-and-swap); keep it above rpc_response_timeout '
        'so that a request still in a queue is not repeated needlessly.',
    ),
    cfg.IntOpt(
        'build_stall_timeout',
        default=180,
        min=1,
        help='Seconds a server may wait in BUILD (task "scheduling") on no '
        'host before a recovery pass schedules it again (its request died '
        'with a conductor, or the message was lost). Scheduling twice is '
        'safe: the placement is a compare-and-swap on an instance not yet '
        'placed. Keep it above rpc_response_timeout.',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(conductor_group)
    conf.register_opts(conductor_opts, group=conductor_group)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [(conductor_group.name, conductor_opts)]
