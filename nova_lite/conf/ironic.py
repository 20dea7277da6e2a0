"""[ironic] options: how the ``ironic`` virt driver reaches the Bare
Metal API (ironic_lite's, or upstream Ironic's)."""

from oslo_config import cfg

GROUP = 'ironic'

ironic_opts: list[cfg.Opt] = [
    cfg.URIOpt(
        'endpoint_override',
        schemes=['http', 'https'],
        help='URL of the Bare Metal API, e.g. http://127.0.0.1:6385. '
        'Required by the ironic virt driver with http_basic and none; '
        "with password, the URL in Keystone's catalog is used when "
        'unset.',
    ),
    cfg.StrOpt(
        'auth_type',
        default='http_basic',
        choices=[
            ('http_basic', "username and password (the API's htpasswd file)"),
            ('none', 'no authentication (an API run with noauth)'),
            (
                'password',
                'a Keystone token for a service user (an '
                "API run with keystone), as upstream nova's [ironic]",
            ),
        ],
        help='How the driver authenticates to the Bare Metal API.',
    ),
    cfg.StrOpt('username', help='User for http_basic and password.'),
    cfg.StrOpt(
        'password', secret=True, help='Password for http_basic and password.'
    ),
    cfg.URIOpt(
        'auth_url',
        schemes=['http', 'https'],
        help="Keystone's URL (password), e.g. http://127.0.0.1:5000/v3.",
    ),
    cfg.StrOpt(
        'project_name',
        default='service',
        help='Project of the service user (password).',
    ),
    cfg.StrOpt(
        'user_domain_name',
        default='Default',
        help='Domain of the service user (password).',
    ),
    cfg.StrOpt(
        'project_domain_name',
        default='Default',
        help='Domain of the project (password).',
    ),
    cfg.StrOpt(
        'region_name',
        help='Region of the Bare Metal endpoint in the catalog '
        '(password, without endpoint_override).',
    ),
    cfg.ListOpt(
        'valid_interfaces',
        default=['internal', 'public'],
        help='Interfaces of the Bare Metal endpoint in the '
        'catalog, in order of preference (password, without '
        'endpoint_override).',
    ),
    cfg.StrOpt(
        'cafile',
        help='PEM file of the CA certificates that verify the Bare '
        "Metal API's and Keystone's HTTPS certificates (default: "
        "the system's).",
    ),
    cfg.StrOpt(
        'certfile',
        help='PEM client certificate, for an API that asks for one.',
    ),
    cfg.StrOpt('keyfile', help='PEM key of certfile (when not in certfile).'),
    cfg.BoolOpt(
        'insecure',
        default=False,
        help='Do not verify HTTPS certificates (tests only: '
        'anyone on the path can read the credentials).',
    ),
    cfg.IntOpt(
        'timeout',
        min=1,
        help='Seconds an HTTP request to the Bare Metal API or '
        'Keystone may take (default: no limit).',
    ),
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
