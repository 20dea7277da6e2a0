"""``[agent]``: how the conductor talks to a node's ramdisk agent, and
``[deploy]``: the priorities of the agent's erase steps (upstream's
names)."""

from oslo_config import cfg

AGENT_OPTS: list[cfg.Opt] = [
    cfg.FloatOpt(
        'command_timeout',
        default=60,
        min=1,
        help="Seconds an HTTP request to a node's agent (its command "
        'API) may take.',
    ),
]

DEPLOY_OPTS: list[cfg.Opt] = [
    cfg.IntOpt(
        'erase_devices_priority',
        min=0,
        mutable=True,
        help="Priority of the agent's erase_devices clean step. Unset: "
        "the priority the agent reports (10 for upstream's and ours); "
        '0: not run by automated cleaning.',
    ),
    cfg.IntOpt(
        'erase_devices_metadata_priority',
        min=0,
        mutable=True,
        help="Priority of the agent's erase_devices_metadata clean step. "
        'Unset: the priority the agent reports (99); 0: not run by '
        'automated cleaning.',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(AGENT_OPTS, group='agent')
    conf.register_opts(DEPLOY_OPTS, group='deploy')


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [('agent', AGENT_OPTS), ('deploy', DEPLOY_OPTS)]
