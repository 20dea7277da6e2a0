"""[ironic] options: how the ``ironic`` virt driver reaches the Bare
Metal API (ironic_lite's, or upstream Ironic's)."""

from oslo_config import cfg

from lite_common import service_client

GROUP = 'ironic'

ironic_opts: list[cfg.Opt] = [
    *service_client.options('the Bare Metal API'),
    cfg.StrOpt(
        'conductor_group',
        help='Only the nodes of this conductor group are served by this '
        'agent (default: every node).',
    ),
    cfg.ListOpt(
        'peer_list',
        default=[],
        help='The hosts of the ironic compute agents that share the nodes '
        '(this one included). Each node is served by one live peer, chosen '
        'by a hash of the node uuid over the peers that are up (rendezvous '
        'hashing): when a peer dies, only its nodes move, to the others, '
        'and keep their compute node records. Empty: this agent serves '
        'every node.',
    ),
    cfg.IntOpt(
        'deploy_timeout',
        default=1800,
        min=1,
        help='Seconds a spawn waits for its node to become "active" '
        'before the server goes to ERROR.',
    ),
    cfg.IntOpt(
        'api_retry_interval',
        default=2,
        min=1,
        help='Seconds between polls of a node in a transition.',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(ironic_opts, group=GROUP)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [(GROUP, ironic_opts)]
